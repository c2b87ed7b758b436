/** `/interlock status`: each run's table and diagram, or why it cannot be shown. */
import type { Graph } from '../graph/model.js';
import type { Command } from './commands/parse.js';
import type { HandlerDeps } from './deps.js';
import { loadRun, type RunPlace, stateOf } from './lookup/load-run.js';
import { statusReply } from './replies/replies.js';
import type { Executed } from './request.js';

export async function statusCommand(
  deps: HandlerDeps,
  command: Extract<Command, { kind: 'status' }>,
  runIds: string[],
  found: { graphs: Map<string, Promise<Graph>>; places: ReadonlyMap<string, RunPlace> },
): Promise<Executed> {
  const shown = [];
  for (const runId of runIds) {
    const l = await loadRun(deps, runId, found.graphs, found.places);
    const s = l.ok ? stateOf(l.run) : undefined;
    shown.push(
      l.ok && s?.ok
        ? { runId, graph: l.run.graph, state: s.state }
        : { runId, problem: !l.ok ? l.problem : s && !s.ok ? s.problem : 'unreadable' },
    );
  }
  return {
    outcome: { kind: 'done', what: `status of ${runIds.join(', ')}`, command },
    reply: statusReply(shown),
  };
}
