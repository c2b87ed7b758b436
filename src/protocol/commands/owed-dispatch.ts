/**
 * Whether the workflow dispatch a person's approval or settlement called for is still owed (issue 50): the process
 * that journaled the command may have died before it dispatched. Pure: the same journal gives the same answer.
 */
import type { Journal, JournalEvent } from '../../journal/events/events.js';
import { recordedFrom } from '../../journal/person-record.js';
import type { RunState } from '../../journal/state.js';

/** The approval (or settlement) a dispatch follows, and the last moment someone took it upon them to dispatch. */
export interface OwedDispatch {
  /** The node the command named: its workflow is the one dispatched (`workflowOf`). */
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

type Command = Extract<
  JournalEvent,
  { type: 'NodeApproved' | 'RerunApproved' | 'RerunFromApproved' | 'NodeRecorded' }
>;

/** The approval whose `source` it is, or the person's settlement whose words name it (person-record.ts). */
function commandFrom(e: JournalEvent, source: string): e is Command {
  if (e.type === 'NodeApproved' || e.type === 'RerunApproved' || e.type === 'RerunFromApproved')
    return e.source === source;
  return recordedFrom(e, source);
}

/**
 * The dispatch the command from `source` called for, when no step has taken it yet: the command is journaled after
 * the last `NodeDispatched`, the run goes on, and the node an approval named is ready (any node, for a rerun from a
 * node or a settlement, which completes its node and may release those after it). Undefined when there is no such
 * command or a step took its dispatch.
 */
export function owedDispatch(journal: Journal, state: RunState, source: string): OwedDispatch | undefined {
  const events = [...journal.events].reverse();
  const command = events.find((e): e is Command => commandFrom(e, source));
  if (!command || state.checkpoint.ended) return undefined;
  const lastDispatch = events.find((e) => e.type === 'NodeDispatched')?.seq ?? 0;
  if (command.seq < lastDispatch) return undefined;
  const ready = state.checkpoint.ready_nodes;
  const anyReady = command.type === 'RerunFromApproved' || command.type === 'NodeRecorded';
  if (anyReady ? ready.length === 0 : !ready.includes(command.node)) return undefined;
  const claim = events.find((e) => e.seq > lastDispatch && claims(e)) ?? command;
  return { node: command.node, since: claim.at, claim: claim.seq };
}
