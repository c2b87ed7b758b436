// dist/ is what a runner runs: the bundles load dist/yaml.cjs, the parser that locates YAML errors, only when
// there is an error to locate. These run the committed CLI bundle from a copy of dist/, as a user would.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = new URL('../../dist/', import.meta.url).pathname;
const BAD = 'interlock: 1\nname: x\nnodes:\n  - id: a\n    run: echo\n    validates: [{ file: a }\n';

/** A copy of the named dist/ files in a fresh folder, with a bad graph beside them; runs `validate` there. */
function validateWith(files: string[]): { code: number; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-dist-'));
  for (const f of files) copyFileSync(join(DIST, f), join(dir, f));
  writeFileSync(join(dir, 'bad.yml'), BAD);
  try {
    execFileSync(process.execPath, [join(dir, 'cli.js'), 'validate', 'bad.yml'], { cwd: dir, stdio: 'pipe' });
    return { code: 0, stderr: '' };
  } catch (e) {
    const err = e as { status: number; stderr: Buffer };
    return { code: err.status, stderr: err.stderr.toString() };
  }
}

describe('dist/ as it is shipped', () => {
  it('locates a YAML error through dist/yaml.cjs, from any working directory', () => {
    const r = validateWith(['cli.js', 'package.json', 'yaml.cjs']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\/bad\.yml:7:1: not valid YAML: /);
  });

  it('without dist/yaml.cjs, says which file is missing and what to do', () => {
    const r = validateWith(['cli.js', 'package.json']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('a bundle in dist/ needs dist/yaml.cjs beside it; copy the whole of dist/');
  });
});
