// Recovery's proof that a local executor is gone is positive (issue 34): a process of the executor's user whose
// environment cannot be read may be the attempt's command (a process can make itself unreadable: here with
// prctl(PR_SET_DUMPABLE, 0), as ssh-agent does), so it counts as alive and the attempt is left alone, never marked
// interrupted while it may still run. The CLI runs as a user that is not root (root reads every environment):
// the runner user test/support/sudo-runner.ts makes. Needs root and `npm run build`.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DIST } from '../support/action-process.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';
import { requireBundle } from './harness.js';

const asRoot = process.getuid?.() === 0 && !noSudoRunner() && existsSync('/usr/bin/python3');
if (!asRoot) console.warn('liveness-unreadable.test.ts skipped: needs root, sudo and /usr/bin/python3');

const HIDE =
  "import ctypes, os, time; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); open('pid', 'w').write(str(os.getpid())); time.sleep(120)";
const GRAPH = `interlock: 1
name: hide
nodes:
  - id: hide
    replay: never
    run: /usr/bin/python3 -c "${HIDE}"
`;

describe.skipIf(!asRoot)('a local executor is gone only by positive proof', () => {
  let hidden: number | undefined;
  afterAll(() => {
    if (hidden) process.kill(hidden, 'SIGKILL');
  });

  it('leaves an attempt alone while a process of its user that hides its environment runs', async () => {
    requireBundle();
    const user = sudoRunner();
    const dir = mkdtempSync(join(tmpdir(), 'interlock-liveness-'));
    writeFileSync(join(dir, 'g.yml'), GRAPH);
    giveTo(dir, user);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: user.home };
    const cli = (args: string[]): ChildProcess =>
      spawn(process.execPath, [join(DIST, 'cli.js'), ...args], {
        cwd: dir,
        env,
        uid: user.uid,
        gid: user.gid,
      });
    const run = cli(['run', 'g.yml', '--run-id', 'h']);
    const started = Date.now();
    while (!existsSync(join(dir, 'pid')) && Date.now() - started < 20_000)
      await new Promise((r) => setTimeout(r, 100));
    hidden = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    run.kill('SIGKILL');
    await new Promise((r) => run.once('exit', r));
    // The CLI is gone; its command runs on, unreadable to the CLI's user.
    expect(() => readFileSync(`/proc/${hidden}/environ`)).not.toThrow(); // root reads it
    const as = { cwd: dir, env, uid: user.uid, gid: user.gid, encoding: 'utf8' as const };
    const recover = execFileSync(process.execPath, [join(DIST, 'cli.js'), 'recover', '--run-id', 'h'], as);
    expect(recover).toMatch(/left alone: hide: the environment of pid [\d, ]*\b\d+\b.* cannot be read/);
    const status = JSON.parse(
      execFileSync(process.execPath, [join(DIST, 'cli.js'), 'status', '--run-id', 'h', '--json'], as),
    ) as { active_nodes: string[] };
    expect(status.active_nodes).toEqual(['hide']);
  }, 60_000);
});
