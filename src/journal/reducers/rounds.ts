/**
 * Where a node's round starts: the one place the fold resets what a round counts (its failures, the failures it
 * may have, the last failures) and clears the marks of the escalation it leaves (the run's budget, the daily cap,
 * the report, a loop's end). Recording, a loop's next cycle, a rerun from upstream and an approved rerun all come
 * through `startRound`, so no mark of an earlier escalation is left behind for a later approval to misread.
 */
import type { NodeProgress, RoundStart } from '../state.js';
import type { Folding } from './folding.js';

/** Node `node` starts its next round (`RoundStart` says which kind). */
export function startRound(f: Folding, node: string, p: NodeProgress, round: RoundStart): void {
  p.budget_escalated = false;
  delete p.daily_cap_escalated;
  delete p.report;
  delete p.loop_escalated;
  if (round === 'one-more') p.allowedFailures = p.failures + 1;
  if (round !== 'fresh') return;
  p.failures = 0;
  p.allowedFailures = f.specs.get(node)?.approaches.length ?? p.allowedFailures;
  p.interrupted = false;
  p.last_failures = [];
  p.approvals = [];
  delete p.overdue;
}
