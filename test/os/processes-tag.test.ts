// Which processes may still be an attempt's command (recovery's probe for a local attempt): a process whose
// environment could not be read is looked at again, so one passing through does not hold a run in flight.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type EnvironReader, processesWithTag } from '../../src/os/processes.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function sleeper(env: Record<string, string> = {}): number {
  const child = spawn('sleep', ['30'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

const denied = () => Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
const real: EnvironReader = (pid) => readFileSync(`/proc/${pid}/environ`, 'latin1');

/** A reader that refuses `pid` for its first `times` reads, then reads it (or says it is gone). */
function refusing(pid: number, times: number, then: 'read' | 'gone' = 'read'): EnvironReader {
  let left = times;
  return (entry) => {
    if (Number(entry) !== pid) return real(entry);
    if (left-- > 0) throw denied();
    if (then === 'gone') throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return real(entry);
  };
}

describe('processesWithTag', () => {
  const uid = process.getuid!();
  const since = Date.now() - 5000;

  it('finds a process carrying the tag', () => {
    const pid = sleeper({ INTERLOCK_EXEC_TAG: 'tag-found' });
    expect(processesWithTag('tag-found', [uid], since)).toEqual({ tagged: [pid], unreadable: [] });
  });

  it('reads again a process it could not read at first: carrying the tag, it is found', () => {
    const pid = sleeper({ INTERLOCK_EXEC_TAG: 'tag-late' });
    expect(processesWithTag('tag-late', [uid], since, refusing(pid, 2))).toEqual({
      tagged: [pid],
      unreadable: [],
    });
  });

  it('drops a process that was unreadable once and then read without the tag, or gone', () => {
    const pid = sleeper();
    expect(processesWithTag('tag-none', [uid], since, refusing(pid, 1))).toEqual({
      tagged: [],
      unreadable: [],
    });
    expect(processesWithTag('tag-none', [uid], since, refusing(pid, 1, 'gone'))).toEqual({
      tagged: [],
      unreadable: [],
    });
  });

  it('counts one unreadable at every look as possibly the attempt, when it is this user’s and started since', () => {
    const pid = sleeper();
    expect(processesWithTag('tag-hidden', [uid], since, refusing(pid, 100)).unreadable).toEqual([pid]);
    // Another user's, or one started before the dispatch, is none the attempt started.
    expect(processesWithTag('tag-hidden', [uid + 1], since, refusing(pid, 100)).unreadable).toEqual([]);
    expect(processesWithTag('tag-hidden', [uid], Date.now() + 60_000, refusing(pid, 100)).unreadable).toEqual(
      [],
    );
  });
});
