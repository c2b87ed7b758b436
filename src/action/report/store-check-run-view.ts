import type { Graph } from '../../graph/model.js';
import type { Journal } from '../../journal/events/events.js';
import { fold, foldOnto } from '../../journal/fold.js';
import type { RunState } from '../../journal/state.js';
import { statusMarkdown, statusMermaid } from '../../render/status.js';
import type { CheckRunRenderer } from '../../store/check-run.js';

/**
 * How the check-run store shows the run it holds in the Checks tab: a table of nodes and a diagram coloured by
 * state; a conclusion only once the run has ended (a blocked run may still go on after a person's command).
 * Not to be confused with `approvalCheckRunView` (approvals/replies/check-run.ts), the App's check run for a run
 * stored elsewhere, which concludes a blocked run `action_required` so its "Approve rerun" buttons show.
 */
export function storeCheckRunView(graph: Graph, secrets: readonly string[] = []): CheckRunRenderer {
  // The state last drawn: the next journal this step writes continues it, so only its new events are folded onto
  // it (`foldOnto` folds from scratch a journal that does not continue it).
  let drawn: RunState | undefined;
  return (journal: Journal) => {
    let state: RunState;
    try {
      state = drawn ? foldOnto(drawn, journal, graph) : fold(journal, graph);
      drawn = state;
    } catch {
      // A journal the graph cannot fold is refused before it is written; say little rather than fail here.
      return { title: `interlock: ${journal.run_id}`, summary: `${journal.events.length} events` };
    }
    const cp = state.checkpoint;
    return {
      title: `interlock: ${journal.run_id}: ${cp.status}`,
      summary: [
        statusMarkdown(graph, state, secrets),
        '',
        '```mermaid',
        statusMermaid(graph, state),
        '```',
      ].join('\n'),
      ...(cp.status === 'completed'
        ? { conclusion: 'success' as const }
        : cp.status === 'failed'
          ? { conclusion: 'failure' as const }
          : {}),
    };
  };
}
