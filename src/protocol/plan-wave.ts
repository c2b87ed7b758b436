/**
 * A plan's wave (issue 35): `mode: plan` with `dispatch: ready` journals the dispatch of every ready node a matrix
 * job can run alone, in the plan's one write, before any job starts; each job then writes only its record. And the
 * other side: which journaled dispatch a matrix job may take as its own, re-decided from the journal. Pure.
 */
import type { Journal, NewEvent } from '../journal/events/events.js';
import type { RunnerInfo } from '../journal/events/fields.js';
import { foldOnto } from '../journal/fold.js';
import type { DispatchInfo, RunState } from '../journal/state.js';
import type { SameCredentials } from './chain-dispatch.js';
import type { DailyCap } from './daily-cap.js';
import { type Decision, decideNext } from './decide.js';
import { type Run, runOf, withEvents } from './run.js';

/** The workflow run attempt a plan and its matrix jobs share. */
export interface WaveRun {
  workflow_run_id: number;
  run_attempt: number;
}

/** What limits a wave's dispatches: which nodes may share a chain, and the repository's daily cap. */
export interface WaveLimits {
  sameCredentials?: SameCredentials;
  dailyCap?: DailyCap;
}

/**
 * The dispatches of a wave: for each ready node in declaration order, the decision a `node: <id>` step would take,
 * kept when it is a plain dispatch (a gate, a skip, an effect, a serialized chain or a budget stop is left ready for
 * its own job to decide, as before). Each names the matrix job that runs it by what the plan knows of it: the
 * workflow run attempt, the plan's job (`planned_by`), and its place in the wave (`wave`), which paces the records.
 */
export function planWave(
  from: Run,
  runnerOf: (node: string) => RunnerInfo,
  at: string,
  opts: WaveLimits = {},
): { nodes: string[]; events: NewEvent[] } {
  let run = from;
  const events: NewEvent[] = [];
  for (const id of from.state.checkpoint.ready_nodes) {
    const d = decideNext(run, { runner: runnerOf(id), only: id, ...opts });
    if (d.kind !== 'dispatch' || d.chain || d.node.effect !== undefined) continue;
    events.push(...d.events);
    run = withEvents(run, d.events, at);
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
 * Where `node`'s last dispatch (of `attempt`, when given) stands in the journal (its index), or undefined when
 * there is none.
 */
export function lastDispatchAt(journal: Journal, node: string, attempt?: number): number | undefined {
  for (let at = journal.events.length - 1; at >= 0; at--) {
    const e = journal.events[at]!;
    if (e.type === 'NodeDispatched' && e.node === node && (attempt === undefined || e.attempt === attempt))
      return at;
  }
  return undefined;
}

/**
 * The decision a plan took for `node`'s in-flight attempt, taken again from the journal as it stood before that
 * dispatch (the checkpoint is a function of the journal, so it is the same decision: its approach and the context
 * the attempt is told). Undefined when the node is not in flight under a plan's dispatch for this run attempt.
 * `prefix`: a state the read folded from the journal's first events (its `prefixAt`): the journal before the
 * dispatch is folded onto it (from scratch when it does not continue it: journal/fold.ts `foldOnto`).
 */
export function plannedDecision(
  run: Run,
  ask: { node: string; wave: WaveRun; sameCredentials?: SameCredentials; prefix?: RunState },
): Extract<Decision, { kind: 'dispatch' }> | undefined {
  const { node, wave, sameCredentials, prefix } = ask;
  const { graph, journal, state } = run;
  const p = state.nodes.get(node);
  const d = p?.dispatch;
  if (p?.state !== 'in_flight' || !d || !plannedFor(d, wave)) return undefined;
  const at = lastDispatchAt(journal, node, d.attempt);
  if (at === undefined) return undefined;
  const upTo = { ...journal, events: journal.events.slice(0, at) };
  const before = runOf(graph, upTo, prefix ? foldOnto(prefix, upTo, graph) : undefined);
  const decision = decideNext(before, { runner: d.runner, only: node, sameCredentials });
  if (decision.kind !== 'dispatch' || decision.chain || decision.attempt !== d.attempt) return undefined;
  return decision;
}
