/**
 * What the Action's gate suites share: a repository on the local GitHub with issue #7 labelled `ship`, routed to
 * a graph of the suite's own, and approvals written to a run's journal as `/approve` writes them.
 */
import type { NewEvent } from '../../src/journal/events/events.js';
import { appendEvents } from '../../src/journal/parse.js';
import { NEEDS_HUMAN_LABEL } from '../../src/render/words.js';
import { makeWorkspace } from '../support/action-process.js';
import {
  type GitHubServer,
  type LikeGitHubOptions,
  type RepoSpec,
  startGitHubServer,
} from '../support/github-server.js';
import { gitLayoutOf, seedGitJournal } from '../support/seed-journal.js';
import { FULL, JOURNAL_BRANCH, OWNER, REPO, readJournal, routeLabel } from './world.js';

export const SHIP_ROUTES = routeLabel('ship', '.github/interlock/ship.yml');

/**
 * The repository (with `repo`'s collaborators, workflows... added), issue #7, and a runner's workspace holding
 * the configuration (`config`, default the `ship` route alone) and the graph, on a local GitHub of its own.
 */
export async function startShipRepository(
  graph: string,
  opts: {
    config?: string;
    repo?: Omit<Partial<RepoSpec>, 'owner' | 'name'>;
    /** The local GitHub's model (default its own: GITHUB_CLOCK, test/support/clock.ts). */
    likeGitHub?: LikeGitHubOptions;
  } = {},
): Promise<{ server: GitHubServer; ws: string }> {
  const files = { '.github/interlock.yml': opts.config ?? SHIP_ROUTES, '.github/interlock/ship.yml': graph };
  const server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO, labels: [NEEDS_HUMAN_LABEL], files, ...opts.repo }],
    ...(opts.likeGitHub ? { likeGitHub: opts.likeGitHub } : {}),
  });
  server.state.repo(FULL).addIssue({ number: 7, title: 'Ship 1.2', labels: ['ship'] });
  return { server, ws: makeWorkspace(files) };
}

export interface Approval {
  by: string;
  /** The id of the comment it came from (its URL is the approval's source). */
  comment: number;
  required: number;
  guidance?: string;
}

/**
 * Appends `NodeApproved` events for `node`, bound to the run's graph hash, as the comment handler writes them:
 * through the git store's own writer, where the run is kept.
 */
export async function writeApprovals(
  server: GitHubServer,
  runId: string,
  node: string,
  approvals: Approval[],
): Promise<void> {
  const j = readJournal(server, runId);
  const events = approvals.map(
    (a): NewEvent => ({
      type: 'NodeApproved',
      node,
      approved_by: a.by,
      source: `https://github.com/${FULL}/issues/7#issuecomment-${a.comment}`,
      graph_hash: j.graph.hash,
      required: a.required,
      ...(a.guidance ? { guidance: a.guidance } : {}),
    }),
  );
  const next = appendEvents(j, events, new Date().toISOString());
  const layout = gitLayoutOf(server.state.repo(FULL), runId, JOURNAL_BRANCH);
  if (layout === undefined || layout === 'both')
    throw new Error(`${runId}: its journal is on ${layout ?? 'no branch'}`);
  await seedGitJournal(server, FULL, next, layout, JOURNAL_BRANCH);
}
