/**
 * What expressions see of `for_each` (issue 28): an instance's `item` and `index` (its node's name then means the
 * instance itself, so `nodes.work.outputs` in its checks reads its own), and a `for_each` node's outputs as a list
 * in item order for its dependents (`null` for an instance that did not complete). Pure.
 */
import { instanceId } from '../graph/for-each-schema.js';
import type { RunState } from '../journal/state.js';

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
export function instanceOutputs(state: RunState, node: string): (Record<string, string> | null)[] {
  const keys = state.nodes.get(node)?.expansion?.keys ?? [];
  return keys.map((k) => {
    const q = state.nodes.get(instanceId(node, k));
    return q?.state === 'completed' ? { ...q.outputs } : null;
  });
}
