// `interlock --version`, `-h` on every verb, and who `--by` defaults to: git's user.name, then the login name.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultIdentity, type Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const ROOT = join(import.meta.dirname, '../..');

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    cwd: ROOT,
    env: process.env,
  });
  return { code, out, err };
}

const VERBS = [
  'validate',
  'run',
  'status',
  'recover',
  'approve',
  'approve-rerun',
  'settle',
  'fail-run',
  'rerun-from',
  'stuck',
];

describe('interlock says what it is and how each verb is used', () => {
  it("--version prints package.json's version", async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await cli(['--version'])).toEqual({ code: 0, out: `interlock ${pkg.version}\n`, err: '' });
  });

  it.each(VERBS)('%s -h and --help print its usage and run nothing', async (verb) => {
    for (const flag of ['-h', '--help']) {
      const r = await cli([verb, flag]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(new RegExp(`^usage:\\n  interlock ${verb} `));
      expect(r.out).toContain('every option: docs/cli.md');
    }
  });
});

describe('--by defaults to a name the machine knows', () => {
  it('outside a repository with no git user.name, the login name is used, not $USER (empty in containers)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-who-'));
    try {
      const io: Io = {
        out: () => {},
        err: () => {},
        cwd: dir,
        env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', USER: '' },
      };
      expect(defaultIdentity(io)).toEqual({ name: userInfo().username, from: 'the login name' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
