/**
 * Whether the workflow dispatch a person's approval called for is still owed (issue 50): the process that journaled
 * the approval may have died before it dispatched. Pure: the same journal gives the same answer.
 */
import type { Journal, JournalEvent } from '../../journal/events/events.js';
import type { RunState } from '../../journal/state.js';

/** The approval (or settlement) a dispatch follows, and the last moment someone took it upon them to dispatch. */
export interface OwedDispatch {
  /** The node the approval named: its workflow is the one dispatched (`workflowOf`). */
  node: string;
  /** The latest claim on the dispatch: the last person's command or retry written since the last dispatch. */
  since: string;
  /** The `seq` of that claim: a claim written meanwhile by another copy changes it. */
  claim: number;
}

/** Events after which the workflow is dispatched by whoever wrote them: each starts a lease on the dispatch. */
function claims(e: JournalEvent): boolean {
  return (
    e.type === 'NodeApproved' ||
    e.type === 'RerunApproved' ||
    e.type === 'RerunFromApproved' ||
    e.type === 'WorkflowDispatchRetried' ||
    (e.type === 'NodeRecorded' && e.recorded_by !== undefined)
  );
}

/**
 * The dispatch the approval from `source` called for, when no step has taken it yet: the approval is journaled after
 * the last `NodeDispatched`, the run goes on, and the node it named (any node, for a rerun from a node) is ready.
 * Undefined when there is no such approval or a step took its dispatch.
 */
export function owedDispatch(journal: Journal, state: RunState, source: string): OwedDispatch | undefined {
  const events = [...journal.events].reverse();
  const approval = events.find(
    (e): e is Extract<JournalEvent, { type: 'NodeApproved' | 'RerunApproved' | 'RerunFromApproved' }> =>
      (e.type === 'NodeApproved' || e.type === 'RerunApproved' || e.type === 'RerunFromApproved') &&
      e.source === source,
  );
  if (!approval || state.checkpoint.ended) return undefined;
  const lastDispatch = events.find((e) => e.type === 'NodeDispatched')?.seq ?? 0;
  if (approval.seq < lastDispatch) return undefined;
  const ready = state.checkpoint.ready_nodes;
  // A rerun from a node dispatches for whichever of its nodes is ready; an approval, for the node it released.
  if (approval.type === 'RerunFromApproved' ? ready.length === 0 : !ready.includes(approval.node))
    return undefined;
  const claim = events.find((e) => e.seq > lastDispatch && claims(e)) ?? approval;
  return { node: approval.node, since: claim.at, claim: claim.seq };
}
