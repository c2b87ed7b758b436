/**
 * The serialized mode's dispatch (`sessions.<name>.serialized`): which ready nodes of a session form the chain
 * that goes to the agent in one call, and their dispatches, all in one write before the call. What the chain's
 * result writes is in serialized.ts. Pure.
 */

import { type Approach, approachFor, type Graph, type GraphNode } from '../graph/model.js';
import type { Journal, NewEvent } from '../journal/events/events.js';
import type { RunnerInfo } from '../journal/events/fields.js';
import { isResolved, type RunState } from '../journal/state.js';
import { type AttemptContext, attemptContext } from './attempt/context.js';
import { envelopeOf } from './attempt/envelope.js';
import { gateEvents } from './commands/gate.js';
import type { Run } from './run.js';

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
  run: Run,
  head: GraphNode,
  approach: Approach,
  sameCredentials: SameCredentials = () => true,
): GraphNode[] {
  const { graph, journal, state } = run;
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
  run: Run,
  chain: GraphNode[],
  runner: RunnerInfo,
): { events: NewEvent[]; members: ChainMember[] } {
  const { state } = run;
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
    const envelope = envelopeOf(run, n);
    members.push({
      node: n,
      attempt: 1,
      approach,
      context: attemptContext({ state, node: n.id, attempt: 1, approach, envelope }),
    });
  });
  return { events, members };
}
