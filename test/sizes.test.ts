// Small files and short functions (issue 14): no file under src/ over 300 lines, no function over 80. A file or
// function that outgrows them fails here with its place, so it is split when it grows, not in a later clean-up.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every function-like node with a body longer than the limit, as `file:line name (N lines)`. */
function longFunctions(file: string, text: string, limit: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.end).line;
      const lines = last - first + 1;
      const name = n.name && ts.isIdentifier(n.name) ? n.name.text : '(anonymous)';
      if (lines > limit) found.push(`${file}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

const sources = () =>
  tsFiles(join(ROOT, 'src')).map((path) => ({
    file: relative(ROOT, path),
    text: readFileSync(path, 'utf8'),
  }));

describe('sizes', () => {
  it(`no file under src/ is over ${MAX_FILE_LINES} lines`, () => {
    const long = sources()
      .map(({ file, text }) => ({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.file}: ${f.lines} lines (split it by responsibility)`);
    expect(long).toEqual([]);
  });

  it(`no function under src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = sources().flatMap(({ file, text }) => longFunctions(file, text, MAX_FUNCTION_LINES));
    expect(long).toEqual([]);
  });

  it('measures a long function and names it with its line', () => {
    const body = Array.from({ length: 5 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `const a = 1;\nexport function big() {\n${body}\n}\n`;
    expect(longFunctions('x.ts', text, 6)).toEqual(['x.ts:2 big (7 lines)']);
    expect(longFunctions('x.ts', text, 7)).toEqual([]);
  });
});
