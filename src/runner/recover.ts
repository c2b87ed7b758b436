/**
 * Recovery through the compare-and-swap commit: marks the in-flight attempts whose executor is provably gone as
 * interrupted (rule 3; the events are decided by `recoverEvents` in protocol/recovery.ts).
 */

import type { RunnerInfo } from '../journal/event-fields.js';
import type { NewEvent } from '../journal/events.js';
import { fold } from '../journal/fold.js';
import { appendEvents } from '../journal/parse.js';
import type { DispatchInfo, RunState } from '../journal/state.js';
import { failpoint } from '../os/failpoint.js';
import { withCompletion } from '../protocol/decide.js';
import { type ForEachDecision, forEachEvents } from '../protocol/expand.js';
import { type Probe, recoverEvents } from '../protocol/recovery.js';
import { commit } from './commit.js';
import { decisionFailpoint } from './failpoint.js';
import { isoNow, type RunSetup, type RunSnapshot } from './read.js';

/** How recovery learns whether an in-flight attempt's executor is gone, and whom it names. */
export interface RecoverySetup extends RunSetup {
  /** Whether an in-flight attempt's executor is provably gone (may ask an API). */
  probe: (node: string, dispatch: DispatchInfo) => Probe | Promise<Probe>;
  recoveredBy: string;
  /** Describes this executor for the journal, given an execution tag. */
  runner: (execTag: string) => RunnerInfo;
}

/** The recovery events for the state read: none for a run not yet stored. */
export async function recoveryFor(
  setup: RecoverySetup,
  cur: RunSnapshot,
): Promise<{ events: NewEvent[]; left: Array<{ node: string; why: string }> }> {
  if (cur.version === null) return { events: [], left: [] };
  return recoverEvents(cur.state, await probed(cur.state, setup.probe), setup.recoveredBy);
}

/** Recovery: marks in-flight attempts whose executor is provably gone as interrupted. */
export async function recover(
  setup: RecoverySetup,
  options: { forEach?: boolean } = {},
): Promise<{
  cur: RunSnapshot;
  interrupted: string[];
  left: Array<{ node: string; why: string }>;
  forEach: ForEachDecision[];
}> {
  const runner = setup.runner('recovery');
  const r = await commit(setup, runner, async (cur) => {
    const rec = await recoveryFor(setup, cur);
    if (rec.events.length) failpoint('before-recover-write');
    // `mode: plan` also expands and joins for_each nodes in the same write (issue 28: protocol/expand.ts).
    const more = options.forEach ? forEachAfter(setup, cur, rec.events) : { events: [], decisions: [] };
    for (const d of more.decisions) decisionFailpoint('before', d);
    return {
      ...rec,
      events: [...rec.events, ...more.events],
      recovered: rec.events,
      forEach: more.decisions,
    };
  });
  if (r.chosen.recovered.length) failpoint('after-recover-write');
  for (const d of r.chosen.forEach) decisionFailpoint('after', d);
  return {
    cur: r.cur,
    interrupted: r.chosen.recovered.map((e) => ('node' in e ? e.node : '')),
    left: r.chosen.left,
    forEach: r.chosen.forEach,
  };
}

/** The expansions and joins the state after recovery allows. */
function forEachAfter(setup: RecoverySetup, cur: RunSnapshot, recovered: NewEvent[]) {
  const journal = recovered.length
    ? appendEvents(cur.journal, recovered, (setup.now ?? isoNow)())
    : cur.journal;
  const state = recovered.length ? fold(journal, setup.graph) : cur.state;
  return forEachEvents(setup.graph, journal, state, withCompletion);
}

/** Probes every in-flight attempt once (probes may be slow API calls), then answers recovery synchronously. */
async function probed(
  state: RunState,
  probe: RecoverySetup['probe'],
): Promise<(node: string, dispatch: DispatchInfo) => Probe> {
  const results = new Map<string, Probe>();
  for (const id of state.checkpoint.active_nodes) {
    const d = state.nodes.get(id)?.dispatch;
    if (d) results.set(id, await probe(id, d));
  }
  return (node) => results.get(node) ?? { gone: false, why: 'not probed', observed_ms: 0 };
}
