// scripts/build.mjs, what it leaves out of the Action's bundle so that a step starts fast (issue 36): Octokit's
// REST methods src/ never calls, and Node's ES module facade of the built-ins src/ imports.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, restMethodsUsed } from '../scripts/build.mjs';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function srcOf(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-build-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('restMethodsUsed', () => {
  it('finds each octokit.rest.<scope>.<method>, across lines, and not in comments or a ...rest', () => {
    const dir = srcOf({
      'a.ts': 'await octokit.rest.issues.get({});\nawait gh.rest\n  .pulls\n  .create({});\n',
      'sub/b.ts': '// octokit.rest.repos.delete\nconst f = (...rest: string[]) => rest.length;\n',
    });
    expect([...restMethodsUsed(dir)].sort()).toEqual(['issues.get', 'pulls.create']);
  });

  it.each([
    ['a computed method', 'const m = octokit.rest[scope][name];\n'],
    ['the methods passed on', 'use(\n  octokit.rest,\n);\n'],
    ['rest taken out of a client', 'const { rest } = octokit;\n'],
  ])('fails the build on %s, naming the file and line', (_what, text) => {
    const dir = srcOf({ 'c.ts': `// first line\n${text}` });
    expect(() => restMethodsUsed(dir)).toThrow(/c\.ts:[23]: `\.rest` not followed by `\.<scope>\.<method>`/);
  });
});

describe("the Action's bundle", () => {
  it('holds the REST methods src/ calls and no other, and loads no built-in through the ES module facade', async () => {
    const out = join(srcOf({}), 'index.js');
    await bundle('src/action/index.ts', out, { action: true });
    const text = readFileSync(out, 'utf8');
    // Called by src/ (the git store's journal write), and one it never calls.
    expect(text).toContain('"PUT /repos/{owner}/{repo}/contents/{path}"');
    expect(text).not.toContain('/actions/runners/{runner_id}/labels');
    // The banner's `node:module` (which gives the bundle its `require`) is the one built-in imported as a module.
    const imports = [...text.matchAll(/\bimport\s*\{[^}]*\}\s*from\s*["']([^"']+)["']/g)].map((m) => m[1]);
    expect(imports).toEqual(['node:module']);
  }, 30_000);
});
