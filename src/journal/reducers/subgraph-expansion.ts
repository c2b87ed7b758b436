/**
 * The fold's part of sub-graphs (issue 28). `NodeExpanded` with `graph` turns a ready sub-graph node into its
 * child nodes (`<node>/<child>`, each a node of its own from then on); the node's join waits for every child. A
 * node that runs again (a loop's next cycle, a rerun from a node) takes everything expanded under it along:
 * each child starts afresh, keeping its attempts' numbers, and a `for_each` node is expanded anew.
 */

import type { GraphNode } from '../../graph/model.js';
import { childNodes } from '../../graph/schema/subgraph.js';
import type { EventOf } from '../events/events.js';
import { type NodeProgress, newProgress } from '../state.js';
import type { At, Folding } from './folding.js';
import { startRound } from './rounds.js';

/** How a node comes to run again: a loop's next cycle (no approval needed), or a rerun (approvals start over). */
type Again = 'cycle' | 'rerun';

/**
 * Node `id` runs again as new attempts: its outputs cleared (they stay in the journal), its retries fresh. On a
 * rerun no approval is carried over: a `replay: never` node that ran is held for `/approve-rerun`. A sub-graph
 * node's children run again with it; a `for_each` node is expanded anew (its list made again), its instances
 * keeping their progress for the next expansion (`reusedProgress`).
 */
export function runAgain(f: Folding, id: string, again: Again): void {
  const p = f.nodes.get(id)!;
  const spec = f.specs.get(id)!;
  startRound(f, id, p, 'fresh');
  p.round_start = p.attempts;
  p.outputs = {};
  p.last_evidence = [];
  delete p.cycle;
  delete p.gate_passed;
  delete p.rerun_hold;
  if (again === 'cycle') p.cycled = true;
  else delete p.cycled;
  if (p.expansion && spec.for_each) {
    delete p.expansion;
    p.again = again;
    p.state = 'pending';
    return;
  }
  if (p.expansion) {
    delete p.expansion.tolerated;
    p.state = 'expanded';
    for (const child of p.expansion.children ?? []) runAgain(f, child, again);
    return;
  }
  const held = again === 'rerun' && spec.approval !== 'before' && spec.replay === 'never' && p.attempts > 0;
  p.state = held ? 'held' : 'pending';
  if (held) p.rerun_hold = true;
}

/**
 * The progress a node made by an expansion starts with: new, or, when an earlier expansion made it (a rerun, a
 * loop's cycle), that one run again, so its attempts keep counting and the journal never has two attempts 1.
 */
export function reusedProgress(f: Folding, node: GraphNode, again: Again | undefined): NodeProgress {
  f.specs.set(node.id, node);
  const before = f.nodes.get(node.id);
  if (!before) {
    const q = newProgress(node.approaches.length);
    f.nodes.set(node.id, q);
    return q;
  }
  runAgain(f, node.id, again ?? 'rerun');
  return before;
}

/** A sub-graph node's expansion: the graph the event names must be the one the run's graph holds. */
export function expandSubgraph(f: Folding, e: EventOf<'NodeExpanded'>, spec: GraphNode, at: At): void {
  const p = f.nodes.get(e.node)!;
  if (e.items !== undefined) at.bad(`node "${e.node}" has no for_each, so its expansion lists no items`);
  const ids: string[] = [];
  for (const child of childNodes(spec)) {
    reusedProgress(f, child, p.again);
    ids.push(child.id);
  }
  p.state = 'expanded';
  p.expansion = { keys: [], values: [], children: ids };
  delete p.again;
}

/**
 * An expansion names a graph exactly when the node is a sub-graph node. Its path and hash are the record of what
 * ran: they are not compared with the graph folded under, since a run may go on under a changed child graph
 * once a person allowed it (`GraphChangeAllowed`: the child's hash is part of the graph hash, rule 6).
 */
export function checkExpansionGraph(e: EventOf<'NodeExpanded'>, spec: GraphNode, at: At): void {
  if (!spec.subgraph && e.graph)
    at.bad(`node "${e.node}" has no graph: in the graph, so it expands into no sub-graph`);
  if (spec.subgraph && !e.graph)
    at.bad(`node "${e.node}" is a sub-graph node: its expansion names its graph`);
}

/** A sub-graph node's outputs once joined: its children's, in their graph's order (a later one's name wins). */
export function joinedOutputs(f: Folding, children: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of children) Object.assign(out, f.nodes.get(id)?.outputs ?? {});
  return out;
}
