/**
 * The serialized mode (`sessions.<name>.serialized`): the ready chain of a session's nodes goes to the agent in
 * one call. Which nodes form the chain, their dispatches (all in one write, before the call), the chain's limits,
 * and what its result writes: each node recorded in order until the first that fails, which fails as one
 * attempt does, and every node after it given back (`NodeReturned`) to go on one node a call. Once a node of the
 * session failed, was returned or interrupted in the run, its nodes go one a call. Pure.
 */

import { type Approach, approachFor, type Graph, type GraphNode } from '../graph/model.js';
import type { Budget } from '../graph/schema/budget.js';
import type { Journal, NewEvent } from '../journal/events/events.js';
import type { RunnerInfo } from '../journal/events/fields.js';
import { fold } from '../journal/fold.js';
import { appendEvents } from '../journal/parse.js';
import { isResolved, type RunState } from '../journal/state.js';
import { type AttemptContext, attemptContext } from './attempt/context.js';
import { envelopeOf } from './attempt/envelope.js';
import { gateEvents } from './commands/gate.js';
import { type AttemptOutcome, decideResult, type ResultDecision } from './decide.js';

/** One node of a chain after its first: what its part of the call is. */
export interface ChainMember {
  node: GraphNode;
  attempt: number;
  approach: Approach;
  context: AttemptContext;
}

