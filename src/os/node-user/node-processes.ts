/**
 * Nothing of a node outlives its script: every process of the node user is ended after each script and before
 * the first, before an effect reads the change and before a granted node starts. One pass that lists /proc and
 * then kills what it listed misses a process that forks a fresh copy of itself every few milliseconds (the copy
 * made after the listing lives on). `kill(-1, SIGKILL)` sent *as the node user* reaches every process that user
 * may signal in one pass of the kernel's own, which a fork cannot slip past (a fork with a fatal signal pending
 * is refused); it is repeated until /proc shows none left, and what still runs after the bound is reported, so
 * the caller fails the attempt saying so. The same holds as root (the kill runs with the node user's uid) and
 * through sudo (`sudo -u <node user>`), as GitHub's hosted runners run the action.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { NodeUser } from './node-user.js';

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };

/** How long the node user's processes are given to end (a process in uninterruptible sleep ends late). */
const END_BOUND_MS = 5000;

/**
 * Pids of running processes (zombies have ended) with `uid` as their real, effective, saved or filesystem uid:
 * a set-uid program the node started counts as the node's.
 */
export function processesOfUid(uid: number): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (/^State:\s+Z/m.test(status)) continue;
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
    if (uids.includes(uid)) found.push(Number(entry));
  }
  return found;
}

/** What ending a user's processes needs to know of it. */
export type Killable = Pick<NodeUser, 'name' | 'uid' | 'gid' | 'via'>;

/** `kill -KILL -1` as the node user: every process it may signal, the kill itself excepted, in one pass. */
function killAllAs(user: Killable): void {
  const bash = ['--noprofile', '--norc', '-c', 'kill -KILL -1 2>/dev/null; exit 0'];
  try {
    if (user.via === 'sudo') execFileSync('sudo', ['-n', '-u', user.name, '--', 'bash', ...bash], quiet);
    else execFileSync('bash', bash, { ...quiet, uid: user.uid, gid: user.gid });
  } catch {
    // Looked at again below: what still runs is reported.
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Ends every process of `user`, repeating until none remain or `boundMs` has passed; the pids still running
 * then (empty when none). Costs one listing of /proc when the node left nothing.
 */
export function endNodeProcesses(user: Killable, boundMs = END_BOUND_MS): number[] {
  const until = Date.now() + boundMs;
  for (;;) {
    const left = processesOfUid(user.uid);
    if (left.length === 0 || Date.now() > until) return left;
    killAllAs(user);
    Atomics.wait(pause, 0, 0, 10);
  }
}

/** What a caller says when processes of the node user could not be ended. */
export function survivorsMessage(user: Killable, left: number[], when: string): string {
  const pids = left.slice(0, 10).join(', ') + (left.length > 10 ? ` and ${left.length - 10} more` : '');
  return `${left.length} process(es) of node user ${user.name} still ran ${when} after ${END_BOUND_MS / 1000} s of kill -KILL -1 as that user (pids ${pids})`;
}
