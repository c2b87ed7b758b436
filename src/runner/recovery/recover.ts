/**
 * Recovery through the compare-and-swap commit: marks the in-flight attempts whose executor is provably gone as
 * interrupted (rule 3; the events are decided by `recoverEvents` in protocol/recovery.ts).
 */

import { nodeById } from '../../graph/model.js';
import type { NewEvent } from '../../journal/events/events.js';
import type { RunnerInfo } from '../../journal/events/fields.js';
import type { DispatchInfo, RunState } from '../../journal/state.js';
import { failpoint } from '../../os/crash-failpoint.js';
import { withCompletion } from '../../protocol/decide.js';
import { type ExpansionDecision, expansionEvents } from '../../protocol/expansion.js';
import { planWave, type WaveLimits } from '../../protocol/plan-wave.js';
import { type Probe, recoverEvents } from '../../protocol/recovery.js';
import { withEvents } from '../../protocol/run.js';
import { decisionFailpoint } from '../decision-failpoint.js';
import { commit } from '../journal-io/commit.js';
import { isoNow, type RunSetup, type RunSnapshot } from '../journal-io/read.js';

type ProbeFn = (node: string, dispatch: DispatchInfo) => Probe | Promise<Probe>;

/** The probe one step asks: a fresh `probes()` when the setup has one, so its memory lasts one step. */
export function stepProbe(setup: RecoverySetup): ProbeFn {
  return setup.probes?.() ?? setup.probe;
}

/** How recovery learns whether an in-flight attempt's executor is gone, and whom it names. */
export interface RecoverySetup extends RunSetup {
  /** Whether an in-flight attempt's executor is provably gone (may ask an API). */
  probe: ProbeFn;
  /**
   * A probe for one step, which may remember what it learned for that step (the Action lists a workflow run
   * attempt's jobs once, not once per node per retry); `probe` when absent.
   */
  probes?: () => ProbeFn;
  recoveredBy: string;
  /** Describes this executor for the journal, given an execution tag. */
  runner: (execTag: string) => RunnerInfo;
}

/**
 * The recovery events for the state read: none for a run not yet stored. With `scope`, only the nodes in it are
 * probed and recovered (a step for one node needs only that node and what it depends on; the others' jobs are
 * not asked about, nor reported as left alone).
 */
export async function recoveryFor(
  setup: RecoverySetup,
  cur: RunSnapshot,
  probe: ProbeFn = setup.probe,
  scope?: ReadonlySet<string>,
): Promise<{ events: NewEvent[]; left: Array<{ node: string; why: string }> }> {
  if (cur.version === null) return { events: [], left: [] };
  const r = recoverEvents(cur.state, await probed(cur.state, probe, scope), setup.recoveredBy);
  return scope ? { events: r.events, left: r.left.filter((l) => scope.has(l.node)) } : r;
}

/** A node and every node it depends on, transitively: what a step for that one node may need recovered. */
export function withDependencies(graph: RecoverySetup['graph'], node: string): Set<string> {
  const out = new Set<string>();
  const visit = (id: string) => {
    if (out.has(id)) return;
    out.add(id);
    // An instance (`work[3]`) depends on what its for_each node depends on.
    for (const d of nodeById(graph, id)?.depends_on ?? []) visit(d);
  };
  visit(node);
  return out;
}

/** A plan's wave (`dispatch: ready`): how each planned dispatch names its job, and the daily cap's count. */
export interface WaveOptions {
  runnerOf: (node: string) => RunnerInfo;
  opts?: WaveLimits;
}

/**
 * Recovery: marks in-flight attempts whose executor is provably gone as interrupted. With `expansions`, expands and
 * joins for_each and sub-graph nodes in the same write; with `wave`, dispatches the ready nodes for a matrix in it too.
 */
export async function recover(
  setup: RecoverySetup,
  options: { expansions?: boolean; create?: boolean; wave?: WaveOptions } = {},
): Promise<{
  cur: RunSnapshot;
  interrupted: string[];
  left: Array<{ node: string; why: string }>;
  expansions: ExpansionDecision[];
  /** The nodes the wave dispatched, and the commit that holds them (for the jobs' exact first read). */
  planned: string[];
  commit?: string;
}> {
  const runner = setup.runner('recovery');
  const probe = stepProbe(setup);
  const r = await commit(
    setup,
    runner,
    async (cur) => {
      const rec = await recoveryFor(setup, cur, probe);
      if (rec.events.length) failpoint('before-recover-write');
      // `mode: plan` also expands and joins for_each and sub-graph nodes in the same write (issue 28: protocol/expansion.ts).
      const more = options.expansions
        ? expansionsAfter(setup, cur, rec.events)
        : { events: [], decisions: [] };
      for (const d of more.decisions) decisionFailpoint('before', d);
      const wave = options.wave
        ? waveAfter(setup, cur, [...rec.events, ...more.events], options.wave)
        : { nodes: [], events: [] };
      return {
        ...rec,
        events: [...rec.events, ...more.events, ...wave.events],
        recovered: rec.events,
        expansions: more.decisions,
        planned: wave.nodes,
      };
    },
    { ...(options.create !== undefined ? { create: options.create } : {}) },
  );
  if (r.chosen.recovered.length) failpoint('after-recover-write');
  for (const d of r.chosen.expansions) decisionFailpoint('after', d);
  return {
    cur: r.cur,
    interrupted: r.chosen.recovered.map((e) => ('node' in e ? e.node : '')),
    left: r.chosen.left,
    expansions: r.chosen.expansions,
    planned: r.chosen.planned,
    ...(r.commit ? { commit: r.commit } : {}),
  };
}

/** The wave the state after recovery and expansion allows (protocol/plan-wave.ts). */
function waveAfter(setup: RecoverySetup, cur: RunSnapshot, before: NewEvent[], wave: WaveOptions) {
  const at = (setup.now ?? isoNow)();
  return planWave(withEvents(cur, before, at), wave.runnerOf, at, wave.opts);
}

/** The expansions and joins the state after recovery allows. */
function expansionsAfter(setup: RecoverySetup, cur: RunSnapshot, recovered: NewEvent[]) {
  const run = withEvents(cur, recovered, (setup.now ?? isoNow)());
  return expansionEvents(run, withCompletion);
}

/** Probes every in-flight attempt once (probes may be slow API calls), then answers recovery synchronously. */
async function probed(
  state: RunState,
  probe: ProbeFn,
  scope?: ReadonlySet<string>,
): Promise<(node: string, dispatch: DispatchInfo) => Probe> {
  const results = new Map<string, Probe>();
  for (const id of state.checkpoint.active_nodes) {
    if (scope && !scope.has(id)) continue;
    const d = state.nodes.get(id)?.dispatch;
    if (d) results.set(id, await probe(id, d));
  }
  return (node) => results.get(node) ?? { gone: false, why: 'not probed', observed_ms: 0 };
}
