/** The escalation report of a node whose last allowed attempt failed: attempts, failures, what is needed. Pure. */
import { type Approach, approachFor, type GraphNode } from '../graph/model.js';
import type { EscalationReport, Failure } from '../journal/event-fields.js';
import type { Journal, NewEvent } from '../journal/events.js';
import { settingEscalation } from './repository-settings.js';

function describeWork(a: Approach): string {
  if (a.run !== undefined) return `run: ${a.run.trim().split('\n')[0]}`;
  return `prompt to ${a.agent}${a.skill ? ` (skill ${a.skill})` : ''}`;
}

/** The attempt whose failure escalates its node, and the journal that holds the earlier attempts. */
export interface Escalation {
  node: GraphNode;
  attempt: number;
  approach: Approach;
  failures: Failure[];
  journal: Journal;
  /** A repository setting the failure needs changed, and what a person must do; else the usual choice. */
  setting?: { setting: string; needed: string };
}

/** The escalation report: what was attempted, what failed and why, the approaches tried, what is needed. */
export function escalationEvent({
  node,
  attempt,
  approach,
  failures,
  journal,
  setting,
}: Escalation): NewEvent {
  const attempted: EscalationReport['attempted'] = [];
  const failed: EscalationReport['failed'] = [];
  for (const e of journal.events) {
    // A loop's new cycle or a rerun counts its attempts afresh (issue 28): the report is of this round's.
    if (
      (e.type === 'NodeCycleStarted' && e.node === node.id) ||
      (e.type === 'RerunFromApproved' && e.nodes.includes(node.id))
    ) {
      attempted.length = 0;
      failed.length = 0;
    }
    if (e.type === 'NodeDispatched' && e.node === node.id) {
      const a = node.approaches.find((x) => x.label === e.approach) ?? node.approaches[0]!;
      attempted.push({ attempt: e.attempt, approach: e.approach, work: describeWork(a) });
    }
    if (e.type === 'NodeFailed' && e.node === node.id)
      failed.push({ attempt: e.attempt, failures: e.failures });
    if (e.type === 'NodeInterrupted' && e.node === node.id) {
      failed.push({
        attempt: e.attempt,
        failures: [{ check: 'interrupted', message: 'the executor was lost mid-attempt' }],
      });
    }
  }
  if (!attempted.some((a) => a.attempt === attempt))
    attempted.push({ attempt, approach: approach.label, work: describeWork(approach) });
  failed.push({ attempt, failures });
  return {
    type: 'NodeEscalated',
    node: node.id,
    report: {
      attempted,
      failed,
      approaches_tried: [...new Set(attempted.map((a) => a.approach))],
      needed:
        setting?.needed ??
        `A person decides: fix the cause and approve a rerun of "${node.id}", settle it as done if its work is already in place, or fail the run.`,
      ...(setting ? { setting: setting.setting } : {}),
    },
  };
}

/**
 * The escalation that follows a failed attempt, or undefined while attempts are left: after the last allowed
 * attempt, or at once for a failure only a repository setting fixes (the next attempt would meet the same refusal).
 */
export function escalationAfter(
  node: GraphNode,
  p: { failures: number; budget: number },
  attempt: number,
  failures: Failure[],
  journal: Journal,
): NewEvent | undefined {
  const setting = settingEscalation(node.id, failures);
  if (p.failures + 1 < p.budget && !setting) return undefined;
  const approach = approachFor(node, p.failures);
  return escalationEvent({ node, attempt, approach, failures, journal, ...(setting ? { setting } : {}) });
}
