// No dead export in src/ (issue 47): every name a file of src/ exports is imported by another file of src/, or is
// on the short list below of names that something outside src/ is there to use. A name exported and used only in
// its own file is un-exported; a name nobody uses is removed. Tests do not count as importers: a function whose
// only caller is its test is dead code with a test. Read with TypeScript's own parser, as test/import-circles.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The folders whose imports of src/ keep an export alive besides src/ itself: the build and docs scripts, the
 * benchmarks and the examples are the project's own programs (each is run by npm or CI), so what they import from
 * src/ is used. test/ is left out on purpose.
 */
const IMPORTERS = ['src', 'scripts', 'bench', 'examples'];

/**
 * Exports that nothing in those folders imports and that stay, each with the reason. The entry points
 * (src/action/index.ts, post.ts, src/cli/index.ts, src/app/start.ts) export nothing, and the package has no
 * public API of its own (it is private: the Action, the App and the CLI are its faces), so the list is short.
 * An export kept "for later" does not go here; one that is a test's only way into code src/ runs may, with why.
 * A name here that something imports again fails the test, so the list does not outlive its reasons.
 */
const KEPT: Record<string, string> = {
  // restoreAt's link handling on a hostile node, reached without building a whole guarded checkout (the only
  // other way in, restoreCheckout, puts back .git/config and hooks together): test/os/git-guard-links.test.ts.
  'src/os/git/git-guard.ts#restoreEntry': 'the test way into restoreAt',
};

function sources(dir: string): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) =>
    e.isDirectory()
      ? e.name === 'node_modules'
        ? []
        : sources(join(dir, e.name))
      : /\.(ts|mts|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** What one file exports and what it takes from other files. */
interface FileFacts {
  /** Names the file declares and exports itself (`export function f`, `export { f }`, `export default`). */
  own: string[];
  /** Names it re-exports from another file: name here -> [specifier, name there]. */
  reexports: Map<string, [string, string]>;
  /** Specifiers it re-exports everything from (`export * from`). */
  stars: string[];
  /** Names it takes from other files: specifier -> names, or '*' for "any of them" (a namespace used whole). */
  uses: Map<string, Set<string>>;
  /** Of `own`, the names the file itself uses besides declaring and exporting them. */
  usedHere: Set<string>;
}

function hasExport(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

function isDefault(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)
  );
}

