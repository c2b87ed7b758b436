/**
 * The instances of `for_each` nodes in the fold (issue 28): which instances a node has, in item order; whether
 * it may be joined; the node order every checkpoint list keeps; and rule 1 for instances (`max_parallel`). The
 * reducers that make them are in expansion.ts.
 */

import type { GraphNode } from '../../graph/model.js';
import { instanceId, instanceNode, toleratedCount } from '../../graph/schema/for-each.js';
import { childNodes } from '../../graph/schema/subgraph.js';
import type { NodeProgress } from '../state.js';
import type { Folding } from './folding.js';

/** The instances of an expanded node, in item order, with their progress. */
export function instancesOf(f: Pick<Folding, 'nodes'>, node: string): [string, NodeProgress][] {
  const keys = f.nodes.get(node)?.expansion?.keys ?? [];
  return keys.map((k) => [instanceId(node, k), f.nodes.get(instanceId(node, k))!]);
}

/**
 * How a node ended for its parent's join: `done` (completed or skipped), `escalated`, or undefined while it runs
 * or waits. A sub-graph node none of whose children can go on (each ended, or waits on one that escalated), some
 * escalated, cannot finish by itself: it counts as escalated, so a `for_each` over sub-graphs may tolerate it.
 */
function endedForJoin(nodes: Map<string, NodeProgress>, spec: GraphNode): 'done' | 'escalated' | undefined {
  const p = nodes.get(spec.id);
  if (!p) return undefined;
  if (p.state === 'completed' || p.state === 'skipped') return 'done';
  if (p.state === 'escalated') return 'escalated';
  if (p.state !== 'expanded' || !p.expansion?.children) return undefined;
  const ended = new Map<string, 'done' | 'escalated' | 'blocked' | undefined>();
  for (const c of childNodes(spec)) {
    const own = endedForJoin(nodes, c);
    const stopped = c.depends_on.some((d) => ended.get(d) === 'escalated' || ended.get(d) === 'blocked');
    ended.set(c.id, own ?? (nodes.get(c.id)?.state === 'pending' && stopped ? 'blocked' : undefined));
  }
  const all = [...ended.values()];
  return all.every((x) => x !== undefined) && all.includes('escalated') ? 'escalated' : undefined;
}

/**
 * The join an expanded node may make now: every instance ended and at most `tolerated_failures` escalated (a
 * sub-graph node: every child completed or skipped); undefined while one runs, waits, or too many escalated.
 */
export function joinOf(
  nodes: Map<string, NodeProgress>,
  spec: GraphNode | undefined,
): { completed: string[]; tolerated: string[] } | undefined {
  if ((!spec?.for_each && !spec?.subgraph) || nodes.get(spec.id)?.state !== 'expanded') return undefined;
  if (!spec.for_each) {
    const children = childNodes(spec);
    return children.every((c) => endedForJoin(nodes, c) === 'done')
      ? { completed: children.map((c) => c.id), tolerated: [] }
      : undefined;
  }
  const keys = nodes.get(spec.id)?.expansion?.keys ?? [];
  const instances = keys.map((k) => instanceId(spec.id, k));
  const ended = keys.map((k) => endedForJoin(nodes, instanceNode(spec, k)));
  if (!ended.every((x) => x !== undefined)) return undefined;
  const tolerated = instances.filter((_, i) => ended[i] === 'escalated');
  if (tolerated.length > toleratedCount(spec.for_each, instances.length)) return undefined;
  return { completed: instances.filter((_, i) => ended[i] === 'done'), tolerated };
}

/**
 * The graph's nodes with what each expanded node made after it, depth first: its instances, or its child nodes,
 * each followed by its own. The order every checkpoint list keeps.
 */
export function expandedNodes(
  nodes: readonly GraphNode[],
  progressOf: Map<string, NodeProgress>,
): GraphNode[] {
  const out: GraphNode[] = [];
  const add = (n: GraphNode) => {
    out.push(n);
    const made = progressOf.get(n.id)?.expansion;
    if (!made) return;
    if (made.children) for (const c of childNodes(n)) add(c);
    else for (const instanceKey of made.keys) add(instanceNode(n, instanceKey));
  };
  for (const n of nodes) add(n);
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
    // A sub-graph instance is in flight from its expansion until its join.
    const running = (q: NodeProgress) => q.state === 'in_flight' || q.state === 'expanded';
    if (!free.has(of)) free.set(of, most - instancesOf(f, of).filter(([, q]) => running(q)).length);
    const left = free.get(of)!;
    free.set(of, left - 1);
    return left > 0;
  });
}
