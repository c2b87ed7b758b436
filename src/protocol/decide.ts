import { type ExpressionContext, evaluateCondition } from '../expressions/evaluate.js';
import { type Approach, approachFor, type Graph, type GraphNode, nodeById } from '../graph/model.js';
import type {
  EscalationReport,
  Evidence,
  Failure,
  Journal,
  NewEvent,
  RunnerInfo,
  Usage,
} from '../journal/events.js';
import { fold, type NodeProgress, type RunState } from '../journal/fold.js';
import { appendEvents } from '../journal/parse.js';

/** What the attempt is told about its situation (`INTERLOCK_CONTEXT`, and appended to prompts). */
export interface AttemptContext {
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
}

export type Decision =
  | { kind: 'ended'; status: 'completed' | 'failed'; reason: string }
  | { kind: 'complete'; events: NewEvent[] }
  | { kind: 'skip'; node: string; events: NewEvent[] }
  | {
      kind: 'dispatch';
      node: GraphNode;
      attempt: number;
      approach: Approach;
      context: AttemptContext;
      events: NewEvent[];
    }
  | { kind: 'precheck_failed'; node: string; attempt: number; events: NewEvent[] }
  | { kind: 'blocked'; reason: string };

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

function describeWork(a: Approach): string {
  if (a.run !== undefined) return `run: ${a.run.trim().split('\n')[0]}`;
  return `prompt to ${a.agent}${a.skill ? ` (skill ${a.skill})` : ''}`;
}

/** The context for the next attempt of a node, from what the fold knows. */
export function attemptContext(
  runId: string,
  node: string,
  attempt: number,
  approach: Approach,
  p: NodeProgress,
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
  };
}

/** Decides what happens next: the ready node to dispatch (or skip), completion, or why the run waits. */
export function decideNext(
  graph: Graph,
  journal: Journal,
  state: RunState,
  runner: RunnerInfo,
  only?: string,
): Decision {
  const cp = state.checkpoint;
  if (cp.ended) {
    return {
      kind: 'ended',
      status: cp.ended.type === 'RunCompleted' ? 'completed' : 'failed',
      reason: cp.ended.reason,
    };
  }
  const allDone = graph.nodes.every((n) => {
    const s = state.nodes.get(n.id)?.state;
    return s === 'completed' || s === 'skipped';
  });
  if (allDone) {
    return {
      kind: 'complete',
      events: [{ type: 'RunCompleted', reason: 'every node completed or skipped', by: 'interlock' }],
    };
  }
  let candidates = cp.ready_nodes;
  if (only !== undefined) {
    if (!nodeById(graph, only)) return { kind: 'blocked', reason: `node "${only}" is not in the graph` };
    if (!candidates.includes(only))
      return { kind: 'blocked', reason: `node "${only}" is not ready: ${whyNotReady(graph, state, only)}` };
    candidates = [only];
  }
  const id = candidates[0];
  if (id === undefined) return { kind: 'blocked', reason: blockedReason(state) };
  const node = nodeById(graph, id)!;
  const p = state.nodes.get(id)!;
  const attempt = p.attempts + 1;
  const approach = approachFor(node, p.failures);
  const dispatch: NewEvent = {
    type: 'NodeDispatched',
    node: id,
    attempt,
    replay: node.replay,
    approach: approach.label,
    runner,
  };

  if (node.execute_conditions.length > 0 && (p.attempts === 0 || failedPrecheck(p))) {
    const ctx = expressionContext(graph, state, attempt);
    const errors: Failure[] = [];
    let anyTrue = false;
    for (const c of node.execute_conditions) {
      try {
        if (evaluateCondition(c, ctx)) anyTrue = true;
      } catch (e) {
        errors.push({
          check: 'execute_conditions',
          message: `condition "${c}" could not be evaluated: ${(e as Error).message}`,
        });
      }
    }
    if (errors.length) {
      const failed: NewEvent = {
        type: 'NodeFailed',
        node: id,
        attempt,
        failures: errors,
        usage: { wall_ms: 0 },
      };
      const escalation =
        p.failures + 1 >= p.budget
          ? [escalationEvent(graph, node, state, attempt, approach, errors, journal)]
          : [];
      return { kind: 'precheck_failed', node: id, attempt, events: [dispatch, failed, ...escalation] };
    }
    if (!anyTrue) {
      return {
        kind: 'skip',
        node: id,
        events: [
          {
            type: 'NodeSkipped',
            node: id,
            reason: `no execute_condition was true (${node.execute_conditions.join(' | ')})`,
          },
        ],
      };
    }
  }
  return {
    kind: 'dispatch',
    node,
    attempt,
    approach,
    context: attemptContext(cp.run_id, id, attempt, approach, p),
    events: [dispatch],
  };
}

/**
 * The last attempt failed its pre-check (a condition could not be evaluated), so its conditions have never
 * been true: the next attempt is pre-checked again rather than running the work unchecked.
 */
