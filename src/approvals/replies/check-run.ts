// The run as a check run on a pull request's head commit, with an "Approve rerun" button per waiting node.
import { createHash } from 'node:crypto';
import { type Graph, nodeById } from '../../graph/model.js';
import type { Journal } from '../../journal/events/events.js';
import type { SubjectRef } from '../../journal/run-id.js';
import type { RunState } from '../../journal/state.js';
import { statusBlock } from '../../render/markdown.js';
import type { HandlerDeps } from '../deps.js';

/** GitHub's limits: three actions a check run, 20-character labels and identifiers, 40-character descriptions. */
const MAX_ACTIONS = 3;
const MAX_SUMMARY = 65_000;

const hex = (node: string) => createHash('sha256').update(node).digest('hex');
const short = (node: string) => hex(node).slice(0, 8);
const long = (node: string) => hex(node).slice(0, 12);

/**
 * The button identifier for a node (≤ 20 characters): its place in the graph and a hash of its id; a node the
 * graph does not list (an instance `work[3]`, a sub-graph's `review/build`, issue 28) by a longer hash alone
 * (`rerun:-:<12 hex>`). Pure.
 */
export function actionIdentifier(graph: Graph, node: string): string {
  const at = graph.nodes.findIndex((n) => n.id === node);
  return at >= 0 ? `rerun:${at}:${short(node)}` : `rerun:-:${long(node)}`;
}

/**
 * The node a button names, when the graph still has it at that place, or (for a node the graph does not list)
 * a node the run's journal names with that hash. Pure.
 */
export function nodeOfAction(graph: Graph, identifier: string, journal?: Journal): string | undefined {
  const named = /^rerun:-:([0-9a-f]{12})$/.exec(identifier);
  if (named) {
    const ids = new Set(
      journal?.events.flatMap((e) => ('node' in e && typeof e.node === 'string' ? [e.node] : [])),
    );
    return [...ids].find((id) => long(id) === named[1] && nodeById(graph, id) !== undefined);
  }
  const m = /^rerun:(\d{1,3}):([0-9a-f]{8})$/.exec(identifier);
  if (!m) return undefined;
  const node = graph.nodes[Number(m[1])]?.id;
  return node !== undefined && short(node) === m[2] ? node : undefined;
}

export const checkRunName = (runId: string) => `interlock ${runId}`;

/**
 * How the App shows a run of a pull request as a check run: status, summary, and an "Approve rerun" button per
 * waiting node; a blocked run concludes `action_required` so the buttons show. The check-run store draws the run
 * it holds with `storeCheckRunView` (action/report/store-check-run-view.ts) instead. Pure.
 */
export function approvalCheckRunView(graph: Graph, state: RunState, runId: string) {
  const cp = state.checkpoint;
  const waiting = [...cp.held_nodes, ...cp.escalated_nodes];
  const conclusion =
    cp.status === 'completed'
      ? ('success' as const)
      : cp.status === 'failed'
        ? ('failure' as const)
        : cp.status === 'blocked'
          ? ('action_required' as const)
          : undefined;
  let summary = [
    ...statusBlock(graph, state, { diagram: 'shown' }),
    '',
    waiting.length
      ? `Waiting for a person: ${waiting.map((n) => `\`${n}\``).join(', ')}. "Approve rerun" counts as one approval, with the same permission rules as \`/approve-rerun\`.`
      : '',
  ].join('\n');
  if (summary.length > MAX_SUMMARY) summary = `${summary.slice(0, MAX_SUMMARY)}\n…`;
  return {
    name: checkRunName(runId),
    external_id: runId,
    ...(conclusion ? { status: 'completed' as const, conclusion } : { status: 'in_progress' as const }),
    output: {
      title: `${runId}: ${cp.status}${waiting.length ? ` (${waiting.join(', ')} waiting)` : ''}`.slice(
        0,
        200,
      ),
      summary,
    },
    // A button names a graph node by its place, an instance or a sub-graph's node by its hash (issue 28).
    actions: waiting.slice(0, MAX_ACTIONS).map((node) => ({
      label: 'Approve rerun',
      identifier: actionIdentifier(graph, node),
      description: `Rerun ${node}`.slice(0, 40),
    })),
  };
}

/** Creates or updates the run's check run on a pull request's head commit (runs of issues have no commit). */
export async function publishCheckRun(
  deps: HandlerDeps,
  subject: SubjectRef,
  graph: Graph,
  state: RunState,
  runId: string,
): Promise<number | undefined> {
  if (subject.kind !== 'pr') return undefined;
  const pr = await deps.octokit.rest.pulls.get({ ...deps.repo, pull_number: subject.number });
  const view = approvalCheckRunView(graph, state, runId);
  const found = await deps.octokit.rest.checks.listForRef({
    ...deps.repo,
    ref: pr.data.head.sha,
    check_name: view.name,
  });
  const mine = found.data.check_runs.find((c) => c.external_id === runId);
  const details_url = pr.data.html_url;
  if (mine) {
    await deps.octokit.rest.checks.update({ ...deps.repo, check_run_id: mine.id, details_url, ...view });
    return mine.id;
  }
  const made = await deps.octokit.rest.checks.create({
    ...deps.repo,
    head_sha: pr.data.head.sha,
    details_url,
    ...view,
  });
  return made.data.id;
}
