// The `interlock` command as the README installs it for a repository of one's own: `npm install --global` from a
// clone (here into a prefix of the test's own), then run from another directory, where the journal lands; and
// the README's quick start, its graph and its commands as written, run with that command.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let base: string;
let bin: string;
let repo: string;

beforeAll(() => {
  requireBundle();
  base = mkdtempSync(join(tmpdir(), 'interlock-install-'));
  const prefix = join(base, 'prefix');
  // --prefix stands for the global folder; --offline proves a clone needs no registry to install.
  execFileSync(
    'npm',
    ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', ROOT],
    { cwd: base, stdio: 'pipe', env: { ...process.env, npm_config_loglevel: 'error' } },
  );
  bin = join(prefix, 'bin', 'interlock');
  repo = join(base, 'my-repo');
  mkdirSync(join(repo, '.github/interlock'), { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: repo });
}, 60_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

const interlock = (...args: string[]) =>
  execFileSync(bin, args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm install --global from a clone gives an interlock command', () => {
  it('that validates, runs and reports a graph in another repository, with the journal in that repository', () => {
    writeFileSync(
      join(repo, '.github/interlock/hello.yml'),
      'interlock: 1\nname: hello\nnodes:\n  - id: greet\n    run: echo hello > greeting.txt\n    validates:\n      - file: greeting.txt\n',
    );
    expect(interlock('validate', '.github/interlock/hello.yml')).toMatch(/ok — graph "hello", 1 node\(s\)/);
    interlock('run', '.github/interlock/hello.yml', '--all');
    expect(existsSync(join(repo, '.interlock/runs/hello.json'))).toBe(true);
    expect(existsSync(join(ROOT, '.interlock/runs/hello.json'))).toBe(false);
    expect(interlock('status')).toMatch(/^greet +completed/m);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe(
      '?? .github/\n?? greeting.txt\n',
    );
  });

  it("runs the README's quick start as written: validate, run to the gate, status, approve, run to the end", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blockAfter = (marker: string) =>
      /```\w*\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(`<!-- ${marker}`)))![1]!;
    const dir = join(base, 'quick-start');
    mkdirSync(join(dir, '.github/interlock'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: dir });
    writeFileSync(join(dir, 'README.md'), '# mine\n');
    execFileSync('git', ['add', 'README.md'], { cwd: dir });
    writeFileSync(join(dir, '.github/interlock/hello.yml'), blockAfter('quick-start-graph'));
    const commands = blockAfter('quick-start-commands')
      .split('\n')
      .filter((l) => l.startsWith('interlock '));
    expect(commands).toHaveLength(5);
    const env = { ...process.env, PATH: `${join(base, 'prefix', 'bin')}:${process.env.PATH}`, USER: 'alice' };
    const codes = commands.map((c) => spawnSync('bash', ['-c', c], { cwd: dir, env, encoding: 'utf8' }));
    expect(codes.map((r) => r.status)).toEqual([0, 3, 0, 0, 0]);
    expect(codes[2]!.stdout).toContain('interlock approve report --run-id hello');
    expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe('1 files\n');
    const status = JSON.parse(execFileSync(bin, ['status', '--json'], { cwd: dir, encoding: 'utf8' })) as {
      status: string;
    };
    expect(status.status).toBe('completed');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).toBe(
      'A  README.md\n?? .github/\n?? files.txt\n?? report.txt\n',
    );
  });
});
