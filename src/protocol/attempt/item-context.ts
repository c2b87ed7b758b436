/**
 * What expressions see of `for_each` (issue 28): an instance's `item` and `index` (its node's name then means the
 * instance itself, so `nodes.work.outputs` in its checks reads its own), and a `for_each` node's outputs as a list
 * in item order for its dependents (`null` for an instance that did not complete). Pure.
 */

import { type Graph, nodeById } from '../../graph/model.js';
import { instanceId } from '../../graph/schema/for-each.js';
import { childNodes } from '../../graph/schema/subgraph.js';
import type { RunState } from '../../journal/state.js';

/** An instance's `item`, `index` and own entry under its node's name; nothing for any other node. */
export function itemContext(
  state: RunState,
  node: string | undefined,
  nodes: Record<string, { status: string; outputs: unknown }>,
): { item?: unknown; index?: number } {
  const item = node === undefined ? undefined : state.nodes.get(node)?.item;
  if (!item) return {};
  const p = state.nodes.get(node!)!;
  nodes[item.of] = { status: p.state, outputs: p.outputs };
  return { item: item.value, index: item.index };
}

/** A `for_each` node's outputs: each instance's, in item order (`null` where it has none); empty before expansion. */
function instanceOutputs(state: RunState, node: string): (Record<string, string> | null)[] {
  const keys = state.nodes.get(node)?.expansion?.keys ?? [];
  return keys.map((k) => {
    const q = state.nodes.get(instanceId(node, k));
    return q?.state === 'completed' ? { ...q.outputs } : null;
  });
}

type NodesSeen = Record<string, { status: string; outputs: unknown }>;

/** The run's own graph's nodes as expressions see them: status and outputs (a `for_each` node's as a list). */
export function graphNodes(graph: Graph, state: RunState): NodesSeen {
  const nodes: NodesSeen = {};
  for (const n of graph.nodes) {
    const p = state.nodes.get(n.id);
    nodes[n.id] = {
      status: p?.state ?? 'pending',
      outputs: n.for_each ? instanceOutputs(state, n.id) : (p?.outputs ?? {}),
    };
  }
  return nodes;
}

/**
 * What a node of a sub-graph sees (`review/build`, `work[3]/build`): its graph's nodes under their own ids
 * (`nodes.build`, not `nodes.review/build`) over what its sub-graph node sees (the run's nodes, for one of the
 * run's graph), and the `item` and `index` of the instance it runs in, its own when it is an instance itself,
 * else the nearest enclosing one's. Undefined for a node of the run's own graph.
 */
export function scopeContext(
  graph: Graph,
  state: RunState,
  node: string,
): { nodes: NodesSeen; item?: unknown; index?: number } | undefined {
  const spec = nodeById(graph, node);
  if (!spec?.scope) return undefined;
  // What the sub-graph node itself sees, then its own graph's nodes over it (a name of its own graph wins).
  const outer = spec.scope.of;
  const nodes: NodesSeen = { ...(scopeContext(graph, state, outer)?.nodes ?? graphNodes(graph, state)) };
  for (const c of childNodes(nodeById(graph, outer)!)) {
    const p = state.nodes.get(c.id);
    nodes[c.scope!.id] = {
      status: p?.state ?? 'pending',
      outputs: c.for_each ? instanceOutputs(state, c.id) : (p?.outputs ?? {}),
    };
  }
  const own = state.nodes.get(node);
  if (own?.item) {
    nodes[nodeById(graph, own.item.of)!.scope!.id] = { status: own.state, outputs: own.outputs };
    return { nodes, item: own.item.value, index: own.item.index };
  }
  for (let s: string | undefined = spec.scope.of; s !== undefined; s = nodeById(graph, s)?.scope?.of) {
    const item = state.nodes.get(s)?.item;
    if (item) return { nodes, item: item.value, index: item.index };
  }
  return { nodes };
}