/** A prompt or env value that reads another node's outputs or status: it needs them recorded first. */
const readsNodes = (s: string) => /\$\{\{[^}]*\bnodes\b/.test(s);

/** Whether the session's chain is broken in this run: a node of it failed, was given back or interrupted. */
function broken(graph: Graph, journal: Journal, session: string): boolean {
  const members = new Set(graph.nodes.filter((n) => n.session?.name === session).map((n) => n.id));
  return journal.events.some(
    (e) =>
      (e.type === 'NodeFailed' || e.type === 'NodeReturned' || e.type === 'NodeInterrupted') &&
      members.has(e.node),
  );
}

/**
 * Whether two nodes would be given the same secrets (`node-credentials`): the call runs as the chain's first
 * node, so a node granted more, or less, must not ride in it. The caller's (the grants are the step's input).
 */
export type SameCredentials = (a: string, b: string) => boolean;

/** The hosts a node may reach, in one comparable form (none: the open network). */
const networkOf = (n: GraphNode) => (n.network ? JSON.stringify([...n.network.allow].sort()) : 'open');

/** Whether `m` may follow in the chain that `head` starts with `approach`. */
function joins(head: GraphNode, approach: Approach, m: GraphNode, chain: ChainRules): boolean {
  const { state, graph, sameCredentials } = chain;
  const p = state.nodes.get(m.id);
  if (p?.state !== 'pending' || p.attempts !== 0) return false;
  if (m.session?.name !== head.session?.name || m.effect || m.execute_conditions.length) return false;
  // The one call runs in the first node's network and with its secrets: a node with others runs alone.
  if (networkOf(m) !== networkOf(head) || !sameCredentials(head.id, m.id)) return false;
  if (gateEvents(graph, m, p)) return false;
  const a = approachFor(m, 0);
  if (a.prompt === undefined || a.engine !== approach.engine || a.agent !== approach.agent) return false;
  if (JSON.stringify(a.env) !== JSON.stringify(approach.env)) return false;
  return !readsNodes(a.prompt) && !Object.values(a.env).some(readsNodes);
}

interface ChainRules {
  state: RunState;
  graph: Graph;
  sameCredentials: SameCredentials;
}

/**
 * The ready chain that starts at `head` (which is ready and about to be dispatched): `head`, then, in declaration
 * order, each node of its session whose dependencies are all ended or earlier in the chain. Just `head` when its
 * session is not serialized, the attempt is a retry, or the session's chain already broke in this run.
 */
export function readyChain(
  graph: Graph,
  journal: Journal,
  state: RunState,
  head: GraphNode,
  approach: Approach,
  sameCredentials: SameCredentials = () => true,
): GraphNode[] {
  const session = head.session;
  if (!session?.serialized || !approach.engine || approach.prompt === undefined) return [head];
  if ((state.nodes.get(head.id)?.attempts ?? 0) !== 0 || broken(graph, journal, session.name)) return [head];
  const chain = [head];
  const inChain = new Set([head.id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const m of graph.nodes) {
      if (inChain.has(m.id) || !joins(head, approach, m, { state, graph, sameCredentials })) continue;
      const ok = m.depends_on.every((d) => inChain.has(d) || isResolved(state.nodes.get(d)?.state));
      if (!ok) continue;
      chain.push(m);
      inChain.add(m.id);
      grew = true;
      break;
    }
  }
  return chain;
}

/** The dispatch events of a chain (the first node's included) and the chain's members after the first. */
export function chainDispatch(
  graph: Graph,
  journal: Journal,
  state: RunState,
  chain: GraphNode[],
  runner: RunnerInfo,
): { events: NewEvent[]; members: ChainMember[] } {
  const head = chain[0]!;
  const session = head.session!.name;
  const events: NewEvent[] = [];
  const members: ChainMember[] = [];
  chain.forEach((n, i) => {
    const approach = approachFor(n, 0);
    events.push({
      type: 'NodeDispatched',
      node: n.id,
      attempt: 1,
      replay: n.replay,
      approach: approach.label,
      runner,
      chain: { session, first: head.id, position: i + 1 },
    });
    if (i === 0) return;
    const p = state.nodes.get(n.id)!;
    const envelope = envelopeOf(graph, journal, state, n);
    members.push({
      node: n,
      attempt: 1,
      approach,
      context: attemptContext(state.checkpoint.run_id, n.id, 1, approach, p, envelope, (scope) =>
        state.nodes.get(scope),
      ),
    });
  });
  return { events, members };
}

/** Each limit set by every node of the chain, summed: what the one call may use. */
export function chainBudget(nodes: readonly GraphNode[]): Budget | undefined {
  const out: Budget = {};
  for (const k of ['cost_usd', 'tokens', 'turns', 'wall_minutes'] as const) {
    if (nodes.every((n) => n.budget?.[k] !== undefined))
      out[k] = nodes.reduce((s, n) => s + n.budget![k]!, 0);
  }
  return Object.keys(out).length ? out : undefined;
}

/** The chain's timeout: the sum of its nodes' first approaches' timeouts. */
export function chainTimeoutMinutes(nodes: readonly GraphNode[]): number {
  return nodes.reduce((s, n) => s + approachFor(n, 0).timeout_minutes, 0);
}

/** One node of the chain as the call left it: its outcome, or none when it was not checked. */
export interface ChainOutcome {
  node: string;
  attempt: number;
  outcome: AttemptOutcome;
}

/**
 * What the chain's result writes: the outcomes in chain order (the call's usage on the first), each recorded
 * until the first that fails, which is failed as one attempt would be (and escalated after its last); every node
 * of the chain after it, checked or not, is given back. The first node's budget is the chain's (`chainBudget`).
 */
export function decideChainResult(
  graph: Graph,
  journal: Journal,
  state: RunState,
  chain: readonly { node: string; attempt: number }[],
  outcomes: readonly ChainOutcome[],
): { decisions: ResultDecision[]; events: NewEvent[]; recorded: number } {
  let j = journal;
  let s = state;
  const events: NewEvent[] = [];
  const decisions: ResultDecision[] = [];
  let recorded = 0;
  const nodes = chain.map((c) => graph.nodes.find((n) => n.id === c.node)!);
  for (const [i, o] of outcomes.entries()) {
    const budget = i === 0 ? { budget: chainBudget(nodes) } : {};
    const d = decideResult(graph, j, s, o.node, o.attempt, o.outcome, budget);
    decisions.push(d);
    // The run ended meanwhile: nothing more is written (the fold refuses any event after the end).
    if (d.kind === 'stale') return { decisions, events, recorded };
    events.push(...d.events);
    j = appendEvents(j, d.events, '');
    s = fold(j, graph);
    if (!d.recorded) break;
    recorded += 1;
  }
  if (recorded < chain.length) {
    const failed = outcomes[recorded]?.node ?? chain[recorded]!.node;
    for (const c of chain.slice(recorded + 1)) {
      if (s.nodes.get(c.node)?.state !== 'in_flight') continue;
      events.push({
        type: 'NodeReturned',
        node: c.node,
        attempt: c.attempt,
        reason: `"${failed}", earlier in its serialized chain, did not pass: it goes on one node a call`,
      });
    }
  }
  return { decisions, events, recorded };
}
