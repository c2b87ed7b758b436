/** The escalation report of a node whose last allowed attempt failed: attempts, failures, what is needed. Pure. */
import type { Approach, GraphNode } from '../graph/model.js';
import type { EscalationReport, Failure } from '../journal/event-fields.js';
import type { Journal, NewEvent } from '../journal/events.js';

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
  /** A setup error escalates at once (`agent-setup.ts`): the report says so and the fix. */
  setup?: Failure;
}

/** The escalation report: what was attempted, what failed and why, the approaches tried, what is needed. */
export function escalationEvent({ node, attempt, approach, failures, journal, setup }: Escalation): NewEvent {
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
      needed: setup
        ? `The agent command could not work as set up, so its retries were not spent: fix the setup, then approve a rerun of "${node.id}" (or settle it, or fail the run).`
        : `A person decides: fix the cause and approve a rerun of "${node.id}", settle it as done if its work is already in place, or fail the run.`,
      ...(setup ? { setup: setup.message } : {}),
    },
  };
}
