// No circle of value imports in src/ (issue 47): a file that loads a value from another never gets one back,
// directly or around a loop, so every module can be loaded and reasoned about before the ones that use it. Types
// may point back (`import type`, or `import { type A }` where every name is a type): they vanish at build time.
// Value edges are static imports, value re-exports and `import('…')` calls, read with TypeScript's own parser.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Whether an import or export declaration loads a value at run time. */
function loadsValue(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return true; // import './side-effect.js'
    if (clause.isTypeOnly) return false;
    const named = clause.namedBindings;
    const onlyTypes =
      !clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0
        ? named.elements.every((e) => e.isTypeOnly)
        : false;
    return !onlyTypes;
  }
  if (node.isTypeOnly) return false;
  const clause = node.exportClause;
  return !(
    clause &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((e) => e.isTypeOnly)
  );
}

/** The relative specifiers a file loads values from. */
function valueImports(name: string, text: string): string[] {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier) && loadsValue(node)) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out.filter((s) => s.startsWith('.'));
}

/** The groups of two or more files that reach each other through value imports (strongly connected parts). */
function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Kosaraju: order the files by when a depth-first walk leaves them, then walk the reversed graph in that order.
  const seen = new Set<string>();
  const order: string[] = [];
  for (const start of edges.keys()) {
    if (seen.has(start)) continue;
    const stack: [string, number][] = [[start, 0]];
    seen.add(start);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const next = (edges.get(top[0]) ?? [])[top[1]++];
      if (next === undefined) {
        order.push(top[0]);
        stack.pop();
      } else if (!seen.has(next) && edges.has(next)) {
        seen.add(next);
        stack.push([next, 0]);
      }
    }
  }
  const back = new Map<string, string[]>([...edges.keys()].map((k) => [k, []]));
  for (const [from, tos] of edges) for (const to of tos) back.get(to)?.push(from);
  const placed = new Set<string>();
  const groups: string[][] = [];
  for (const root of order.reverse()) {
    if (placed.has(root)) continue;
    const group: string[] = [];
    const todo = [root];
    placed.add(root);
    while (todo.length) {
      const f = todo.pop()!;
      group.push(f);
      for (const g of back.get(f) ?? [])
        if (!placed.has(g)) {
          placed.add(g);
          todo.push(g);
        }
    }
    if (group.length > 1) groups.push(group.sort());
  }
  return groups;
}

/** Every file of src/ and the files of src/ it loads values from. */
function srcGraph(): Map<string, string[]> {
  const files = sources(SRC);
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const path of files) {
    const targets = valueImports(path, readFileSync(path, 'utf8'))
      .map((spec) => resolve(dirname(path), spec).replace(/\.js$/, '.ts'))
      .filter((t) => known.has(t) && t !== path);
    edges.set(path, targets);
  }
  return edges;
}

describe('circles of value imports', () => {
  it('src/ has none (type-only imports may point back)', () => {
    const edges = srcGraph();
    // The walk saw the whole tree: hundreds of files and their imports, not an empty graph that passes.
    expect(edges.size).toBeGreaterThan(200);
    expect([...edges.values()].flat().length).toBeGreaterThan(500);
    const found = circles(edges).map((g) => g.map((f) => relative(ROOT, f)).join(' <-> '));
    expect(found, `value imports in a circle:\n${found.join('\n')}`).toEqual([]);
  });

  it('reads value imports and leaves type-only ones out', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import { type E, e } from './e.js';",
      "export { f } from './f.js';",
      "export type { G } from './g.js';",
      "import './side.js';",
      "const h = () => import('./h.js');",
      "import { i } from 'node:fs';",
    ].join('\n');
    expect(valueImports('x.ts', text)).toEqual(['./a.js', './e.js', './f.js', './side.js', './h.js']);
  });

  it('finds a circle, a longer one, and none in a line', () => {
    const g = (pairs: [string, string[]][]) => new Map(pairs);
    expect(
      circles(
        g([
          ['a', ['b']],
          ['b', ['a']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b']]);
    expect(
      circles(
        g([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a', 'd']],
          ['d', []],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      circles(
        g([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });
});
