/**
 * The fold: the journal's events, in order, into the run state and its checkpoint. Pure: the same journal and
 * graph give byte-identical checkpoint JSON (rule 6). Each event's rule is its reducer in reducers.ts; the
 * ready list (rule 1) and the checkpoint's shape are here.
 */

import { checkpointUsage } from './checkpoint-usage.js';
import type { Journal, JournalEvent } from './events/events.js';
import type { Folding } from './reducers/folding.js';
import { expandedNodes, readyWithin } from './reducers/instances.js';
import { REDUCERS } from './reducers/reducers.js';
import {
  attemptsLeft,
  type Checkpoint,
  type GraphShape,
  isResolved,
  JournalError,
  type NodeProgress,
  type NodeState,
  newProgress,
  type RunState,
  type RunStatus,
} from './state.js';

/**
 * Folds the journal's events into the run state. Pure: the same journal and graph give the same state.
 * Throws JournalError naming the first event that breaks a rule.
 */
export function fold(journal: Journal, graph: GraphShape): RunState {
  return finish(journal, applied(start(journal, graph), journal, 0));
}

/**
 * Folds only the events `journal` holds past those `state` was folded from, onto that state: the state a fold of
 * the whole journal gives (test/core/fold-onto.test.ts holds the two equal on every prefix of every golden
 * journal). `state` is left as it was. A state this module did not make, or a journal that does not continue the
 * one `state` came from (another graph, other events before), is folded from scratch.
 */
export function foldOnto(state: RunState, journal: Journal, graph: GraphShape): RunState {
  const kept = FOLDED.get(state);
  const from = kept?.events ?? 0;
  const continues =
    kept !== undefined &&
    kept.folding.graph === graph &&
    journal.events.length >= from &&
    (from === 0 || journal.events[from - 1] === kept.last);
  if (!continues) return fold(journal, graph);
  return finish(journal, applied(resumed(kept.folding), journal, from));
}

/**
 * What a state's fold had gathered: the state shares its maps (a state is read, never changed), and a fold onto it
 * starts from a copy, so the state stays as it was.
 */
interface Kept {
  folding: Folding;
  /** How many events were folded, and the last of them (the journal it continues must hold it). */
  events: number;
  last: JournalEvent | undefined;
}

const FOLDED = new WeakMap<RunState, Kept>();

/** The fold before any event. */
function start(journal: Journal, graph: GraphShape): Folding {
  return {
    graph,
    specs: new Map(graph.nodes.map((n) => [n.id, n])),
    nodes: new Map(graph.nodes.map((n) => [n.id, newProgress(n.approaches.length)])),
    traversal: [],
    ended: null,
    started: null,
    inputs: {},
    github: null,
    acceptedHash: journal.graph.hash,
    lastCompleted: null,
    rolledBackTo: null,
    lastAt: null,
    approvalSources: [],
    personRecords: [],
    forkedFrom: null,
    carried: 0,
  };
}

/** A copy of a kept fold that its reducers may change (they change the nodes' progress in place). */
function resumed(f: Folding): Folding {
  return {
    ...f,
    specs: new Map(f.specs),
    nodes: structuredClone(f.nodes),
    traversal: [...f.traversal],
    approvalSources: [...f.approvalSources],
    personRecords: [...f.personRecords],
  };
}

/** Applies the journal's events from index `from` on, each by its reducer (reducers.ts). */
function applied(f: Folding, journal: Journal, from: number): Folding {
  for (let index = from; index < journal.events.length; index++) {
    const e = journal.events[index]!;
    const bad = (why: string): never => {
      throw new JournalError(`event ${e.seq} (${e.type}): ${why}`, e.seq);
    };
    if (e.seq !== index + 1)
      bad(`sequence number ${e.seq} where ${index + 1} was expected (events reordered or missing)`);
    if (index === 0 && e.type !== 'RunStarted') bad('the first event must be RunStarted');
    if (f.ended && e.type !== 'GraphChangeAllowed')
      bad(`the run already ended with ${f.ended.type} (${f.ended.reason})`);
    f.lastAt = e.at;
    // Own keys only: a type such as "toString" is unknown, not a method of every object.
    const reduce = Object.hasOwn(REDUCERS, e.type)
      ? (REDUCERS[e.type] as (f: Folding, e: unknown, at: unknown) => void)
      : undefined;
    if (!reduce) throw new JournalError(`unknown event ${JSON.stringify(e)}`, null);
    reduce(f, e, { index, bad });
  }
  return f;
}

