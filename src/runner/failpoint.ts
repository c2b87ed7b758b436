/**
 * Crash failpoints for the reliability tests: inert unless INTERLOCK_FAILPOINTS names the point, in which case
 * the process kills itself with SIGKILL right there, as a crashed machine would stop.
 */
export const FAILPOINTS = [
  'before-dispatch-write',
  'after-dispatch-write',
  'after-command',
  'before-record-write',
  'after-record-write',
] as const;
export type Failpoint = (typeof FAILPOINTS)[number];

export function failpoint(name: Failpoint): void {
  const set = process.env.INTERLOCK_FAILPOINTS;
  if (!set) return;
  if (
    set
      .split(',')
      .map((s) => s.trim())
      .includes(name)
  )
    process.kill(process.pid, 'SIGKILL');
}
