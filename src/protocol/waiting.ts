/**
 * Why a run waits, in words: why one node is not ready (`node "x" is not ready: …`), and what the run waits
 * for when nothing is ready. Pure.
 */
import { type Graph, nodeById } from '../graph/model.js';
import { isResolved, type RunState, stateWords } from '../journal/state.js';
import { expansionWhyNotReady } from './expansion.js';

/** Why `node` is not ready in the run (its graph and state). */
export function whyNotReady(o: { graph: Graph; state: RunState; node: string }): string {
  const { graph, state, node: id } = o;
  const p = state.nodes.get(id);
  const node = nodeById(graph, id);
  // An instance and a for_each node have reasons of their own (protocol/expansion.ts), an instance even
  // before it exists.
  const expansion = expansionWhyNotReady(o);
  if (expansion) return expansion;
  if (!p || !node) return 'unknown node';
  if (p.state !== 'pending') return `it is ${stateWords(p.state)}`;
  const waiting = node.depends_on.filter((d) => !isResolved(state.nodes.get(d)?.state));
  if (waiting.length) return `it waits for ${waiting.map((w) => `"${w}"`).join(', ')}`;
  return 'the run has ended';
}

export function blockedReason(state: RunState): string {
  const cp = state.checkpoint;
  const parts: string[] = [];
  if (cp.active_nodes.length) parts.push(`in flight: ${cp.active_nodes.join(', ')}`);
  if (cp.held_nodes.length) parts.push(`held (needs approve-rerun or settle): ${cp.held_nodes.join(', ')}`);
  if (cp.escalated_nodes.length) parts.push(`escalated (needs a person): ${cp.escalated_nodes.join(', ')}`);
  if (cp.awaiting_approval_nodes)
    parts.push(`awaiting approval (needs approve): ${cp.awaiting_approval_nodes.join(', ')}`);
  return parts.length ? parts.join('; ') : 'no node is ready';
}