/** The run state of a fold, with what it gathered kept for `foldOnto`. */
function finish(journal: Journal, f: Folding): RunState {
  const state: RunState = {
    checkpoint: checkpointOf(journal, f),
    nodes: f.nodes,
    inputs: f.inputs,
    github: f.github,
    started: f.started,
    accepted_hash: f.acceptedHash,
    approval_sources: f.approvalSources,
  };
  FOLDED.set(state, { folding: f, events: journal.events.length, last: journal.events.at(-1) });
  return state;
}

/** The checkpoint of what the fold gathered; its keys keep this order (the JSON is compared byte for byte). */
function checkpointOf(journal: Journal, f: Folding): Checkpoint {
  const { nodes, ended } = f;
  // Each for_each node's instances follow it in every list (expandedNodes, reducers/instances.ts); the graph's
  // own nodes decide whether the run is done.
  const graph = { ...f.graph, nodes: expandedNodes(f.graph.nodes, nodes) };
  const byState = (s: NodeState) => graph.nodes.filter((n) => nodes.get(n.id)?.state === s).map((n) => n.id);
  const ready = ended ? [] : readyWithin(f, readyNodes(graph, nodes));
  const active = byState('in_flight');
  const attempts: Record<string, number> = {};
  for (const n of graph.nodes) attempts[n.id] = nodes.get(n.id)!.attempts;
  const status: RunStatus = ended
    ? ended.type === 'RunCompleted'
      ? 'completed'
      : 'failed'
    : active.length || ready.length || f.graph.nodes.every((n) => isResolved(nodes.get(n.id)?.state))
      ? 'running'
      : 'blocked';
  return {
    run_id: journal.run_id,
    graph: { ...journal.graph },
    status,
    completed_nodes: lastOnce(f.traversal.filter((id) => nodes.get(id)?.state === 'completed')),
    failed_nodes: graph.nodes
      .filter((n) => {
        const p = nodes.get(n.id)!;
        return p.state === 'pending' && p.failures > 0;
      })
      .map((n) => n.id),
    skipped_nodes: lastOnce(f.traversal.filter((id) => nodes.get(id)?.state === 'skipped')),
    held_nodes: byState('held'),
    escalated_nodes: byState('escalated'),
    ...nonEmpty('awaiting_approval_nodes', byState('awaiting_approval')),
    ...nonEmpty('expanded_nodes', byState('expanded')),
    ...nonEmpty('tolerated_nodes', byState('tolerated')),
    active_nodes: active,
    ready_nodes: ready,
    traversal_path: f.traversal,
    attempts,
    ...loopCounts(graph, nodes),
    usage: checkpointUsage(graph, nodes),
    rolled_back_to: f.rolledBackTo,
    ended,
    last_activity_at: f.lastAt,
  };
}

/**
 * Each id once, at its last place: a node that ran again (a loop's cycle, a rerun) is listed where it last ended.
 * Journals without either never repeat an id, so they fold to the same bytes.
 */
function lastOnce(ids: string[]): string[] {
  return ids.filter((id, i) => ids.lastIndexOf(id) === i);
}

/** The checkpoint's `cycles` and `reruns` (issue 28): present only when some node has one. */
function loopCounts(
  graph: GraphShape,
  nodes: Map<string, NodeProgress>,
): Pick<Checkpoint, 'cycles' | 'reruns'> {
  const cycles: Record<string, number> = {};
  const reruns: Record<string, number> = {};
  for (const n of graph.nodes) {
    const p = nodes.get(n.id)!;
    if (p.cycle !== undefined) cycles[n.id] = p.cycle;
    if (p.reruns !== undefined) reruns[n.id] = p.reruns;
  }
  return {
    ...(Object.keys(cycles).length ? { cycles } : {}),
    ...(Object.keys(reruns).length ? { reruns } : {}),
  };
}

/** `{ key: list }` when the list has items, else nothing: a key old journals never had stays absent for them. */
function nonEmpty<K extends string>(key: K, list: string[]): Partial<Record<K, string[]>> {
  return list.length ? ({ [key]: list } as Record<K, string[]>) : {};
}

/** Rule 1: dependencies completed or skipped, the node itself pending with attempts left; declaration order. */
function readyNodes(graph: GraphShape, nodes: Map<string, NodeProgress>): string[] {
  const out: string[] = [];
  for (const n of graph.nodes) {
    const p = nodes.get(n.id);
    // An expanded for_each node is a candidate only to be joined (readyWithin, reducers/instances.ts).
    if ((p?.state !== 'pending' && p?.state !== 'expanded') || !attemptsLeft(p)) continue;
    if (n.depends_on.every((d) => isResolved(nodes.get(d)?.state))) out.push(n.id);
  }
  return out;
}
