/**
 * A person's commands, the one home for what each writes: `approve <node>` (a gate, in gate.ts),
 * `approve-rerun <node>`, `settle <node>` (record it as done) and `fail-run`, whether a comment, the check run's
 * button or the CLI gave it. A command whose source is a delivery (a comment's URL) is applied once. Pure.
 */
import { suggestion } from '../../graph/errors.js';
import { nodeById } from '../../graph/model.js';
import type { Journal, NewEvent } from '../../journal/events/events.js';
import type { Usage } from '../../journal/events/fields.js';
import { recordedFrom } from '../../journal/person-record.js';
import type { NodeState, RunState } from '../../journal/state.js';
import { waitingAttempt } from '../../journal/state.js';
import { withCompletion } from '../decide.js';
import type { Run } from '../run.js';
import { type ApprovalTerms, approvalRefusal, isDeliverySource } from './approval-rules.js';
import { approveNode } from './gate.js';
import { rerunFrom } from './rerun-from.js';

/** The events a person's command writes, or why it is refused. */
export type CommandEvents = { ok: true; events: NewEvent[] } | { ok: false; reason: string };

interface ApprovalRequest extends ApprovalTerms {
  node: string;
  /** The attempt the approval answers; defaults to the node's last attempt. */
  attempt?: number;
  reason?: string;
  /** Distinct people who must approve before the node leaves its hold (default 1); recorded in the event. */
  required?: number;
}

/** Why a node in this state waits for no person's answer, in words the person can act on. */
const NOT_WAITING: Record<Exclude<NodeState, 'held' | 'escalated'>, string> = {
  pending: 'it waits for its turn to run, not for a person',
  in_flight: 'an attempt of it is running now',
  completed: 'its work is recorded as done',
  skipped: 'it was skipped',
  awaiting_approval: 'it waits for `/approve` before its first attempt, not for a rerun',
  expanded: 'its instances or child nodes run; a command names one of them',
  tolerated: "it ended escalated and its node's `tolerated_failures` let it through",
};

/**
 * Why `command` (`approve-rerun`, `settle`) cannot act on the node, or null when it can. Only a held or escalated
 * node waits for a person: the refusal says what the node is doing instead.
 */
function checkNode(
  req: { run: Run; node: string; attempt?: number | undefined },
  command: 'approve-rerun' | 'settle',
): string | null {
  const { run, node, attempt } = req;
  const { graph, state } = run;
  if (state.checkpoint.ended)
    return `the run has already ended (${state.checkpoint.ended.type}: ${state.checkpoint.ended.reason})`;
  const p = state.nodes.get(node);
  if (!p || !nodeById(graph, node)) {
    return `"${node}" is not a node of ${graph.name}${suggestion(
      node,
      graph.nodes.map((n) => n.id),
    )}`;
  }
  if (p.state !== 'held' && p.state !== 'escalated') {
    const now =
      p.state === 'pending' && p.attempts > 0
        ? 'its next attempt waits for its turn to run'
        : NOT_WAITING[p.state];
    return `node "${node}" is ${p.state.replace('_', ' ')}: ${now}; /${command} answers only a held or escalated node`;
  }
  if (attempt !== undefined && attempt !== waitingAttempt(p)) {
    return `the approval names attempt ${attempt}, but node "${node}" is waiting on attempt ${waitingAttempt(p)}`;
  }
  return null;
}

/** A named person approves a new attempt of a held or escalated node of `run`. */
export function approveRerun(req: ApprovalRequest & { run: Run }): CommandEvents {
  const { state } = req.run;
  const why = checkNode(req, 'approve-rerun');
  if (why) return { ok: false, reason: why };
  const p = state.nodes.get(req.node)!;
  const refusal = approvalRefusal(state, req, {
    what: `attempt ${waitingAttempt(p)} of "${req.node}"`,
    approvers: p.approvals,
    required: req.required ?? 1,
  });
  if (refusal) return { ok: false, reason: refusal };
  return {
    ok: true,
    events: [
      {
        type: 'RerunApproved',
        node: req.node,
        attempt: waitingAttempt(p),
        approved_by: req.by,
        source: req.source,
        graph_hash: state.accepted_hash,
        ...(req.reason !== undefined ? { reason: req.reason } : {}),
        ...(req.required !== undefined ? { required: req.required } : {}),
        ...(req.guidance ? { guidance: req.guidance } : {}),
      },
    ],
  };
}

/** A person records a held or escalated node of `run` as done (they checked its side effect happened). */
export function settleNode(req: {
  run: Run;
  node: string;
  attempt?: number;
  by: string;
  note: string;
  source: string;
}): CommandEvents {
  const { state } = req.run;
  const why = checkNode(req, 'settle');
  if (why) return { ok: false, reason: why };
  if (!req.note.trim()) return { ok: false, reason: 'a settlement needs a note saying what was checked' };
  const p = state.nodes.get(req.node)!;
  const usage: Usage = { wall_ms: 0 };
  const events: NewEvent[] = [
    {
      type: 'NodeRecorded',
      node: req.node,
      attempt: waitingAttempt(p),
      evidence: [{ check: 'person', passed: true, observed: `${req.by}: ${req.note} (${req.source})` }],
      // A loop escalated after its last cycle keeps that cycle's outputs; a node that never completed has none.
      outputs: { ...p.outputs },
      usage,
      recorded_by: req.by,
      note: req.note,
    },
  ];
  return { ok: true, events: withCompletion(req.run, events) };
}

