/**
 * The instances of `for_each` nodes in the fold (issue 28): which instances a node has, in item order; whether
 * it may be joined; the node order every checkpoint list keeps; and rule 1 for instances (`max_parallel`). The
 * reducers that make them are in expansion-reducers.ts.
 */
import { instanceId, instanceNode, toleratedCount } from '../graph/for-each-schema.js';
import type { GraphNode } from '../graph/model.js';
import type { Folding } from './reducers.js';
import type { NodeProgress } from './state.js';

/** The instances of an expanded node, in item order, with their progress. */
export function instancesOf(f: Pick<Folding, 'nodes'>, node: string): [string, NodeProgress][] {
  const keys = f.nodes.get(node)?.expansion?.keys ?? [];
  return keys.map((k) => [instanceId(node, k), f.nodes.get(instanceId(node, k))!]);
}

/** Whether an instance has ended for its join: completed, skipped, or escalated (which may be tolerated). */
function endedForJoin(p: NodeProgress): boolean {
  return p.state === 'completed' || p.state === 'skipped' || p.state === 'escalated';
}

/**
 * The join an expanded node may make now: every instance ended and at most `tolerated_failures` escalated;
 * undefined while one runs, waits, or too many escalated.
 */
export function joinOf(
  nodes: Map<string, NodeProgress>,
  spec: GraphNode | undefined,
): { completed: string[]; tolerated: string[] } | undefined {
  if (!spec?.for_each || nodes.get(spec.id)?.state !== 'expanded') return undefined;
  const instances = instancesOf({ nodes }, spec.id);
  if (!instances.every(([, q]) => endedForJoin(q))) return undefined;
  const tolerated = instances.filter(([, q]) => q.state === 'escalated').map(([id]) => id);
  if (tolerated.length > toleratedCount(spec.for_each, instances.length)) return undefined;
  return { completed: instances.filter(([, q]) => q.state !== 'escalated').map(([id]) => id), tolerated };
}

/** The graph's nodes with each expanded node's instances after it: the order every checkpoint list keeps. */
export function expandedNodes(
  nodes: readonly GraphNode[],
  progressOf: Map<string, NodeProgress>,
): GraphNode[] {
  const out: GraphNode[] = [];
  for (const n of nodes) {
    out.push(n);
    for (const key of progressOf.get(n.id)?.expansion?.keys ?? []) out.push(instanceNode(n, key));
  }
  return out;
}

/**
 * Rule 1 for instances and their node: an expanded node is ready only to be joined; an instance is not ready
 * while its node's `max_parallel` instances are in flight (nor past the free places, in item order).
 */
export function readyWithin(f: Pick<Folding, 'nodes' | 'specs'>, ready: string[]): string[] {
  const free = new Map<string, number>();
  return ready.filter((id) => {
    const p = f.nodes.get(id)!;
    if (p.state === 'expanded') return joinOf(f.nodes, f.specs.get(id)) !== undefined;
    const of = p.item?.of;
    const most = of === undefined ? undefined : f.specs.get(of)?.for_each?.max_parallel;
    if (of === undefined || most === undefined) return true;
    if (!free.has(of))
      free.set(of, most - instancesOf(f, of).filter(([, q]) => q.state === 'in_flight').length);
    const left = free.get(of)!;
    free.set(of, left - 1);
    return left > 0;
  });
}
