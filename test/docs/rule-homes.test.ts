// One home per rule (issue 47): a reader who follows a name lands on the file that holds it. A comment in src/
// that names a `.ts` file names one that exists (by its path, or the end of one: `load/subgraph.ts`), and every
// `src/` file docs/ARCHITECTURE.md's rule tables name as a rule's home exists and is loaded by src/ (imported by
// another file, or an entry of the build), so no table points at a file the code does not use.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name.startsWith('.')
      ? []
      : e.isDirectory()
        ? files(join(dir, e.name))
        : [join(dir, e.name)],
  );
}

/** Every file of the project a comment may name: sources, tests, scripts, benchmarks. */
const PROJECT = ['src', 'test', 'scripts', 'bench'].flatMap(files);
const SOURCES = PROJECT.filter((p) => p.startsWith('src/') && p.endsWith('.ts'));

/** Whether a file name from prose is one of the project's: its whole path, or the end of one. */
function exists(name: string): boolean {
  const bare = name.replace(/^(\.\.?\/)+/, '');
  return PROJECT.some((p) => p === bare || p.endsWith(`/${bare}`));
}

/**
 * The comments of a source file, each with its line, read with TypeScript's own scanner (strings and template
 * literals are not comments: a `}` that closes a template's `${` goes back to the template's text).
 */
function comments(path: string): Array<{ line: number; text: string }> {
  const text = readFileSync(resolve(ROOT, path), 'utf8');
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const out: Array<{ line: number; text: string }> = [];
  const braces: Array<'code' | 'template'> = [];
  const K = ts.SyntaxKind;
  // A `/` after a value divides; anywhere else it starts a regular expression.
  const value = new Set([
    K.Identifier,
    K.NumericLiteral,
    K.CloseParenToken,
    K.CloseBracketToken,
    K.StringLiteral,
  ]);
  let last: ts.SyntaxKind = K.Unknown;
  for (let t = scanner.scan(); t !== K.EndOfFileToken; t = scanner.scan()) {
    const before = last;
    if (
      t !== K.SingleLineCommentTrivia &&
      t !== K.MultiLineCommentTrivia &&
      t !== K.WhitespaceTrivia &&
      t !== K.NewLineTrivia
    )
      last = t;
    if (t === K.SingleLineCommentTrivia || t === K.MultiLineCommentTrivia) {
      const pos = scanner.getTokenStart();
      out.push({ line: text.slice(0, pos).split('\n').length, text: scanner.getTokenText() });
    } else if (t === K.OpenBraceToken) braces.push('code');
    else if (t === K.TemplateHead) braces.push('template');
    else if (t === K.CloseBraceToken && braces.pop() === 'template') {
      if (scanner.reScanTemplateToken(false) === K.TemplateMiddle) braces.push('template');
    } else if ((t === K.SlashToken || t === K.SlashEqualsToken) && !value.has(before)) {
      scanner.reScanSlashToken();
    }
  }
  return out;
}

/** The `.ts` names in a comment: `approval-schema.ts`, `src/graph/load/subgraph.ts`, `../model.ts`. */
const TS_NAME = /(?<![\w./-])((?:\.\.?\/)*[\w-]+(?:\/[\w.-]+)*\.ts)\b/g;

/** Stale names a comment in src/ gives: `file:line: name`. */
function staleCommentNames(paths: string[] = SOURCES): string[] {
  const stale: string[] = [];
  for (const path of paths)
    for (const c of comments(path))
      for (const m of c.text.matchAll(TS_NAME))
        if (!exists(m[1]!))
          stale.push(`${path}:${c.line + c.text.slice(0, m.index).split('\n').length - 1}: ${m[1]}`);
  return stale;
}

/** The `src/...ts` files the rule tables of docs/ARCHITECTURE.md name ("## The rules" and "## Where the shell's rules live"). */
function ruleTableFiles(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const start = doc.indexOf('## The rules');
  const end = doc.indexOf('\n## Layers');
  expect(start, 'docs/ARCHITECTURE.md has "## The rules"').toBeGreaterThan(0);
  expect(end, 'docs/ARCHITECTURE.md has "## Layers" after the rules').toBeGreaterThan(start);
  const rows = doc
    .slice(start, end)
    .split('\n')
    .filter((l) => l.startsWith('|'));
  return [...new Set(rows.flatMap((r) => [...r.matchAll(/`(src\/[\w./-]+\.ts)`/g)].map((m) => m[1]!)))];
}

/** The `.ts` names the rule tables give without `src/` (`applying/apply.ts`, `person-command.ts`). */
function ruleTableShortNames(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const rules = doc.slice(doc.indexOf('## The rules'), doc.indexOf('\n## Layers'));
  return [...new Set([...rules.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!))].filter(
    (n) => !n.startsWith('src/') && !n.startsWith('test/'),
  );
}

/** Every file of src/ some other file of src/ loads (static import, re-export or `import()`), plus the build's entries. */
function loadedFiles(): Set<string> {
  const loaded = new Set<string>();
  for (const path of SOURCES) {
    const text = readFileSync(join(ROOT, path), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.\.?\/[^']+)'/g))
      loaded.add(relative(ROOT, resolve(ROOT, dirname(path), m[1]!.replace(/\.js$/, '.ts'))));
  }
  const build = readFileSync(join(ROOT, 'scripts/build.mjs'), 'utf8');
  for (const m of build.matchAll(/src: '(src\/[^']+\.ts)'/g)) loaded.add(m[1]!);
  return loaded;
}

describe('one home per rule: the names that lead to it', () => {
  it('a comment in src/ names only .ts files that exist', () => {
    expect(staleCommentNames()).toEqual([]);
  });

  it('the check finds a stale name in a comment, and none in a string (it is not vacuous)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rule-homes-'));
    try {
      const probe = join(dir, 'probe.ts');
      writeFileSync(
        probe,
        [
          "const a = 'gone-in-a-string.ts'; // in approval-schema.ts, beside schema/approval.ts",
          'const b = `${a}//not-a-comment.ts`; const c = 4 / 2; /* and ../graph/model.ts, cycle-reducers.ts */',
          'const d = /https:\\/\\/regexp.ts/; // a regular expression is no comment either',
        ].join('\n'),
      );
      expect(staleCommentNames([probe]).map((s) => s.slice(probe.length))).toEqual([
        ':1: approval-schema.ts',
        ':2: cycle-reducers.ts',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("docs/ARCHITECTURE.md's rule tables name files that exist and that src/ loads", () => {
    const named = ruleTableFiles();
    expect(named.length).toBeGreaterThan(40);
    const loaded = loadedFiles();
    const missing = named.filter((p) => !exists(p));
    const unused = named.filter((p) => exists(p) && !loaded.has(p));
    expect(missing, 'named but missing').toEqual([]);
    expect(unused, 'named but loaded by no file of src/').toEqual([]);
  });

  it("the rule tables' short names (`applying/apply.ts`) are the end of a file's path", () => {
    const short = ruleTableShortNames();
    expect(short.length).toBeGreaterThan(0);
    expect(short.filter((n) => !exists(n))).toEqual([]);
  });
});
