/**
 * The serialized mode (`sessions.<name>.serialized`): the ready chain of a session's nodes goes to the agent in
 * one call (which nodes, and their dispatches: chain-dispatch.ts). Here: the chain's limits, and what its result
 * writes: each node recorded in order until the first that fails, which fails as one attempt does, and every node
 * after it given back (`NodeReturned`) to go on one node a call. Once a node of the session failed, was returned
 * or interrupted in the run, its nodes go one a call. Pure.
 */

import { approachFor, type GraphNode } from '../graph/model.js';
import type { Budget } from '../graph/schema/budget.js';
import type { NewEvent } from '../journal/events/events.js';
import { type AttemptOutcome, decideResult, type ResultDecision } from './decide.js';
import { type Run, withEvents } from './run.js';

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
  from: Run,
  chain: readonly { node: string; attempt: number }[],
  outcomes: readonly ChainOutcome[],
): { decisions: ResultDecision[]; events: NewEvent[]; recorded: number } {
  let run = from;
  const events: NewEvent[] = [];
  const decisions: ResultDecision[] = [];
  let recorded = 0;
  const nodes = chain.map((c) => from.graph.nodes.find((n) => n.id === c.node)!);
  for (const [i, o] of outcomes.entries()) {
    const limits = i === 0 ? { budget: chainBudget(nodes) } : {};
    const d = decideResult(run, { node: o.node, attempt: o.attempt, outcome: o.outcome, limits });
    decisions.push(d);
    // The run ended meanwhile: nothing more is written (the fold refuses any event after the end).
    if (d.kind === 'stale') return { decisions, events, recorded };
    events.push(...d.events);
    run = withEvents(run, d.events);
    if (!d.recorded) break;
    recorded += 1;
  }
  if (recorded < chain.length) {
    const failed = outcomes[recorded]?.node ?? chain[recorded]!.node;
    for (const c of chain.slice(recorded + 1)) {
      if (run.state.nodes.get(c.node)?.state !== 'in_flight') continue;
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
