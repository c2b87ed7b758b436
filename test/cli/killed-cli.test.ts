// After the CLI that ran a node is killed (SIGKILL: no handler runs), the node's command may still run. `status` and
// `run` say which process runs it and what to do (wait for it or end it, then `interlock recover`), not only
// "running"; once nothing of it runs, they say so and give the command that marks it interrupted.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { CLI, requireBundle } from '../crash/harness.js';

let dir: string;
let child: ChildProcess | undefined;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeEach(() => {
  requireBundle();
  dir = mkdtempSync(join(tmpdir(), 'interlock-killed-cli-'));
  writeFileSync(join(dir, 'g.yml'), 'interlock: 1\nname: slow\nnodes:\n  - id: a\n    run: sleep 120\n');
});
afterEach(() => {
  if (child?.pid && alive(child.pid)) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    cwd: dir,
    env: { ...process.env },
  });
  return { code, out, err, text: out + err };
}

const journal = () => join(dir, '.interlock/runs/slow.json');

describe('a node whose CLI was killed', () => {
  it('status and run name the command still running and the way on; then the command that recovers it', async () => {
    child = spawn(process.execPath, [CLI, 'run', 'g.yml', '--all'], { cwd: dir, stdio: 'ignore' });
    // The dispatch is journaled before the command starts; then the command runs.
    for (
      let i = 0;
      i < 300 && !(existsSync(journal()) && readFileSync(journal(), 'utf8').includes('NodeDispatched'));
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1000));
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));

    const status = await cli('status');
    const pid = Number(/its command still runs \(pid (\d+)\)/.exec(status.text)?.[1]);
    expect(status.text, status.text).toMatch(
      /in flight: a \(attempt 1, dispatched [^)]+\): interlock pid \d+, which ran it, exited/,
    );
    expect(alive(pid)).toBe(true);
    expect(status.text).toContain(`Wait for it to end, or end it (kill ${pid}), then:`);
    expect(status.text).toContain('interlock recover --run-id slow');

    const again = await cli('run', 'g.yml', '--all');
    expect(again.code).toBe(3);
    expect(again.text).toContain(`its command still runs (pid ${pid})`);
    expect(again.text).not.toMatch(/running after \d/);

    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    const after = await cli('status');
    expect(after.text).toMatch(
      /executor pid \d+ is gone and none of its processes runs\. Mark it interrupted:/,
    );
    const recovered = await cli('recover');
    expect(recovered.out).toContain('recovered: ');
  }, 60_000);
});
