/**
 * What an attempt is told and what expressions see: the attempt context (`INTERLOCK_CONTEXT`, appended to
 * prompts), the idempotency key, and the expression context of a run. Pure.
 */
import type { ExpressionContext } from '../expressions/evaluate.js';
import type { Approach, Graph } from '../graph/model.js';
import type { Failure } from '../journal/event-fields.js';
import type { Guidance } from '../journal/gate-events.js';
import type { NodeProgress, RunState } from '../journal/state.js';
import type { Envelope } from './envelope.js';

/** What the attempt is told about its situation (`INTERLOCK_CONTEXT`, and appended to prompts as text). */
export interface AttemptContext extends Envelope {
  run_id: string;
  node: string;
  attempt: number;
  approach: string;
  idempotency_key: string;
  previous: null | {
    attempt: number;
    interrupted: boolean;
    statement: string;
    failures: Failure[];
  };
  /** What people said with their approvals of this node, in order (`/approve`, `/approve-rerun`, `--guidance`). */
  guidance: Guidance[];
  /** Set when the session this attempt was to resume could not be: why, and that it starts afresh. */
  fresh_session?: string;
}

/** The idempotency key handed to every attempt of a node: the same across attempts. */
export function idempotencyKey(runId: string, node: string): string {
  return `${runId}/${node}`;
}

/** The data expressions see: the triggering event, inputs, earlier nodes' outputs and status, the run. */
export function expressionContext(graph: Graph, state: RunState, attempt = 0): ExpressionContext {
  const nodes: Record<string, { status: string; outputs: Record<string, string> }> = {};
  for (const n of graph.nodes) {
    const p = state.nodes.get(n.id);
    nodes[n.id] = { status: p?.state ?? 'pending', outputs: p?.outputs ?? {} };
  }
  return {
    github: state.github ?? {},
    inputs: state.inputs,
    nodes,
    run: { id: state.checkpoint.run_id, attempt },
  };
}

/** The context for the next attempt of a node, from what the fold knows. */
export function attemptContext(
  runId: string,
  node: string,
  attempt: number,
  approach: Approach,
  p: NodeProgress,
  envelope: Envelope,
): AttemptContext {
  let previous: AttemptContext['previous'] = null;
  if (p.attempts > 0) {
    previous = {
      attempt: p.attempts,
      interrupted: p.interrupted,
      statement: p.interrupted
        ? `Attempt ${p.attempts} was interrupted and may have partly run. Check the current state before repeating any of its work.`
        : `Attempt ${p.attempts} failed. Its failures are listed here; address them${approach.label === 'retry[1]' ? ' with this different approach' : ''}.`,
      failures: p.interrupted ? [] : p.last_failures,
    };
  }
  return {
    run_id: runId,
    node,
    attempt,
    approach: approach.label,
    idempotency_key: idempotencyKey(runId, node),
    previous,
    guidance: p.guidance ?? [],
    ...envelope,
  };
}
