/**
 * Recovery (rule 3): every in-flight attempt whose executor is provably gone becomes `NodeInterrupted`, with the
 * usage observed so far as a lower bound. Whether an interrupted node is then held or ready is the fold's rule
 * (`nodeInterrupted` in journal/reducers/reducers.ts). Pure: the shell probes the executors and passes the answers in.
 */
import type { NewEvent } from '../journal/events/events.js';
import type { DispatchInfo, RunState } from '../journal/state.js';

/** What recovery learned about one in-flight attempt's executor. */
export interface Probe {
  gone: boolean;
  why: string;
  /** Usage observed so far: a lower bound. */
  observed_ms: number;
  /** The attempt's own processes still running on this host although its executor exited (a killed CLI's node). */
  running?: readonly number[];
}

/** Rule 3: every in-flight attempt whose executor is provably gone becomes NodeInterrupted. */
export function recoverEvents(
  state: RunState,
  probe: (node: string, dispatch: DispatchInfo) => Probe,
  by: string,
): { events: NewEvent[]; left: Array<{ node: string; why: string }> } {
  const events: NewEvent[] = [];
  const left: Array<{ node: string; why: string }> = [];
  if (state.checkpoint.ended) return { events, left };
  for (const id of state.checkpoint.active_nodes) {
    const d = state.nodes.get(id)?.dispatch;
    if (!d) continue;
    const r = probe(id, d);
    if (r.gone) {
      events.push({
        type: 'NodeInterrupted',
        node: id,
        attempt: d.attempt,
        observed_usage: { wall_ms: r.observed_ms },
        by,
      });
    } else left.push({ node: id, why: r.why });
  }
  return { events, left };
}
