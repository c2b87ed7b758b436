// runScript's stop (src/os/exec.ts): an aborted command is stopped as a timed-out one is, its whole process group
// with it, and the result says it was stopped; stdout alone reaches onStdout as it comes.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runScript } from '../../src/os/exec.js';

describe('runScript stop', () => {
  it('stops the process group on abort and says so, after the stdout it read', async () => {
    const abort = new AbortController();
    const seen: string[] = [];
    const started = Date.now();
    const r = await runScript({
      script: 'sleep 30 & echo "child $!"; echo ready; echo noise >&2; sleep 30',
      grants: new Map(),
      env: { PATH: process.env.PATH },
      cwd: tmpdir(),
      timeoutMs: 60_000,
      signal: abort.signal,
      onStdout: (chunk) => {
        seen.push(chunk.toString());
        if (seen.join('').includes('ready')) abort.abort();
      },
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toMatchObject({ stopped: true, timedOut: false, exitCode: null, signal: 'SIGTERM' });
    expect(seen.join('')).not.toContain('noise');
    const child = Number(/child (\d+)/.exec(seen.join(''))![1]);
    // Gone, or a zombie nobody has reaped yet: not running.
    await new Promise((resolve) => setTimeout(resolve, 200));
    let state = 'gone';
    try {
      state = readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]!.charAt(0);
    } catch {
      // gone
    }
    expect(['gone', 'Z']).toContain(state);
  });
});
