import { suggestion } from '../graph/errors.js';
import type { Graph } from '../graph/model.js';
import type { Usage } from '../journal/event-fields.js';
import type { Journal, NewEvent } from '../journal/events.js';
import type { DispatchInfo, RunState } from '../journal/state.js';
import { waitingAttempt } from '../journal/state.js';
import { guidanceRefusal, selfApprovalRefusal } from './approval-rules.js';
import { withCompletion } from './decide.js';

export type Settlement = { ok: true; events: NewEvent[] } | { ok: false; reason: string };

export interface ApprovalRequest {
  node: string;
  /** The attempt the approval settles; defaults to the node's last attempt. */
  attempt?: number;
  by: string;
  source: string;
  reason?: string;
  /** The graph hash the approver saw; refused when the graph has changed since. */
  graph_hash?: string;
  /** Distinct people who must approve before the node leaves its hold (default 1); recorded in the event. */
  required?: number;
  /** When true, the person recorded as the run's starter cannot approve. */
  prevent_self_approval?: boolean;
  /** What the approver tells the next attempt (recorded with the approval). */
  guidance?: string;
}

/** A source that is a URL names one comment or one delivery: it approves at most once per run. */
export function isDeliverySource(source: string): boolean {
  return /^https?:\/\//.test(source);
}

function checkNode(graph: Graph, state: RunState, node: string, attempt: number | undefined): string | null {
  if (state.checkpoint.ended)
    return `the run has already ended (${state.checkpoint.ended.type}: ${state.checkpoint.ended.reason})`;
  const p = state.nodes.get(node);
  if (!p || !graph.nodes.some((n) => n.id === node)) {
    return `"${node}" is not a node of ${graph.name}${suggestion(
      node,
      graph.nodes.map((n) => n.id),
    )}`;
  }
  if (p.state !== 'held' && p.state !== 'escalated') {
    return `node "${node}" is ${p.state.replace('_', ' ')}, not held or escalated: there is nothing to settle`;
  }
  if (attempt !== undefined && attempt !== waitingAttempt(p)) {
    return `the approval names attempt ${attempt}, but node "${node}" is waiting on attempt ${waitingAttempt(p)}`;
  }
  return null;
}

/** A named person approves a new attempt of a held or escalated node. */
export function approveRerun(graph: Graph, state: RunState, req: ApprovalRequest): Settlement {
  const why =
    checkNode(graph, state, req.node, req.attempt) ??
    selfApprovalRefusal(state, req) ??
    guidanceRefusal(req.guidance);
  if (why) return { ok: false, reason: why };
  if (req.graph_hash !== undefined && req.graph_hash !== state.accepted_hash) {
    return {
      ok: false,
      reason: `the graph changed since this approval was asked for (${req.graph_hash} → ${state.accepted_hash})`,
    };
  }
  if (isDeliverySource(req.source) && state.approval_sources.includes(req.source)) {
    return {
      ok: false,
      reason: `this approval (${req.source}) is already in the journal: one comment approves once`,
    };
  }
  const p = state.nodes.get(req.node)!;
  const required = req.required ?? 1;
  if (p.approvals.includes(req.by)) {
    return {
      ok: false,
      reason: `${req.by} has already approved attempt ${waitingAttempt(p)} of "${req.node}" (${p.approvals.length} of ${required} approvals): another person must approve`,
    };
  }
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

/** A person records a held or escalated node as done (they checked its side effect happened). */
export function settleNode(
  graph: Graph,
  journal: Journal,
  state: RunState,
  req: { node: string; attempt?: number; by: string; note: string; source: string },
): Settlement {
  const why = checkNode(graph, state, req.node, req.attempt);
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
      outputs: {},
      usage,
      recorded_by: req.by,
      note: req.note,
    },
  ];
  return { ok: true, events: withCompletion(graph, journal, events) };
}

/** A person ends the run as failed. */
export function failRun(state: RunState, req: { by: string; reason: string }): Settlement {
  if (state.checkpoint.ended)
    return { ok: false, reason: `the run has already ended (${state.checkpoint.ended.type})` };
  if (!req.reason.trim()) return { ok: false, reason: 'fail-run needs a reason' };
  return { ok: true, events: [{ type: 'RunFailed', reason: req.reason, by: req.by }] };
}

/** What recovery learned about one in-flight attempt's executor. */
export interface Probe {
  gone: boolean;
  why: string;
  /** Usage observed so far: a lower bound. */
  observed_ms: number;
}

/** Rule 3: every in-flight attempt whose executor is provably gone becomes NodeInterrupted. */
export function recoverEvents(
  state: RunState,
  probe: (node: string, dispatch: DispatchInfo) => Probe,
  by: string,
): { events: NewEvent[]; left: Array<{ node: string; why: string }> } {
  const events: NewEvent[] = [];
  const left: Array<{ node: string; why: string }> = [];
  if (state.checkpoint.ended) return { events, left };
  for (const id of state.checkpoint.active_nodes) {
    const d = state.nodes.get(id)?.dispatch;
    if (!d) continue;
    const r = probe(id, d);
    if (r.gone) {
      events.push({
        type: 'NodeInterrupted',
        node: id,
        attempt: d.attempt,
        observed_usage: { wall_ms: r.observed_ms },
        by,
      });
    } else left.push({ node: id, why: r.why });
  }
  return { events, left };
}

/** Rule 6: a run refuses to go on under a changed graph unless a named person allows it. */
export function graphChange(graph: Graph, state: RunState, allowedBy: string | undefined): Settlement {
  if (graph.hash === state.accepted_hash) return { ok: true, events: [] };
  if (!allowedBy) {
    return {
      ok: false,
      reason: `the graph changed since the run started (${state.accepted_hash} → ${graph.hash}); pass --allow-graph-change to go on under the new graph (it is recorded), or start a new run id`,
    };
  }
  return {
    ok: true,
    events: [{ type: 'GraphChangeAllowed', from: state.accepted_hash, to: graph.hash, by: allowedBy }],
  };
}