export function failedPrecheck(p: NodeProgress): boolean {
  return (
    !p.interrupted &&
    p.last_failures.length > 0 &&
    p.last_failures.every((f) => f.check === 'execute_conditions')
  );
}

export function whyNotReady(graph: Graph, state: RunState, id: string): string {
  const p = state.nodes.get(id);
  const node = nodeById(graph, id);
  if (!p || !node) return 'unknown node';
  if (p.state !== 'pending') return `it is ${p.state.replace('_', ' ')}`;
  const waiting = node.depends_on.filter((d) => {
    const s = state.nodes.get(d)?.state;
    return s !== 'completed' && s !== 'skipped';
  });
  if (waiting.length) return `it waits for ${waiting.map((w) => `"${w}"`).join(', ')}`;
  return 'the run has ended';
}

function blockedReason(state: RunState): string {
  const cp = state.checkpoint;
  const parts: string[] = [];
  if (cp.active_nodes.length) parts.push(`in flight: ${cp.active_nodes.join(', ')}`);
  if (cp.held_nodes.length) parts.push(`held (needs approve-rerun or settle): ${cp.held_nodes.join(', ')}`);
  if (cp.escalated_nodes.length) parts.push(`escalated (needs a person): ${cp.escalated_nodes.join(', ')}`);
  return parts.length ? parts.join('; ') : 'no node is ready';
}

/** The outcome of an attempt, gathered by the shell. */
export interface AttemptOutcome {
  failures: Failure[];
  evidence: Evidence[];
  outputs: Record<string, string>;
  usage: Usage;
  output_tail?: string;
}

export type ResultDecision =
  | { kind: 'write'; events: NewEvent[]; recorded: boolean; escalated: boolean }
  | { kind: 'stale'; reason: string; events: [] };

/** Turns an attempt's outcome into the events to append: recorded, or failed (and escalated after the last attempt). */
export function decideResult(
  graph: Graph,
  journal: Journal,
  state: RunState,
  nodeId: string,
  attempt: number,
  outcome: AttemptOutcome,
): ResultDecision {
  const p = state.nodes.get(nodeId);
  const node = nodeById(graph, nodeId);
  const ended = state.checkpoint.ended;
  if (ended) {
    // The fold refuses any event after the end: writing the result would leave a journal nobody can read.
    return {
      kind: 'stale',
      events: [],
      reason: `the run ended (${ended.type}: ${ended.reason}) while node "${nodeId}" attempt ${attempt} was in flight; its result was not recorded`,
    };
  }
  if (!p || !node || p.state !== 'in_flight' || p.dispatch?.attempt !== attempt) {
    return {
      kind: 'stale',
      events: [],
      reason: `node "${nodeId}" attempt ${attempt} is no longer in flight (it is ${p?.state.replace('_', ' ') ?? 'unknown'}); its result was not recorded: settle it by hand if its work is done`,
    };
  }
  const tail = outcome.output_tail !== undefined ? { output_tail: outcome.output_tail } : {};
  if (outcome.failures.length === 0) {
    const events: NewEvent[] = [
      {
        type: 'NodeRecorded',
        node: nodeId,
        attempt,
        evidence: outcome.evidence,
        outputs: outcome.outputs,
        usage: outcome.usage,
        ...tail,
      },
    ];
    return {
      kind: 'write',
      events: withCompletion(graph, journal, events),
      recorded: true,
      escalated: false,
    };
  }
  const events: NewEvent[] = [
    {
      type: 'NodeFailed',
      node: nodeId,
      attempt,
      failures: outcome.failures,
      usage: outcome.usage,
      evidence: outcome.evidence,
      ...tail,
    },
  ];
  const escalated = p.failures + 1 >= p.budget;
  if (escalated) {
    events.push(
      escalationEvent(graph, node, state, attempt, approachFor(node, p.failures), outcome.failures, journal),
    );
  }
  return { kind: 'write', events, recorded: false, escalated };
}

/** The escalation report: what was attempted, what failed and why, the approaches tried, what is needed. */
function escalationEvent(
  _graph: Graph,
  node: GraphNode,
  _state: RunState,
  attempt: number,
  approach: Approach,
  failures: Failure[],
  journal?: Journal,
): NewEvent {
  const attempted: EscalationReport['attempted'] = [];
  const failed: EscalationReport['failed'] = [];
  for (const e of journal?.events ?? []) {
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
      needed: `A person decides: fix the cause and approve a rerun of "${node.id}", settle it as done if its work is already in place, or fail the run.`,
    },
  };
}

/** Appends RunCompleted to `events` when applying them resolves every node. */
export function withCompletion(graph: Graph, journal: Journal, events: NewEvent[]): NewEvent[] {
  const after = fold(appendEvents(journal, events, ''), graph);
  const done =
    !after.checkpoint.ended &&
    graph.nodes.every((n) => {
      const s = after.nodes.get(n.id)?.state;
      return s === 'completed' || s === 'skipped';
    });
  return done
    ? [...events, { type: 'RunCompleted', reason: 'every node completed or skipped', by: 'interlock' }]
    : events;
}
