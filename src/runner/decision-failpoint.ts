/**
 * The runner's failpoints (see src/os/crash-failpoint.ts), and the one around a decision journaled instead of a
 * dispatch: a gate's `NodeAwaitingApproval` or a budget's `NodeEscalated`.
 */
import { failpoint } from '../os/crash-failpoint.js';

/** The failpoint around a decision that is journaled instead of a dispatch: a gate or a budget escalation. */
export function decisionFailpoint(
  when: 'before' | 'after',
  decision: { kind: string; node?: unknown },
): void {
  const node = typeof decision.node === 'string' ? decision.node : undefined;
  if (decision.kind === 'awaiting-approval') failpoint(`${when}-gate-write`, node);
  if (decision.kind === 'budget-escalated') failpoint(`${when}-escalate-write`, node);
  if (decision.kind === 'expand' || decision.kind === 'expand-failed')
    failpoint(`${when}-expand-write`, node);
  if (decision.kind === 'join') failpoint(`${when}-join-write`, node);
}
