/**
 * The decisions of an expansion (issue 28; sub-graphs, issue 33): a ready `for_each` node's list evaluated once
 * into `NodeExpanded` (or `NodeExpansionFailed` with the reason, and its escalation), a sub-graph node expanded
 * into its child graph's nodes, and the join (`NodeJoined`) once every node it made ended. Pure functions of the
 * graph, journal and state; `decideNext` asks them first for a `for_each` or sub-graph node.
 */
import { evaluateString, evaluateValue } from '../expressions/evaluate.js';
import { type Graph, type GraphNode, nodeById } from '../graph/model.js';
import { instanceKeyProblem, toleratedCount } from '../graph/schema/for-each.js';
import type { NewEvent } from '../journal/events/events.js';
import type { Failure } from '../journal/events/fields.js';
import { instancesOf, joinOf } from '../journal/reducers/instances.js';
import type { NodeProgress, RunState } from '../journal/state.js';
import { expressionContext } from './attempt/context.js';
import { loopEventsAfter } from './loops.js';
import { type Run, withEvents } from './run.js';

/** Appends the run's completion to events that resolve every node (decide.ts `withCompletion`). */
type WithCompletion = (run: Run, events: NewEvent[]) => NewEvent[];

/** The most bytes of JSON one item may hold in the journal: an item is data for one instance, not a payload. */
const MAX_ITEM_BYTES = 16_384;

/** What a `for_each` or sub-graph node's turn decides. */
export type ExpansionDecision =
  | { kind: 'expand'; node: string; items: number; events: NewEvent[] }
  | { kind: 'expand-failed'; node: string; attempt: number; reason: string; events: NewEvent[] }
  | { kind: 'join'; node: string; tolerated: string[]; events: NewEvent[] };

type Items = { key: string; value: unknown }[];

/** The list and each item's key, or why they cannot be used. */
function expansionItems(graph: Graph, state: RunState, node: GraphNode): Items | { problem: string } {
  const spec = node.for_each!;
  const ctx = expressionContext({ graph, state, node: node.id });
  let list: unknown;
  try {
    list = evaluateValue(spec.list, ctx);
  } catch (e) {
    return { problem: `for_each "${spec.list}" could not be evaluated: ${(e as Error).message}` };
  }
  if (!Array.isArray(list))
    return {
      problem: `for_each "${spec.list}" gave ${list === null ? 'null' : typeof list}, not a list: give it a JSON array, e.g. \${{ fromJSON(nodes.plan.outputs.tasks) }}`,
    };
  if (list.length === 0)
    return { problem: `for_each "${spec.list}" gave an empty list: there is nothing to run` };
  if (list.length > spec.max_items)
    return {
      problem: `for_each "${spec.list}" gave ${list.length} items, more than max_items ${spec.max_items}: split the work, or raise max_items (at most 1000)`,
    };
  const items: Items = [];
  const seen = new Map<string, number>();
  for (const [index, value] of list.entries()) {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > MAX_ITEM_BYTES)
      return {
        problem: `item ${index} holds ${bytes} bytes of JSON, more than ${MAX_ITEM_BYTES}: pass a smaller item`,
      };
    let instanceKey: string;
    try {
      instanceKey =
        spec.key === undefined ? String(index) : evaluateString(spec.key, { ...ctx, item: value, index });
    } catch (e) {
      return {
        problem: `key "${spec.key}" of item ${index} could not be evaluated: ${(e as Error).message}`,
      };
    }
    const problem = instanceKeyProblem(instanceKey);
    if (problem) return { problem: `item ${index}: ${problem}; choose a key expression that gives one` };
    if (seen.has(instanceKey))
      return {
        problem: `items ${seen.get(instanceKey)} and ${index} have the same key "${instanceKey}": each instance needs its own`,
      };
    seen.set(instanceKey, index);
    items.push({ key: instanceKey, value });
  }
  return items;
}

/** The expansion of a ready `for_each` node: its items journaled, or the node escalated with the reason. */
function expansion(graph: Graph, state: RunState, node: GraphNode, p: NodeProgress): ExpansionDecision {
  const sub = node.subgraph ? { graph: { path: node.subgraph.path, hash: node.subgraph.hash } } : {};
  // A sub-graph node without for_each expands into its child graph's nodes: nothing to evaluate.
  if (!node.for_each)
    return {
      kind: 'expand',
      node: node.id,
      items: 0,
      events: [{ type: 'NodeExpanded', node: node.id, ...sub }],
    };
  const items = expansionItems(graph, state, node);
  if (Array.isArray(items))
    return {
      kind: 'expand',
      node: node.id,
      items: items.length,
      events: [{ type: 'NodeExpanded', node: node.id, items, ...sub }],
    };
  const attempt = p.attempts + 1;
  const failures: Failure[] = [{ check: 'for_each', message: items.problem }];
  return {
    kind: 'expand-failed',
    node: node.id,
    attempt,
    reason: items.problem,
    events: [
      { type: 'NodeExpansionFailed', node: node.id, attempt, failures },
      {
        type: 'NodeEscalated',
        node: node.id,
        report: {
          attempted: [{ attempt, approach: 'for_each', work: `for_each: ${node.for_each!.list}` }],
          failed: [{ attempt, failures }],
          approaches_tried: ['for_each'],
          needed: `A person decides: fix what "${node.id}" lists (or the node before it) and approve a rerun of "${node.id}", settle it as done if nothing needs to run, or fail the run.`,
        },
      },
    ],
  };
}

