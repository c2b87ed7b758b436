/**
 * The `status` output, one mapping for every mode: from the checkpoint (plan, recover, a step that ran nothing)
 * and from a step's result. Pure.
 */
import type { Checkpoint } from '../../journal/state.js';
import type { StepResult } from '../../runner/step-result.js';

/**
 * Every value the action's `status` output can take, in every mode: action.yml (and so
 * docs/action-reference.md) lists exactly these (a test compares them). `refused` and `ignored` come from routing and `mode: comment`; `no-route` from routing.
 */
export const ACTION_STATUSES = [
  'completed',
  'failed',
  'skipped',
  'held',
  'awaiting-approval',
  'escalated',
  'not-ready',
  'running',
  'run-completed',
  'no-route',
  'refused',
  'ignored',
] as const;

export type AnyActionStatus = (typeof ACTION_STATUSES)[number];

/** What a step or a checkpoint says; routing and `mode: comment` add `no-route`, `refused` and `ignored`. */
type ActionStatus = Exclude<AnyActionStatus, 'no-route' | 'refused' | 'ignored'>;

/**
 * Where the run stands: the node asked for, when it is held or escalated; else the run's own status, with a run
 * that waits (nothing ready, nothing in flight) named by what it waits for, held before escalated.
 */
export function checkpointStatus(cp: Checkpoint, wanted?: string): ActionStatus {
  if (wanted && cp.held_nodes.includes(wanted)) return 'held';
  if (wanted && cp.escalated_nodes.includes(wanted)) return 'escalated';
  if (wanted && cp.awaiting_approval_nodes?.includes(wanted)) return 'awaiting-approval';
  if (cp.status === 'completed') return 'run-completed';
  if (cp.status === 'failed') return 'failed';
  const waiting = !wanted && !cp.ready_nodes.length && !cp.active_nodes.length;
  if (waiting && cp.held_nodes.length) return 'held';
  if (waiting && cp.escalated_nodes.length) return 'escalated';
  if (waiting && cp.awaiting_approval_nodes) return 'awaiting-approval';
  return cp.status === 'blocked' ? 'not-ready' : 'running';
}

/** The status of a step's result (`wanted`: the node the step was asked for, if one). */
export function stepStatus(r: StepResult, wanted: string | undefined): ActionStatus {
  switch (r.kind) {
    case 'recorded':
      return 'completed';
    case 'failed':
    case 'stale':
      return 'failed';
    case 'escalated':
      return 'escalated';
    case 'skipped':
      return 'skipped';
    case 'awaiting-approval':
      return 'awaiting-approval';
    case 'run-completed':
      return 'run-completed';
    case 'expanded':
    case 'joined':
      // A join that resolves the last node writes the run's completion with it.
      return r.cur.state.checkpoint.status === 'completed' ? 'run-completed' : 'running';
    case 'ended':
      return r.cur.state.checkpoint.status === 'completed' ? 'run-completed' : 'failed';
    case 'blocked': {
      // A blocked step ran nothing: the run is still going (else it would have ended), so it cannot be 'running'.
      const s = checkpointStatus(r.cur.state.checkpoint, wanted);
      return s === 'running' ? 'not-ready' : s;
    }
  }
}
