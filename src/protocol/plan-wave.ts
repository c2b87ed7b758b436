/**
 * A plan's wave (issue 35): `mode: plan` with `dispatch: ready` journals the dispatch of every ready node a matrix
 * job can run alone, in the plan's one write, before any job starts; each job then writes only its record. And the
 * other side: which journaled dispatch a matrix job may take as its own, re-decided from the journal. Pure.
 */
import type { Graph } from '../graph/model.js';
import type { Journal, NewEvent } from '../journal/events/events.js';
import type { RunnerInfo } from '../journal/events/fields.js';
import { fold } from '../journal/fold.js';
import { appendEvents } from '../journal/parse.js';
import type { DispatchInfo, RunState } from '../journal/state.js';
import type { SameCredentials } from './chain-dispatch.js';
import type { DailyCap } from './daily-cap.js';
import { type Decision, decideNext } from './decide.js';

/** The workflow run attempt a plan and its matrix jobs share. */
export interface WaveRun {
  workflow_run_id: number;
  run_attempt: number;
}

/**
 * The dispatches of a wave: for each ready node in declaration order, the decision a `node: <id>` step would take,
 * kept when it is a plain dispatch (a gate, a skip, an effect, a serialized chain or a budget stop is left ready for
 * its own job to decide, as before). Each names the matrix job that runs it by what the plan knows of it: the
 * workflow run attempt, the plan's job (`planned_by`), and its place in the wave (`wave`), which paces the records.
 */
export function planWave(
  graph: Graph,
  journal: Journal,
  state: RunState,
  runnerOf: (node: string) => RunnerInfo,
  at: string,
  opts: { sameCredentials?: SameCredentials; dailyCap?: DailyCap } = {},
): { nodes: string[]; events: NewEvent[] } {
  let j = journal;
  let st = state;
  const events: NewEvent[] = [];
  for (const id of state.checkpoint.ready_nodes) {
    const d = decideNext(graph, j, st, runnerOf(id), id, opts.sameCredentials, opts.dailyCap);
    if (d.kind !== 'dispatch' || d.chain || d.node.effect !== undefined) continue;
    events.push(...d.events);
    j = appendEvents(j, d.events, at);
    st = fold(j, graph);
  }
  const nodes = events.map((e) => (e as { node: string }).node);
  const size = nodes.length;
  const placed = events.map((e, place) =>
    e.type === 'NodeDispatched' ? { ...e, runner: { ...e.runner, wave: { place, size } } } : e,
  );
  return { nodes, events: placed };
}

/** Whether a dispatch was journaled by a plan of this workflow run attempt for one of its matrix jobs. */
export function plannedFor(d: DispatchInfo, run: WaveRun): boolean {
  const r = d.runner;
  return (
    r.kind === 'actions' &&
    typeof r.planned_by === 'string' &&
    r.workflow_run_id === run.workflow_run_id &&
    (r.run_attempt ?? 1) === run.run_attempt
  );
}

/**
 * The decision a plan took for `node`'s in-flight attempt, taken again from the journal as it stood before that
 * dispatch (the checkpoint is a function of the journal, so it is the same decision: its approach and the context
 * the attempt is told). Undefined when the node is not in flight under a plan's dispatch for this run attempt.
 */
export function plannedDecision(
  graph: Graph,
  journal: Journal,
  state: RunState,
  node: string,
  run: WaveRun,
  sameCredentials?: SameCredentials,
): Extract<Decision, { kind: 'dispatch' }> | undefined {
  const p = state.nodes.get(node);
  const d = p?.dispatch;
  if (p?.state !== 'in_flight' || !d || !plannedFor(d, run)) return undefined;
  let at = journal.events.length - 1;
  for (; at >= 0; at--) {
    const e = journal.events[at]!;
    if (e.type === 'NodeDispatched' && e.node === node && e.attempt === d.attempt) break;
  }
  if (at < 0) return undefined;
  const before: Journal = { ...journal, events: journal.events.slice(0, at) };
  const decision = decideNext(graph, before, fold(before, graph), d.runner, node, sameCredentials);
  if (decision.kind !== 'dispatch' || decision.chain || decision.attempt !== d.attempt) return undefined;
  return decision;
}