/**
 * What a ready `for_each` or sub-graph node's turn decides: its expansion while it is pending, its join once
 * expanded.
 * `withCompletion` appends the run's completion to a join that resolves every node.
 */
export function expansionDecision(
  run: Run,
  node: GraphNode,
  withCompletion: WithCompletion,
): ExpansionDecision | undefined {
  const { graph, state } = run;
  const p = state.nodes.get(node.id);
  if ((!node.for_each && !node.subgraph) || !p) return undefined;
  if (p.state === 'pending') return expansion(graph, state, node, p);
  const join = joinOf(state.nodes, node);
  if (!join) return undefined;
  const joined = { type: 'NodeJoined' as const, node: node.id, ...join };
  // A looping sub-graph (`repeat:`) starts its next cycle or escalates in the same write.
  const loop = node.repeat ? loopEventsAfter(run, node, joined) : [];
  const events = withCompletion(run, [joined, ...loop]);
  return { kind: 'join', node: node.id, tolerated: join.tolerated, events };
}

/** Why an expanded node or an instance (`node`) is not ready, in words; undefined for any other node. */
export function expansionWhyNotReady(o: { graph: Graph; state: RunState; node: string }): string | undefined {
  const { graph, state, node: id } = o;
  const p = state.nodes.get(id);
  const node = nodeById(graph, id);
  if (!node) return undefined;
  if (!p) {
    const of = node.instance?.of;
    if (of === undefined) return undefined;
    return state.nodes.get(of)?.expansion
      ? `"${of}" has no item with the key "${node.instance!.key}"`
      : `"${of}" has not been expanded yet: its list is made when it is ready`;
  }
  if (p.state === 'expanded') {
    const waiting = instancesOf(state, id).filter(
      ([, q]) => !['completed', 'skipped', 'escalated'].includes(q.state),
    );
    if (waiting.length) return `its instances have not all ended (${waiting.map(([w]) => w).join(', ')})`;
    const escalated = instancesOf(state, id).filter(([, q]) => q.state === 'escalated');
    const most = toleratedCount(node.for_each!, instancesOf(state, id).length);
    return `${escalated.length} of its instances escalated (${escalated.map(([w]) => w).join(', ')}), more than its tolerated_failures allow (${most})`;
  }
  const of = p.item?.of;
  const most = of === undefined ? undefined : nodeById(graph, of)?.for_each?.max_parallel;
  if (p.state !== 'pending' || of === undefined || most === undefined) return undefined;
  return `"${of}" already has max_parallel ${most} instance(s) in flight`;
}

/**
 * Every expansion and join the run can make now, in order, each decided on the state the one before leaves: what
 * `mode: plan` writes before it lists the ready nodes, so a matrix gets instances (and the node after a join).
 */
export function expansionEvents(
  from: Run,
  withCompletion: WithCompletion,
): { events: NewEvent[]; decisions: ExpansionDecision[] } {
  const { graph } = from;
  const events: NewEvent[] = [];
  const decisions: ExpansionDecision[] = [];
  let run = from;
  // Each pass expands every ready for_each and sub-graph node at once (they are independent: each was ready
  // on the same state, and max_parallel already bounds the list), or joins one; at most two passes per node the
  // run has, counting the instances and sub-graph nodes earlier passes made.
  for (let pass = 0; pass <= run.state.nodes.size * 2 && !run.state.checkpoint.ended; pass++) {
    const now = run.state.checkpoint.ready_nodes
      .map((id) => nodeById(graph, id)!)
      .filter((n) => n.for_each || n.subgraph)
      .map((n) => expansionDecision(run, n, withCompletion))
      .filter((x) => x !== undefined);
    const expansions = now.filter((d) => d.kind !== 'join');
    const batch = expansions.length ? expansions : now.slice(0, 1);
    if (!batch.length) break;
    for (const d of batch) {
      decisions.push(d);
      events.push(...d.events);
    }
    run = withEvents(
      run,
      batch.flatMap((d) => d.events),
    );
  }
  return { events, decisions };
}
