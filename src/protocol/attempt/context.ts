/**
 * What an attempt is told and what expressions see: the attempt context (`INTERLOCK_CONTEXT`, appended to
 * prompts), the idempotency key, and the expression context of a run. Pure.
 */
import type { ExpressionContext } from '../../expressions/evaluate.js';
import type { Approach, Graph } from '../../graph/model.js';
import type { Failure } from '../../journal/events/fields.js';
import type { Guidance } from '../../journal/events/gates.js';
import type { NodeProgress, RunState } from '../../journal/state.js';
import type { Envelope } from './envelope.js';
import { graphNodes, itemContext, scopeContext } from './item-context.js';

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
  /** The loop's cycle (`repeat:`), from cycle 2 on. */
  cycle?: number;
  /** Set when the session this attempt was to resume could not be: why, and that it starts afresh. */
  fresh_session?: string;
}

/**
 * Whether this is the first attempt since the node last ran to completion (a loop's new cycle, its sub-graph's,
 * or a rerun): its last attempt completed, so it has no failures to address. Each starts afresh with no failures
 * and no interruption (reducers/loops-and-reruns.ts, reducers/subgraph-expansion.ts), while the last attempt
 * still counts.
 */
function startsAfresh(p: NodeProgress): boolean {
  const fresh = !p.interrupted && p.failures === 0 && p.last_failures.length === 0;
  return fresh && (p.cycle !== undefined || p.cycled === true || p.round_start === p.attempts);
}

/** The loop a node runs a cycle of: its own, or for a node of a looping sub-graph, that sub-graph node's. */
interface LoopOf {
  cycle: number;
  /** The looping sub-graph node, when the loop is not the node's own. */
  scope?: string;
}

/** What the first attempt of a new cycle or of a rerun is told about the attempt before it. */
function restarted(p: NodeProgress, loop: LoopOf | undefined): NonNullable<AttemptContext['previous']> {
  const whose = loop?.scope ? `of the loop of its sub-graph "${loop.scope}"` : 'of this loop';
  return {
    attempt: p.attempts,
    interrupted: false,
    statement: loop
      ? `Attempt ${p.attempts} completed cycle ${loop.cycle - 1} ${whose}, and its repeat.until was false: this is cycle ${loop.cycle}. Improve on the work of the last cycle.`
      : `Attempt ${p.attempts} completed; a person asked for this node to run again (rerun-from). Check the current state before repeating any of its work.`,
    failures: [],
  };
}

/** The sub-graph nodes a node runs inside, outermost first: `work[3]` for `work[3]/build`. */
function enclosing(node: string): string[] {
  const parts = node.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * The idempotency key handed to every attempt of a node: the same across attempts, and another in each cycle
 * of a loop (`<run>/<node>/cycle-<n>` from cycle 2). A node of a sub-graph (`review/build`) has its sub-graph
 * node's key before its own id, so each cycle of a looping sub-graph gives its nodes new keys
 * (`<run>/review/cycle-2/build`); `cycleOf` gives each enclosing node's cycle. A node id has no `/`, and the
 * cycle part is never an id's, so no key names two nodes.
 */
export function idempotencyKey(o: {
  runId: string;
  node: string;
  cycle?: number | undefined;
  cycleOf?: (id: string) => number | undefined;
}): string {
  const { runId, node, cycle = 1, cycleOf = () => undefined } = o;
  const parts = node.split('/');
  const segments = parts.map((local, i) => {
    const c = i === parts.length - 1 ? cycle : (cycleOf(parts.slice(0, i + 1).join('/')) ?? 1);
    return c > 1 ? `${local}/cycle-${c}` : local;
  });
  return `${runId}/${segments.join('/')}`;
}

/**
 * The data expressions see: the triggering event, inputs, earlier nodes' outputs and status, the run (`attempt`:
 * 0 outside an attempt). For an instance of a `for_each` node (`node`), also its `item` and `index`
 * (item-context.ts).
 */
export function expressionContext(o: {
  graph: Graph;
  state: RunState;
  attempt?: number;
  node?: string | undefined;
}): ExpressionContext {
  const { graph, state, attempt = 0, node } = o;
  const run = { id: state.checkpoint.run_id, attempt };
  const scoped = node === undefined ? undefined : scopeContext(graph, state, node);
  if (scoped) return { github: state.github ?? {}, inputs: state.inputs, run, ...scoped };
  const nodes = graphNodes(graph, state);
  return {
    github: state.github ?? {},
    inputs: state.inputs,
    nodes,
    run,
    ...itemContext(state, node, nodes),
  };
}

/**
 * The context for the next attempt of `node`, from what the run's fold (`state`) knows of it and of the sub-graph
 * nodes it runs inside: their cycles make its key and its cycle, their guidance reaches it.
 */
export function attemptContext(o: {
  state: RunState;
  node: string;
  attempt: number;
  approach: Approach;
  envelope: Envelope;
}): AttemptContext {
  const { state, node, attempt, approach, envelope } = o;
  const runId = state.checkpoint.run_id;
  const p = state.nodes.get(node)!;
  const scopeOf = (id: string): NodeProgress | undefined => state.nodes.get(id);
  const scopes = enclosing(node);
  const looping = [...scopes].reverse().find((id) => (scopeOf(id)?.cycle ?? 1) > 1);
  const loop: LoopOf | undefined =
    p.cycle !== undefined
      ? { cycle: p.cycle }
      : p.cycled && looping !== undefined
        ? { cycle: scopeOf(looping)!.cycle!, scope: looping }
        : undefined;
  let previous: AttemptContext['previous'] = null;
  if (p.attempts > 0 && startsAfresh(p)) previous = restarted(p, loop);
  else if (p.attempts > 0) {
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
    idempotency_key: idempotencyKey({ runId, node, cycle: p.cycle, cycleOf: (id) => scopeOf(id)?.cycle }),
    ...(loop ? { cycle: loop.cycle } : {}),
    previous,
    // What people said approving the sub-graph nodes it runs inside reaches it too, before its own.
    guidance: [...scopes.flatMap((id) => scopeOf(id)?.guidance ?? []), ...(p.guidance ?? [])],
    ...envelope,
  };
}
