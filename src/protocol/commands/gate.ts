/**
 * The gate before a node (`approval: before`) and the rules every approval shares: a gated node that never ran
 * waits for people (`NodeAwaitingApproval`) instead of being dispatched; `/approve` counts one person
 * (`NodeApproved`), bound to the node and the graph hash, refused when the node is not awaiting, when the person
 * already approved, or when they started the run under `prevent_self_approval`. Pure.
 */
import { suggestion } from '../../graph/errors.js';
import { type Graph, type GraphNode, nodeById } from '../../graph/model.js';
import type { NewEvent } from '../../journal/events/events.js';
import { attemptsThisRound, type NodeProgress, type RunState } from '../../journal/state.js';
import type { Run } from '../run.js';
import { type ApprovalTerms, approvalRefusal } from './approval-rules.js';
import type { CommandEvents } from './person-commands.js';

/** The events that stop a gated node before its first attempt; undefined when it may be dispatched. */
export function gateEvents(graph: Graph, node: GraphNode, p: NodeProgress): NewEvent[] | undefined {
  if (node.approval !== 'before' || attemptsThisRound(p) !== 0 || p.gate_passed) return undefined;
  return [{ type: 'NodeAwaitingApproval', node: node.id, graph_hash: graph.hash }];
}

/** One approval of a gated node (or of a rerun): who, where, and what they were bound to. */
export interface NodeApprovalRequest extends ApprovalTerms {
  node: string;
  /** Distinct people who must approve (the strictest `required` of repository, graph and node). */
  required: number;
}

function awaitingRefusal(graph: Graph, state: RunState, node: string): string | null {
  const cp = state.checkpoint;
  if (cp.ended) return `the run has already ended (${cp.ended.type}: ${cp.ended.reason})`;
  const p = state.nodes.get(node);
  if (!p || !nodeById(graph, node))
    return `"${node}" is not a node of ${graph.name}${suggestion(
      node,
      graph.nodes.map((n) => n.id),
    )}`;
  if (p.state !== 'awaiting_approval') {
    const hint =
      p.state === 'held' || p.state === 'escalated'
        ? ': use /approve-rerun for a held or escalated node'
        : '';
    return `node "${node}" is ${p.state.replace('_', ' ')}, not awaiting approval${hint}`;
  }
  return null;
}

/** A named person approves a gated node of `run` awaiting approval; enough distinct approvals let it run. */
export function approveNode(req: NodeApprovalRequest & { run: Run }): CommandEvents {
  const { graph, state } = req.run;
  const why =
    awaitingRefusal(graph, state, req.node) ??
    approvalRefusal(state, req, {
      what: `"${req.node}"`,
      approvers: state.nodes.get(req.node)!.approvals,
      required: req.required,
    });
  if (why) return { ok: false, reason: why };
  return {
    ok: true,
    events: [
      {
        type: 'NodeApproved',
        node: req.node,
        approved_by: req.by,
        source: req.source,
        graph_hash: state.accepted_hash,
        required: req.required,
        ...(req.guidance ? { guidance: req.guidance } : {}),
      },
    ],
  };
}
