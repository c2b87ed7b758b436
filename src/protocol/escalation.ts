/** The escalation report of a node whose last allowed attempt failed: attempts, failures, what is needed. Pure. */
import { type Approach, approachFor, type GraphNode } from '../graph/model.js';
import type { Journal, NewEvent } from '../journal/events/events.js';
import type { EscalationReport, Failure } from '../journal/events/fields.js';
import { lastAllowedAttempt } from '../journal/state.js';
import { settingEscalation } from './attempt/repository-settings.js';
import { SETUP_CHECK } from './engines/agent-setup.js';

function describeWork(a: Approach): string {
  if (a.run !== undefined) return `run: ${a.run.trim().split('\n')[0]}`;
  return `prompt to ${a.agent}${a.skill ? ` (skill ${a.skill})` : ''}`;
}

/** The attempt whose failure escalates its node, and the journal that holds the earlier attempts. */
interface Escalation {
  node: GraphNode;
  attempt: number;
  approach: Approach;
  failures: Failure[];
  journal: Journal;
  /** A failure no retry can fix (an agent's setup, a repository setting): what it was, and what a person does. */
  atOnce?: { setup: string; needed: string };
}

/** The escalation report: what was attempted, what failed and why, the approaches tried, what is needed. */
export function escalationEvent({
  node,
  attempt,
  approach,
  failures,
  journal,
  atOnce,
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
        atOnce?.needed ??
        `A person decides: fix the cause and approve a rerun of "${node.id}", settle it as done if its work is already in place, or fail the run.`,
      ...(atOnce ? { setup: atOnce.setup } : {}),
    },
  };
}

/**
 * Rule: a failure no retry can fix escalates its node at once, since the next attempt would meet it the same way:
 * an agent command that cannot work as set up (`SETUP_CHECK`, src/protocol/engines/agent-setup.ts), or a repository
 * setting that refuses an effect (src/protocol/attempt/repository-settings.ts). The one place that decides it.
 */
function escalatesAtOnce(node: string, failures: Failure[]): Escalation['atOnce'] {
  const setting = settingEscalation(node, failures);
  if (setting) return { setup: `the repository setting "${setting.setting}" is off`, needed: setting.needed };
  const setup = failures.find((f) => f.check === SETUP_CHECK);
  if (setup)
    return {
      setup: setup.message,
      needed: `The agent command could not work as set up, so its retries were not spent: fix the setup, then approve a rerun of "${node}" (or settle it, or fail the run).`,
    };
  return undefined;
}

/**
 * The escalation that follows a failed attempt, or undefined while attempts are left: after the last allowed
 * attempt, or at once for a failure no retry can fix (`escalatesAtOnce`).
 */
export function escalationAfter(failed: {
  node: GraphNode;
  /** The node's progress before this failure: the failures it had and the failures it is allowed. */
  p: { failures: number; allowedFailures: number };
  attempt: number;
  failures: Failure[];
  journal: Journal;
}): NewEvent | undefined {
  const { node, p, attempt, failures, journal } = failed;
  const atOnce = escalatesAtOnce(node.id, failures);
  if (!lastAllowedAttempt(p) && !atOnce) return undefined;
  const approach = approachFor(node, p.failures);
  return escalationEvent({ node, attempt, approach, failures, journal, ...(atOnce ? { atOnce } : {}) });
}