/** A person ends the run as failed. */
export function failRun(state: RunState, req: { by: string; reason: string }): CommandEvents {
  if (state.checkpoint.ended)
    return { ok: false, reason: `the run has already ended (${state.checkpoint.ended.type})` };
  if (!req.reason.trim()) return { ok: false, reason: 'fail-run needs a reason' };
  return { ok: true, events: [{ type: 'RunFailed', reason: req.reason, by: req.by }] };
}

/**
 * Where an approval left its node, as the journal now stands: who has approved, how many must (as the last
 * approval recorded it, which is the fold's count), and whether the node left its gate or hold.
 */
export function approvalStanding(
  journal: Journal,
  state: RunState,
  node: string,
): { approvers: string[]; required: number; released: boolean } {
  const p = state.nodes.get(node);
  const last = [...journal.events]
    .reverse()
    .find((e) => (e.type === 'NodeApproved' || e.type === 'RerunApproved') && e.node === node);
  const required = last?.type === 'NodeApproved' || last?.type === 'RerunApproved' ? (last.required ?? 1) : 1;
  const waits = p?.state === 'awaiting_approval' || p?.state === 'held' || p?.state === 'escalated';
  return { approvers: p?.approvals ?? [], required, released: !waits };
}

/** A person's command as every face gives it (a comment, the check run's button, a CLI verb). */
export type PersonCommand =
  | { kind: 'approve'; node: string; guidance?: string }
  | { kind: 'approve-rerun'; node: string; guidance?: string; attempt?: number; reason?: string }
  | { kind: 'settle'; node: string; note: string; attempt?: number }
  | { kind: 'fail-run'; reason: string }
  /** Rerun a node and its dependents (issue 28, rerun-from.ts). */
  | { kind: 'rerun-from'; node: string; guidance?: string };

/** Who gave a command, where, and the terms their approval carries. */
interface Giver {
  login: string;
  /** A comment's URL (or the button delivery's), never applied twice; or the CLI's `cli:<user>`. */
  source: string;
  /** Distinct people who must approve (the strictest of repository, graph and node). */
  required: number;
  /** The node's policy forbids the run's starter from approving it. */
  preventSelfApproval?: boolean;
  /** The graph hash the person acted under: an approval under another graph is refused. */
  graphHash: string;
}

type PersonCommandEvents = CommandEvents & { duplicate?: true };

/**
 * Whether this delivery (a comment, a button press) is already in the journal: a redelivery changes nothing.
 * An approval's delivery is in `approval_sources`; a settlement and a person's fail-run carry theirs only in their
 * words (`… (<source>)`), so only those events are read so, never a check's observation that happens to end so.
 */
export function handledBefore(journal: Journal, state: RunState, source: string): boolean {
  if (!isDeliverySource(source)) return false;
  if (state.approval_sources.includes(source)) return true;
  return journal.events.some(
    (e) => recordedFrom(e, source) || (e.type === 'RunFailed' && e.reason.endsWith(`(${source})`)),
  );
}

/**
 * The events a person's `command` (given by `giver`) writes to `run`, or why it is refused: the same journal and
 * command give the same answer.
 */
export function personCommandEvents(o: {
  run: Run;
  command: PersonCommand;
  giver: Giver;
}): PersonCommandEvents {
  const { run, command, giver } = o;
  const { journal, state } = run;
  if (handledBefore(journal, state, giver.source)) {
    return {
      ok: false,
      reason: `this comment is already in the journal of ${journal.run_id}`,
      duplicate: true,
    };
  }
  const attempt = 'attempt' in command && command.attempt !== undefined ? { attempt: command.attempt } : {};
  switch (command.kind) {
    case 'approve-rerun':
    case 'approve': {
      const req = {
        node: command.node,
        by: giver.login,
        source: giver.source,
        graph_hash: giver.graphHash,
        required: giver.required,
        ...(command.guidance !== undefined ? { guidance: command.guidance } : {}),
        ...(giver.preventSelfApproval ? { prevent_self_approval: true } : {}),
      };
      if (command.kind === 'approve') return approveNode({ run, ...req });
      return approveRerun({
        run,
        ...req,
        ...attempt,
        ...(command.reason !== undefined ? { reason: command.reason } : {}),
      });
    }
    case 'settle':
      return settleNode({
        run,
        node: command.node,
        by: giver.login,
        note: command.note,
        source: giver.source,
        ...attempt,
      });
    case 'rerun-from':
      return rerunFrom({
        run,
        node: command.node,
        by: giver.login,
        source: giver.source,
        graph_hash: giver.graphHash,
        ...(command.guidance !== undefined ? { guidance: command.guidance } : {}),
        ...(giver.preventSelfApproval ? { prevent_self_approval: true } : {}),
      });
    case 'fail-run':
      // A delivery's URL goes into the reason, so a redelivery is recognised (handledBefore).
      return failRun(state, {
        by: giver.login,
        reason: isDeliverySource(giver.source) ? `${command.reason} (${giver.source})` : command.reason,
      });
  }
}
