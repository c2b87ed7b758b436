// The Mermaid text behind docs/images/example-graph.svg, shared by `npm run diagram` and its test, so the
// test knows the committed image is stale as soon as the graph or the renderer changes.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '../src/graph/canonical.js';
import type { Graph } from '../src/graph/model.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../src/journal/events/events.js';
import { fold } from '../src/journal/fold.js';
import { appendEvents } from '../src/journal/parse.js';
import type { RunState } from '../src/journal/state.js';
import { statusMermaid } from '../src/render/status.js';
import { loadGraphFile } from '../src/runner/journal-io/graph-file.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const EXAMPLE_GRAPH = 'examples/demo/fix-bug.yml';
export const DIAGRAM_SVG = 'docs/images/example-graph.svg';

/**
 * The moment of the demo (`npm run demo`) when a person is asked: `implement` passed on its third
 * approach, `docs` was interrupted and reran by itself (replay: safe), and `publish`, approved before it ran
 * (approval: before), was interrupted and is held (replay: never). Folded by the journal code, like
 * `interlock status` does.
 */
export function demoState(graph: Graph): RunState {
  const runner = { kind: 'local' as const, host: 'demo' };
  const ok = (node: string, attempt: number): NewEvent => ({
    type: 'NodeRecorded',
    node,
    attempt,
    evidence: [],
    outputs: {},
    usage: { wall_ms: 1000 },
  });
  const dispatched = (node: string, attempt: number, approach = 'default'): NewEvent => ({
    type: 'NodeDispatched',
    node,
    attempt,
    replay: node === 'docs' ? 'safe' : 'never',
    approach,
    runner,
  });
  const failed = (node: string, attempt: number): NewEvent => ({
    type: 'NodeFailed',
    node,
    attempt,
    failures: [{ check: 'command', message: 'the reproduction still fails' }],
    usage: { wall_ms: 1000 },
  });
  const interrupted = (node: string, attempt: number): NewEvent => ({
    type: 'NodeInterrupted',
    node,
    attempt,
    observed_usage: { wall_ms: 1000 },
  });
  const ref = { name: graph.name, hash: graph.hash, path: EXAMPLE_GRAPH };
  const empty: Journal = { format: JOURNAL_FORMAT, run_id: 'fix-bug', graph: ref, events: [] };
  const journal = appendEvents(
    empty,
    [
      { type: 'RunStarted', graph: ref, intent: 'cli', subject: 'local', runner },
      dispatched('reproduce', 1),
      ok('reproduce', 1),
      dispatched('implement', 1),
      failed('implement', 1),
      dispatched('implement', 2, 'retry[0]'),
      failed('implement', 2),
      dispatched('implement', 3, 'retry[1]'),
      ok('implement', 3),
      dispatched('docs', 1),
      interrupted('docs', 1),
      dispatched('docs', 2),
      ok('docs', 2),
      { type: 'NodeAwaitingApproval', node: 'publish', graph_hash: graph.hash },
      {
        type: 'NodeApproved',
        node: 'publish',
        approved_by: 'alice',
        source: 'cli:alice',
        graph_hash: graph.hash,
        required: 1,
      },
      dispatched('publish', 1),
      interrupted('publish', 1),
    ],
    '2025-01-01T00:00:00.000Z',
  );
  return fold(journal, graph);
}

/** The example graph and the exact Mermaid text `interlock status --mermaid` prints for it at that moment. */
export function exampleDiagram(): { graph: Graph; mermaid: string; hash: string } {
  const graph = loadGraphFile(join(ROOT, EXAMPLE_GRAPH));
  const mermaid = statusMermaid(graph, demoState(graph));
  return { graph, mermaid, hash: sha256(mermaid) };
}

/** The line at the top of the SVG that names the Mermaid source it was rendered from. */
export function sourceComment(hash: string): string {
  return `<!-- Rendered by npm run diagram from the Mermaid source of statusMermaid(${EXAMPLE_GRAPH}), mermaid-source=${hash}. Do not edit. -->`;
}
