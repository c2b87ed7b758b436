/**
 * The fold's reducers for the gate before a node (issue 15): `NodeAwaitingApproval` takes a pending node that
 * never ran to `awaiting_approval`; `NodeApproved` counts distinct approvers and, once enough approved, opens the
 * gate (the node is pending again and may be dispatched). Guidance given with any approval is kept per node.
 */
import type { EventOf } from '../events/events.js';
import { attemptsThisRound, type NodeProgress, stateWords } from '../state.js';
import { dependenciesResolved, progress, type Reducer } from './folding.js';

export const nodeAwaitingApproval: Reducer<'NodeAwaitingApproval'> = (f, e, at) => {
  const p = progress(f, e);
  if (p.state !== 'pending' || attemptsThisRound(p) !== 0 || p.gate_passed)
    at.bad(
      `node "${e.node}" is ${stateWords(p.state)} after ${p.attempts} attempts; it cannot await approval`,
    );
  dependenciesResolved(f, e.node, 'awaits approval', at);
  p.state = 'awaiting_approval';
  p.approvals = [];
};

export const nodeApproved: Reducer<'NodeApproved'> = (f, e, at) => {
  const p = progress(f, e);
  if (p.state !== 'awaiting_approval')
    at.bad(`node "${e.node}" is ${stateWords(p.state)}, not awaiting approval`);
  f.approvalSources.push(e.source);
  if (!p.approvals.includes(e.approved_by)) p.approvals.push(e.approved_by);
  keepGuidance(p, e);
  if (p.approvals.length < e.required) return;
  p.state = 'pending';
  p.gate_passed = true;
};

/** Keeps the guidance an approval carries, with who gave it. */
export function keepGuidance(p: NodeProgress, e: EventOf<'NodeApproved'> | EventOf<'RerunApproved'>): void {
  if (e.guidance === undefined) return;
  p.guidance = [...(p.guidance ?? []), { by: e.approved_by, text: e.guidance }];
}
