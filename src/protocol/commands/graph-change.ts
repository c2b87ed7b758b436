/** Rule 6, the graph half: a run goes on under a changed graph only when a named person allows it, recorded. Pure. */
import type { Graph } from '../../graph/model.js';
import type { RunState } from '../../journal/state.js';
import type { CommandEvents } from './person-commands.js';

/** Rule 6: a run refuses to go on under a changed graph unless a named person allows it. */
export function graphChange(graph: Graph, state: RunState, allowedBy: string | undefined): CommandEvents {
  if (graph.hash === state.accepted_hash) return { ok: true, events: [] };
  // An ended run takes no event under any graph: a command on it says the run ended (and `run` how to start a new
  // one), not that the graph changed, which would offer a way on that does not exist.
  if (state.checkpoint.ended) return { ok: true, events: [] };
  if (!allowedBy) {
    return {
      ok: false,
      reason: `the graph changed since the run started (${state.accepted_hash} → ${graph.hash}); pass --allow-graph-change to go on under the new graph (it is recorded), or start a new run id`,
    };
  }
  return {
    ok: true,
    events: [{ type: 'GraphChangeAllowed', from: state.accepted_hash, to: graph.hash, by: allowedBy }],
  };
}
