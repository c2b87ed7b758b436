/**
 * Crash failpoints for the reliability tests: inert unless INTERLOCK_FAILPOINTS names the point, in which case
 * the process kills itself with SIGKILL right there, as a crashed machine would stop. A point may be narrowed
 * to one node with `name@node` (e.g. `after-command@deploy`); a bare name fires at its first hit.
 */
export const FAILPOINTS = [
  'before-dispatch-write',
  'after-dispatch-write',
  'after-command',
  'before-record-write',
  'after-record-write',
  /** Recovery (`interlock recover`, the Action's post step and `mode: recover`) marking attempts interrupted. */
  'before-recover-write',
  'after-recover-write',
  /** A person's settlement: approve-rerun, settle or fail-run, from the CLI or a comment. */
  'before-settle-write',
  'after-settle-write',
] as const;
export type Failpoint = (typeof FAILPOINTS)[number];

export function failpoint(name: Failpoint, node?: string): void {
  const set = process.env.INTERLOCK_FAILPOINTS;
  if (!set) return;
  const wanted = set.split(',').map((s) => s.trim());
  if (wanted.includes(name) || (node !== undefined && wanted.includes(`${name}@${node}`)))
    process.kill(process.pid, 'SIGKILL');
}
