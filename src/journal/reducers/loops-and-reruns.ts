/**
 * The fold's reducers for bounded loops and reruns from a node (issue 28). `NodeCycleStarted` takes a completed
 * node with `repeat:` back to pending as its next cycle (its retries counted afresh, its last outputs kept until
 * the new cycle replaces them); a loop's escalation (`NodeEscalated` with `report.cycles`) takes it from completed
 * to escalated. `RerunFromApproved` marks a node and its dependents to run again as new attempts: nothing is
 * carried over, so a gated node waits for `/approve` and a `replay: never` node that ran is held for
 * `/approve-rerun`. `NodeCarriedOver` starts a forked run with a node's record from the run it forked from.
 */
import { nodeAndDependents } from '../../graph/dependents.js';
import { instanceId, instanceKeyProblem, instanceNode } from '../../graph/schema/for-each.js';
import type { EventOf } from '../events/events.js';
import type { NodeProgress } from '../state.js';
import { newProgress, notRunSinceStart, stateWords } from '../state.js';
import { type At, dependenciesResolved, type Folding, progress, type Reducer } from './folding.js';
import { startRound } from './rounds.js';
import { runAgain } from './subgraph-expansion.js';

/** The loop of a node, or a refusal naming the event. */
function loopOf(f: Folding, node: string, at: At) {
  const repeat = f.specs.get(node)?.repeat;
  if (!repeat) return at.bad(`node "${node}" has no repeat: it has no cycles`);
  return repeat;
}

export const nodeCycleStarted: Reducer<'NodeCycleStarted'> = (f, e, at) => {
  const p = progress(f, e);
  const repeat = loopOf(f, e.node, at);
  if (p.state !== 'completed')
    at.bad(`node "${e.node}" is ${stateWords(p.state)}; only a completed cycle starts the next one`);
  const next = (p.cycle ?? 1) + 1;
  if (e.cycle !== next) at.bad(`node "${e.node}" starts cycle ${e.cycle} where ${next} was expected`);
  if (e.cycle > repeat.max)
    at.bad(`node "${e.node}" starts cycle ${e.cycle}, past its repeat.max ${repeat.max}`);
  if (e.after_attempt !== p.attempts)
    at.bad(
      `node "${e.node}" cycle ${e.cycle} follows attempt ${e.after_attempt}, but the last is ${p.attempts}`,
    );
  startRound(f, e.node, p, 'fresh');
  p.cycle = e.cycle;
  p.state = 'pending';
  // A sub-graph's next cycle: its child nodes run again, each as a new attempt.
  if (p.expansion) {
    p.state = 'expanded';
    delete p.expansion.tolerated;
    for (const child of p.expansion.children ?? []) runAgain(f, child, 'cycle');
  }
};

/** A loop ran its last cycle with `until` still false (or `until` could not be evaluated): a person decides. */
export function loopEscalated(f: Folding, e: EventOf<'NodeEscalated'>, at: At, p: NodeProgress): void {
  loopOf(f, e.node, at);
  if (p.state !== 'completed')
    at.bad(`node "${e.node}" is ${stateWords(p.state)}; only a completed cycle ends its loop escalated`);
  p.state = 'escalated';
  p.loop_escalated = true;
  p.approvals = [];
  p.report = e.report;
}

export const rerunFromApproved: Reducer<'RerunFromApproved'> = (f, e, at) => {
  const named = progress(f, e);
  const expected = nodeAndDependents(f.graph.nodes, e.node);
  if (JSON.stringify(e.nodes) !== JSON.stringify(expected))
    at.bad(`names ${e.nodes.join(', ')}, but "${e.node}" and its dependents are ${expected.join(', ')}`);
  if (notRunSinceStart(named))
    at.bad(`node "${e.node}" is ${stateWords(named.state)} and has not run since its last start`);
  for (const id of e.nodes)
    if (f.nodes.get(id)?.state === 'in_flight') at.bad(`node "${id}" is in flight: it cannot be rerun now`);
  f.approvalSources.push(e.source);
  // No approval is carried over: a gate waits for /approve again, a never node that ran for /approve-rerun.
  for (const id of e.nodes) runAgain(f, id, 'rerun');
  if (e.guidance !== undefined)
    named.guidance = [...(named.guidance ?? []), { by: e.approved_by, text: e.guidance }];
  named.reruns = (named.reruns ?? 0) + 1;
};

export const nodeCarriedOver: Reducer<'NodeCarriedOver'> = (f, e, at) => {
  if (f.forkedFrom === null)
    at.bad('only a forked run (RunStarted.forked_from) starts with carried-over nodes');
  if (at.index !== f.carried + 1)
    at.bad('carried-over nodes come right after RunStarted, before anything else');
  const p = progress(f, e);
  if (p.state !== 'pending') at.bad(`node "${e.node}" is ${stateWords(p.state)}; it cannot be carried over`);
  dependenciesResolved(f, e.node, 'carried over', at);
  f.carried += 1;
  p.state = e.state;
  p.outputs = { ...e.outputs };
  carriedInstances(f, e, at);
  f.traversal.push(e.node);
  if (e.state === 'completed') f.lastCompleted = e.node;
};

/** A carried-over `for_each` node's instances, as its join found them (and none for any other node). */
function carriedInstances(f: Folding, e: EventOf<'NodeCarriedOver'>, at: At): void {
  const spec = f.specs.get(e.node)!;
  if (!spec.for_each || e.state !== 'completed') {
    if (e.instances) at.bad(`node "${e.node}" is no completed for_each node: it carries no instances`);
    return;
  }
  const instances = e.instances ?? [];
  if (!instances.length) at.bad(`node "${e.node}" has for_each: its carry-over lists its instances`);
  const keys = instances.map((i) => i.key);
  keys.forEach((instanceKey, index) => {
    if (instanceKeyProblem(instanceKey) || keys.indexOf(instanceKey) !== index)
      at.bad(`node "${e.node}" carries the key "${instanceKey}" badly`);
  });
  const tolerated = instances.filter((i) => i.state === 'tolerated').map((i) => instanceId(e.node, i.key));
  f.nodes.get(e.node)!.expansion = { keys, values: instances.map((i) => i.value), tolerated };
  instances.forEach((i, index) => {
    const node = instanceNode(spec, i.key);
    f.specs.set(node.id, node);
    const q = newProgress(node.approaches.length);
    q.item = { of: e.node, key: i.key, index, value: i.value };
    q.state = i.state;
    q.outputs = { ...i.outputs };
    f.nodes.set(node.id, q);
  });
}
