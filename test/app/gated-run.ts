/**
 * A run that waits at an approval gate (`approval: before` on deploy), started by the admin: the journal the
 * App's gate tests (gate.test.ts) and the faces' approval terms (approval-terms.test.ts) both act on, written by
 * the store's own writer: the git store in the world's layout, or the file store for the CLI.
 */
import { parseGraph } from '../../src/graph/load/load.js';
import type { Graph } from '../../src/graph/model.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../../src/journal/events/events.js';
import type { RunnerInfo } from '../../src/journal/events/fields.js';
import { appendEvents } from '../../src/journal/parse.js';
import { seedFileJournal, seedGitJournal } from '../support/seed-journal.js';
import { GRAPH_PATH, OWNER, PEOPLE, REPO, WORKFLOW_REF, type World } from './world.js';

/** The workflow run whose job started the gated run (a `/fail-run` cancels it). */
export const GATED_WORKFLOW_RUN = 7002;

const RUNNER: RunnerInfo = {
  kind: 'actions',
  workflow_run_id: GATED_WORKFLOW_RUN,
  run_attempt: 1,
  job: 'interlock',
  runner_name: 'runner-7002',
  workflow_ref: WORKFLOW_REF,
};

/** `awaiting`: plan recorded, deploy awaits approval; `in-flight`: plan dispatched, nothing after. */
export type GatedShape = 'awaiting' | 'in-flight';

/** The graph at GRAPH_PATH, as the run accepted it. */
export function gatedGraph(text: string): Graph {
  return { ...parseGraph({ path: GRAPH_PATH, text }), path: GRAPH_PATH };
}

/** The journal of run `fix/issue-1` under `graph`, started by the admin, in `shape`. Pure. */
export function gatedJournal(graph: Graph, shape: GatedShape = 'awaiting'): Journal {
  const ref = { name: graph.name, hash: graph.hash, path: GRAPH_PATH };
  let j: Journal = { format: JOURNAL_FORMAT, run_id: 'fix/issue-1', graph: ref, events: [] };
  let t = Date.UTC(2025, 0, 1);
  const add = (events: NewEvent[]) => {
    t += 1000;
    j = appendEvents(j, events, new Date(t).toISOString());
  };
  add([
    {
      type: 'RunStarted',
      graph: ref,
      intent: 'issues.labeled label=fix',
      subject: 'issue-1',
      runner: RUNNER,
      inputs: {},
      started_by: PEOPLE.admin,
    },
  ]);
  add([
    {
      type: 'NodeDispatched',
      node: 'plan',
      attempt: 1,
      replay: 'never',
      approach: 'default',
      runner: RUNNER,
    },
  ]);
  if (shape === 'awaiting') {
    add([
      { type: 'NodeRecorded', node: 'plan', attempt: 1, evidence: [], outputs: {}, usage: { wall_ms: 5 } },
    ]);
    add([{ type: 'NodeAwaitingApproval', node: 'deploy', graph_hash: graph.hash }]);
  }
  return j;
}

/** Puts the gated graph on main and its run in the world's layout; returns the graph. */
export async function seedGatedRun(
  world: World,
  text: string,
  shape: GatedShape = 'awaiting',
): Promise<Graph> {
  world.repo.commitFiles('main', { [GRAPH_PATH]: text });
  const graph = gatedGraph(text);
  await seedGitJournal(world.server, `${OWNER}/${REPO}`, gatedJournal(graph, shape), world.layout);
  return graph;
}

/** Writes the gated run to a local journal file, as the CLI's file store keeps it. */
export function seedGatedFile(path: string, text: string): Promise<void> {
  return seedFileJournal(path, gatedJournal(gatedGraph(text)));
}
