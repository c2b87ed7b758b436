// The events a settling command writes, or why it is refused; a comment already in the journal writes nothing.
import type { Graph } from '../../graph/model.js';
import type { Journal } from '../../journal/events.js';
import type { RunState } from '../../journal/state.js';
import { approveNode } from '../../protocol/gate.js';
import { approveRerun, failRun, type Settlement, settleNode } from '../../protocol/settle.js';
import type { Command } from '../commands/parse.js';

/** Who gave a command, where, and how many approvers the configuration asks for. */
export interface Giver {
  login: string;
  /** The comment's URL (or the button delivery's): recorded, and never applied twice. */
  source: string;
  required: number;
  /** The node's policy forbids the run's starter from approving it. */
  preventSelfApproval?: boolean;
  /** The graph hash the person acted under (the graph at the default branch). */
  graphHash: string;
}

export type CommandSettlement = Settlement & { duplicate?: true };

/** Whether this comment (or delivery) is already in the journal: a redelivered webhook changes nothing. Pure. */
export function handledBefore(journal: Journal, source: string): boolean {
  const tail = `(${source})`;
  return journal.events.some(
    (e) =>
      ((e.type === 'RerunApproved' || e.type === 'NodeApproved') && e.source === source) ||
      (e.type === 'NodeRecorded' && e.evidence.some((x) => x.observed.endsWith(tail))) ||
      (e.type === 'RunFailed' && e.reason.endsWith(tail)),
  );
}

/** The events a command writes, or why it is refused. Pure: the same journal and command give the same answer. */
export function settleCommand(
  graph: Graph,
  cur: { journal: Journal; state: RunState },
  command: Exclude<Command, { kind: 'status' }>,
  giver: Giver,
): CommandSettlement {
  if (handledBefore(cur.journal, giver.source)) {
    return {
      ok: false,
      reason: `this comment is already in the journal of ${cur.journal.run_id}`,
      duplicate: true,
    };
  }
  switch (command.kind) {
    case 'approve-rerun':
    case 'approve': {
      const req = {
        node: command.node,
        by: giver.login,
        source: giver.source,
        graph_hash: giver.graphHash,
        required: giver.required,
        ...approvalExtras(command, giver),
      };
      return command.kind === 'approve'
        ? approveNode(graph, cur.state, req)
        : approveRerun(graph, cur.state, req);
    }
    case 'settle':
      return settleNode(graph, cur.journal, cur.state, {
        node: command.node,
        by: giver.login,
        note: command.note,
        source: giver.source,
      });
    case 'fail-run':
      return failRun(cur.state, { by: giver.login, reason: `${command.reason} (${giver.source})` });
  }
}

/** The guidance and the self-approval rule an approval carries, when set. */
function approvalExtras(
  command: { guidance?: string },
  giver: Giver,
): { guidance?: string; prevent_self_approval?: boolean } {
  return {
    ...(command.guidance !== undefined ? { guidance: command.guidance } : {}),
    ...(giver.preventSelfApproval ? { prevent_self_approval: true } : {}),
  };
}