/** The names a namespace binding (`import * as ns`, `const m = await import()`) is read through, or '*'. */
function namespaceUses(file: ts.SourceFile, binding: string): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === binding) {
      const parent = node.parent;
      if (ts.isPropertyAccessExpression(parent) && parent.expression === node) names.add(parent.name.text);
      else if (ts.isQualifiedName(parent) && parent.left === node) names.add(parent.right.text);
      else if (
        !(ts.isNamespaceImport(parent) || ts.isVariableDeclaration(parent) || ts.isImportClause(parent)) ||
        parent.name !== node
      )
        names.add('*');
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** The names taken from a dynamic `import('…')`: destructured, read as a property, or '*' when unclear. */
function dynamicUses(file: ts.SourceFile, call: ts.Node): Set<string> {
  let node = call;
  while (ts.isAwaitExpression(node.parent) || ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return new Set([parent.name.text]);
  if (ts.isVariableDeclaration(parent) && parent.initializer === node) {
    if (ts.isObjectBindingPattern(parent.name))
      return new Set(
        parent.name.elements.map((e) =>
          e.propertyName && ts.isIdentifier(e.propertyName)
            ? e.propertyName.text
            : ts.isIdentifier(e.name)
              ? e.name.text
              : '*',
        ),
      );
    if (ts.isIdentifier(parent.name)) return namespaceUses(file, parent.name.text);
  }
  return new Set(['*']);
}

/** Reads one file's exports and imports. */
function facts(name: string, text: string): FileFacts {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const out: FileFacts = { own: [], reexports: new Map(), stars: [], uses: new Map(), usedHere: new Set() };
  const use = (spec: string, names: Iterable<string>) => {
    const set = out.uses.get(spec) ?? new Set<string>();
    for (const n of names) set.add(n);
    out.uses.set(spec, set);
  };
  for (const stmt of file.statements) {
    if (ts.isImportDeclaration(stmt) && ts.isStringLiteral(stmt.moduleSpecifier)) {
      const spec = stmt.moduleSpecifier.text;
      const clause = stmt.importClause;
      if (!clause) continue; // a side effect: names nothing
      if (clause.name) use(spec, ['default']);
      const bound = clause.namedBindings;
      if (bound && ts.isNamespaceImport(bound)) use(spec, namespaceUses(file, bound.name.text));
      else if (bound)
        use(
          spec,
          bound.elements.map((e) => (e.propertyName ?? e.name).text),
        );
    } else if (ts.isExportDeclaration(stmt)) {
      const spec =
        stmt.moduleSpecifier && ts.isStringLiteral(stmt.moduleSpecifier) ? stmt.moduleSpecifier.text : null;
      const clause = stmt.exportClause;
      if (!clause) {
        if (spec) out.stars.push(spec);
      } else if (ts.isNamespaceExport(clause)) {
        out.own.push(clause.name.text);
        if (spec) use(spec, ['*']);
      } else {
        for (const e of clause.elements) {
          if (spec) out.reexports.set(e.name.text, [spec, (e.propertyName ?? e.name).text]);
          else out.own.push(e.name.text);
        }
      }
    } else if (ts.isExportAssignment(stmt)) {
      out.own.push('default');
    } else if (hasExport(stmt)) {
      if (isDefault(stmt)) out.own.push('default');
      else if (ts.isVariableStatement(stmt))
        for (const d of stmt.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) out.own.push(d.name.text);
        }
      else {
        const declared = (stmt as ts.DeclarationStatement).name;
        if (declared && ts.isIdentifier(declared)) out.own.push(declared.text);
      }
    }
  }
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      use(node.arguments[0].text, dynamicUses(file, node));
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const q = node.qualifier;
      const first = q ? (ts.isIdentifier(q) ? q.text : q.left.getText(file).split('.')[0]!) : '*';
      use(node.argument.literal.text, [first]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const counts = identifierCounts(file);
  for (const n of out.own) if ((counts.get(n) ?? 0) > 1) out.usedHere.add(n);
  return out;
}

/** How often each name occurs as an identifier, leaving out export lists and property names (`a.x`, `{ x: 1 }`). */
function identifierCounts(file: ts.SourceFile): Map<string, number> {
  const counts = new Map<string, number>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) {
      const p = node.parent;
      const propertyName =
        ((ts.isPropertyAccessExpression(p) || ts.isQualifiedName(p)) && node !== p.getChildAt(0)) ||
        ((ts.isPropertyAssignment(p) ||
          ts.isPropertySignature(p) ||
          ts.isPropertyDeclaration(p) ||
          ts.isMethodDeclaration(p) ||
          ts.isMethodSignature(p)) &&
          p.name === node);
      if (!ts.isExportSpecifier(p) && !propertyName) counts.set(node.text, (counts.get(node.text) ?? 0) + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return counts;
}

/** Where a relative specifier of `from` points, as an absolute .ts path (or the specifier when not relative). */
function target(from: string, spec: string, known: ReadonlySet<string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`])
    if (known.has(candidate)) return candidate;
  return null;
}

/** `path#name` for every export the files under `importers` take, read back through re-exports to its home. */
function usedBy(all: ReadonlyMap<string, FileFacts>, importers: readonly string[]): Set<string> {
  const known = new Set(all.keys());
  const used = new Set<string>();
  const mark = (path: string, name: string, seen: Set<string>) => {
    if (seen.has(`${path}#${name}`)) return;
    seen.add(`${path}#${name}`);
    const f = all.get(path);
    if (!f) return;
    const follow = (spec: string, n: string) => {
      const t = target(path, spec, known);
      if (t) mark(t, n, seen);
    };
    if (name === '*') {
      for (const n of f.own) used.add(`${path}#${n}`);
      for (const [n] of f.reexports) mark(path, n, seen);
      for (const s of f.stars) follow(s, '*');
      return;
    }
    used.add(`${path}#${name}`);
    const re = f.reexports.get(name);
    if (re) follow(re[0], re[1]);
    else if (!f.own.includes(name)) for (const s of f.stars) follow(s, name);
  };
  for (const [path, f] of all) {
    if (!importers.some((dir) => path.startsWith(`${dir}/`))) continue;
    for (const [spec, names] of f.uses) {
      const t = target(path, spec, known);
      if (t && t !== path) for (const n of names) mark(t, n, new Set());
    }
  }
  return used;
}

interface DeadExport {
  at: string; // path#name
  /** What to do: un-export a name its file uses, remove one nothing uses (with its test, when a test imports it). */
  fix: 'un-export' | 'remove' | 'remove with its test';
}

/**
 * The exports of the files under `srcDir` that no file under `importers` takes. A name its own file uses and a
 * test imports stays exported: it is live code exported for its test. A name only a test imports is dead code.
 */
function deadExports(
  all: ReadonlyMap<string, FileFacts>,
  srcDir: string,
  importers: readonly string[],
  tests: readonly string[],
): DeadExport[] {
  const used = usedBy(all, importers);
  const tested = usedBy(all, tests);
  const dead: DeadExport[] = [];
  for (const [path, f] of all) {
    if (!path.startsWith(`${srcDir}/`)) continue;
    for (const n of [...f.own, ...f.reexports.keys()]) {
      const at = `${path}#${n}`;
      if (used.has(at)) continue;
      const here = f.usedHere.has(n);
      if (here && tested.has(at)) continue;
      dead.push({ at, fix: here ? 'un-export' : tested.has(at) ? 'remove with its test' : 'remove' });
    }
  }
  return dead;
}

/**
 * A test file's import statements alone (static ones, and the statements holding an `import('…')`): all this
 * check needs from test/, which is larger than src/, parsed in a fraction of the time the whole files take.
 */
function importStatements(text: string): string {
  const statics = text.match(/^(?:import|export)\b[^;]*?\bfrom\s*'[^']+';/gm) ?? [];
  const dynamic = text.match(/^.*\bimport\(\s*'[^']+'\s*\).*$/gm) ?? [];
  return [...statics, ...dynamic].join('\n');
}

function project(): Map<string, FileFacts> {
  const all = new Map<string, FileFacts>();
  for (const dir of [...IMPORTERS, 'test'])
    for (const path of sources(join(ROOT, dir))) {
      const text = readFileSync(path, 'utf8');
      all.set(path, facts(path, dir === 'test' ? importStatements(text) : text));
    }
  return all;
}

describe('dead exports', () => {
  it('every export of src/ has an importer outside its own file, or a reason on the kept list', () => {
    const all = project();
    expect([...all.keys()].filter((p) => p.startsWith(join(ROOT, 'src'))).length).toBeGreaterThan(200);
    const dead = deadExports(
      all,
      join(ROOT, 'src'),
      IMPORTERS.map((d) => join(ROOT, d)),
      [join(ROOT, 'test')],
    ).map((d) => `${relative(ROOT, d.at)}: ${d.fix}`);
    const found = dead.filter((d) => !(d.split(':')[0]! in KEPT));
    expect(found, `exports no other file imports:\n${found.join('\n')}`).toEqual([]);
    const stale = Object.keys(KEPT).filter((k) => !dead.some((d) => d.startsWith(`${k}:`)));
    expect(stale, 'kept exports that are no longer dead: take them off KEPT').toEqual([]);
  });
});

describe('the dead-export reader', () => {
  it('reads exports, re-exports and every way of importing', () => {
    const text = [
      "import { a, b as c } from './a.js';",
      "import type { T } from './t.js';",
      "import d from './d.js';",
      "import * as ns from './ns.js';",
      "export { e } from './e.js';",
      "export * from './star.js';",
      'export function f() { return ns.g + c; }',
      'export const h = 1, i = f();',
      'export interface J {}',
      'const k = 2;',
      'export { k };',
      "const { m } = await import('./m.js');",
      "const n = (await import('./n.js')).n;",
      "type O = import('./o.js').O;",
    ].join('\n');
    const got = facts('x.ts', text);
    expect(got.own).toEqual(['f', 'h', 'i', 'J', 'k']);
    expect([...got.reexports]).toEqual([['e', ['./e.js', 'e']]]);
    expect(got.stars).toEqual(['./star.js']);
    expect(Object.fromEntries([...got.uses].map(([s, n]) => [s, [...n]]))).toEqual({
      './a.js': ['a', 'b'],
      './t.js': ['T'],
      './d.js': ['default'],
      './ns.js': ['g'],
      './m.js': ['m'],
      './n.js': ['n'],
      './o.js': ['O'],
    });
    expect([...got.usedHere]).toEqual(['f']);
  });

  it("follows re-exports to a name's home, and tells un-export from remove", () => {
    const file = (text: string) => facts('f.ts', text);
    const all = new Map([
      [
        '/p/src/home.ts',
        file('export const used = 1; export const local = 2; export const none = 3; f(local);'),
      ],
      ['/p/src/barrel.ts', file("export * from './home.js';")],
      ['/p/src/user.ts', file("import { used } from './barrel.js';")],
      ['/p/src/tested.ts', file('export const t = 1; export const u = 2; g(t);')],
      ['/p/test/t.test.ts', file("import { t, u } from '../src/tested.js';")],
    ]);
    const dead = deadExports(all, '/p/src', ['/p/src'], ['/p/test']).map((d) => `${d.at} ${d.fix}`);
    expect(dead).toEqual([
      '/p/src/home.ts#local un-export',
      '/p/src/home.ts#none remove',
      '/p/src/tested.ts#u remove with its test',
    ]);
  });
});
