/**
 * Crash failpoints for the reliability tests: inert unless INTERLOCK_FAILPOINTS names the point, in which case
 * the process kills itself with SIGKILL right there, as a crashed machine would stop. A point may be narrowed
 * to one node with `name@node` (e.g. `after-command@deploy`), or to its n-th hit in the process with `name#n`
 * (e.g. `check-run:after-update#2`, the second journal write); a bare name fires at its first hit. On the bottom
 * floor so that every floor above it (the stores, the runner) can mark its boundaries.
 */
export const FAILPOINTS = [
  'before-dispatch-write',
  'after-dispatch-write',
  'after-command',
  'before-record-write',
  'after-record-write',
  /** `node: all`'s one write that records a node and dispatches the next (named by the node it dispatches). */
  'before-chain-write',
  'after-chain-write',
  /** An engine's agent stopped at its budget (TERM, then KILL), before its output is read and the failure written. */
  'after-budget-stop',
  /** Recovery (`interlock recover`, the Action's post step and `mode: recover`) marking attempts interrupted. */
  'before-recover-write',
  'after-recover-write',
  /** A person's command: approve, approve-rerun, settle or fail-run, from the CLI, a comment or the App. */
  'before-person-command-write',
  'after-person-command-write',
  /** The gate before a node: the write of `NodeAwaitingApproval`. */
  'before-gate-write',
  'after-gate-write',
  /** A run at its budget: the write of the node's `NodeEscalated` instead of its dispatch. */
  'before-escalate-write',
  'after-escalate-write',
  /** A for_each node (issue 28): the write of its `NodeExpanded` (or `NodeExpansionFailed`), and of its `NodeJoined`. */
  'before-expand-write',
  'after-expand-write',
  'before-join-write',
  'after-join-write',
  /** The check-run store's write: the read before it, the create or update, and the read back after it. */
  'check-run:before-read',
  'check-run:before-create',
  'check-run:after-create',
  'check-run:before-update',
  'check-run:after-update',
  'check-run:after-read-back',
  /** An effect's GitHub requests (src/runner/effects/request.ts): before each is sent, and after its answer. */
  'effect:before-request',
  'effect:after-request',
] as const;
export type Failpoint = (typeof FAILPOINTS)[number];

const hits = new Map<string, number>();

export function failpoint(name: Failpoint, node?: string): void {
  const set = process.env.INTERLOCK_FAILPOINTS;
  if (!set) return;
  const wanted = set.split(',').map((s) => s.trim());
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (
    wanted.includes(name) ||
    wanted.includes(`${name}#${n}`) ||
    (node !== undefined && wanted.includes(`${name}@${node}`))
  )
    process.kill(process.pid, 'SIGKILL');
}
