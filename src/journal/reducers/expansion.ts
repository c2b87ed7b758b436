/**
 * The fold's reducers for `for_each` and sub-graphs (issue 28; a sub-graph's own part is in subgraph-expansion.ts).
 * `NodeExpanded` turns a ready `for_each` node into its instances (each a node of its own from then on, named
 * `<node>[<key>]`); `NodeExpansionFailed` escalates it; `NodeJoined` completes it once every instance ended, the
 * escalated ones within `tolerated_failures`. A journal that breaks these rules is refused, like any other.
 */

import type { GraphNode } from '../../graph/model.js';
import { instanceKeyProblem, instanceNode } from '../../graph/schema/for-each.js';
import type { EventOf } from '../events/events.js';
import { attemptsLeft, stateWords } from '../state.js';
import type { At, Folding } from './folding.js';
import { dependenciesResolved, progress, type Reducer } from './folding.js';
import { joinOf } from './instances.js';
import { checkExpansionGraph, expandSubgraph, joinedOutputs, reusedProgress } from './subgraph-expansion.js';

/** The `for_each` node an event names, which must be pending and never expanded. */
function expandable(f: Folding, e: EventOf<'NodeExpanded' | 'NodeExpansionFailed'>, at: At): GraphNode {
  const spec = f.specs.get(e.node);
  const p = progress(f, e);
  if (!spec?.for_each && !spec?.subgraph) at.bad(`node "${e.node}" has no for_each or graph in the graph`);
  if (p.state !== 'pending' || p.expansion)
    at.bad(
      `node "${e.node}" is ${stateWords(p.state)}; only a pending for_each or sub-graph node is expanded`,
    );
  if (!attemptsLeft(p)) at.bad(`node "${e.node}" has no attempts left`);
  dependenciesResolved(f, e.node, 'expanded', at);
  return spec!;
}

export const nodeExpanded: Reducer<'NodeExpanded'> = (f, e, at) => {
  const spec = expandable(f, e, at);
  const p = progress(f, e);
  checkExpansionGraph(e, spec, at);
  if (!spec.for_each) return expandSubgraph(f, e, spec, at);
  if (e.items === undefined) return at.bad(`node "${e.node}" has for_each: its expansion lists its items`);
  if (e.items.length > spec.for_each!.max_items)
    at.bad(
      `node "${e.node}" has ${e.items.length} items, more than its max_items ${spec.for_each!.max_items}`,
    );
  const keys = e.items.map((i) => i.key);
  keys.forEach((instanceKey, index) => {
    const problem = instanceKeyProblem(instanceKey);
    if (problem) at.bad(`item ${index} of node "${e.node}": ${problem}`);
    if (keys.indexOf(instanceKey) !== index) at.bad(`node "${e.node}" has the key "${instanceKey}" twice`);
  });
  p.state = 'expanded';
  p.expansion = { keys, values: e.items.map((i) => i.value) };
  e.items.forEach(({ key: instanceKey, value }, index) => {
    const q = reusedProgress(f, instanceNode(spec, instanceKey), p.again);
    q.item = { of: e.node, key: instanceKey, index, value };
  });
  delete p.again;
};

export const nodeExpansionFailed: Reducer<'NodeExpansionFailed'> = (f, e, at) => {
  expandable(f, e, at);
  const p = progress(f, e);
  if (e.attempt !== p.attempts + 1)
    at.bad(`node "${e.node}" attempt ${e.attempt} where ${p.attempts + 1} was expected`);
  p.attempts = e.attempt;
  p.failures += 1;
  // The same list fails the same way: the node escalates at once, for a person to fix the cause.
  p.allowedFailures = p.failures;
  p.state = 'escalated';
  p.approvals = [];
  p.interrupted = false;
  p.last_failures = e.failures;
  p.ended_at = e.at;
};

export const nodeJoined: Reducer<'NodeJoined'> = (f, e, at) => {
  const p = progress(f, e);
  if (p.state !== 'expanded') at.bad(`node "${e.node}" is ${stateWords(p.state)}, not expanded`);
  const join = joinOf(f.nodes, f.specs.get(e.node));
  if (!join)
    at.bad(
      `node "${e.node}" cannot be joined: an instance has not ended, or more escalated than its tolerated_failures`,
    );
  if (
    join!.tolerated.join('\n') !== e.tolerated.join('\n') ||
    join!.completed.join('\n') !== e.completed.join('\n')
  )
    at.bad(`node "${e.node}" joins ${JSON.stringify(e)} but its instances say ${JSON.stringify(join)}`);
  for (const id of e.tolerated) {
    f.nodes.get(id)!.state = 'tolerated';
    f.traversal.push(id);
  }
  p.state = 'completed';
  p.expansion = { ...p.expansion!, tolerated: [...e.tolerated] };
  if (p.expansion.children) p.outputs = joinedOutputs(f, p.expansion.children);
  p.ended_at = e.at;
  f.traversal.push(e.node);
  f.lastCompleted = e.node;
  f.rolledBackTo = null;
};
