/**
 * What the reliability suites share: a bounded pool for running scenarios a few at a time, polling with a
 * deadline, finding and killing every process a scenario started (by a tag in its environment), and a
 * canonical JSON for comparing journal events as written and as read back.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { processAlive } from '../../src/os/processes.js';

/** How many scenarios run at once: INTERLOCK_RELIABILITY_JOBS, else four a core, at most 12 (they mostly wait). */
export function concurrency(): number {
  const n = Number(process.env.INTERLOCK_RELIABILITY_JOBS);
  return Number.isInteger(n) && n > 0 ? n : Math.max(2, Math.min(12, cpus().length * 4));
}

/** Runs `fn` over `items`, at most `limit` at a time; results keep the items' order. */
export async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>) {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until the condition holds; throws after the deadline, naming what it waited for. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** Pids of live processes whose environment holds `INTERLOCK_TEST_TAG=<tag>`. */
export function taggedProcesses(tag: string): number[] {
  const needle = `INTERLOCK_TEST_TAG=${tag}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(needle))
        found.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** SIGKILLs a process and its group (node commands lead groups of their own); quiet when already gone. */
export function killGroup(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone, or not a group leader
    }
  }
}

/** True once the process no longer runs (gone, or a zombie nobody has reaped yet): src/os/processes.ts decides. */
export function gone(pid: number): boolean {
  return !processAlive(pid);
}

/**
 * True when no live process is left in the process group `pgid`. A killed command's children (a `sleep` its
 * script waits in) take their SIGKILL after it on a loaded machine, and one still alive carries the attempt's tag:
 * recovery would rightly find the attempt's command still running.
 */
export function groupGone(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(pgrp) === pgid) return false;
    } catch {
      // gone meanwhile
    }
  }
  return true;
}

/** Kills every process carrying the tag and waits for them to go. */
export async function killTagged(tag: string): Promise<void> {
  for (const pid of taggedProcesses(tag)) killGroup(pid);
  await waitUntil(
    () => taggedProcesses(tag).every(gone),
    `the processes tagged ${tag} to exit`,
    10_000,
  ).catch(() => {});
}

/** JSON with object keys sorted, so an event written and the same event read back compare equal. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Collects what a scenario found wrong, instead of stopping at the first. */
export class Problems {
  readonly list: string[] = [];
  check(ok: boolean, message: string | (() => string)): boolean {
    if (!ok) this.list.push(typeof message === 'function' ? message() : message);
    return ok;
  }
  add(message: string): void {
    this.list.push(message);
  }
}

/** Median and 95th percentile of a list of numbers (0 when empty). */
export function percentiles(xs: number[]): { p50: number; p95: number; max: number } {
  if (!xs.length) return { p50: 0, p95: 0, max: 0 };
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: at(0.5), p95: at(0.95), max: s[s.length - 1]! };
}

/** Each item `times` times, the whole list over again each time (repetition k of item i at k·length + i). */
export const repeatEach = <T>(items: readonly T[], times: number): T[] =>
  Array.from({ length: times }, () => items).flat();
