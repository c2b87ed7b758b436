/**
 * What the Action's end-to-end suites share: a repository on the local GitHub, workflow runs recovery can ask
 * about, step options as a runner sets them, and readers for the journal the steps left behind.
 */
import { existsSync } from 'node:fs';
import { expect } from 'vitest';
import type { Journal, JournalEvent } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal } from '../../src/journal/parse.js';
import type { RunState } from '../../src/journal/state.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';
import { DEFAULT_JOURNAL_BRANCH } from '../../src/store/git.js';
import type { StepOptions } from '../support/action-process.js';
import { issuesLabeled, webhookExample } from '../support/fixtures.js';
import type { GitHubServer, RepoState } from '../support/github-server.js';
import { journalText as journalTextIn } from '../support/journal-text.js';

export const OWNER = 'acme';
export const REPO = 'widgets';
export const FULL = `${OWNER}/${REPO}`;
/**
 * The git store's branch name, as the product defaults it: a run's journal is on its own branch under it
 * (`interlock-journal-runs/<run-id>`, what every step writes today); `journalText` reads that first, and the branch
 * itself only for a journal of the layout before.
 */
export const JOURNAL_BRANCH = DEFAULT_JOURNAL_BRANCH;
/** GitHub's path templates, as fault rules match them; `GET ${CONTENTS}` is the request log's kind. */
export const CONTENTS = '/repos/{owner}/{repo}/contents/{path}';
export const COMMENT = '/repos/{owner}/{repo}/issues/comments/{comment_id}';
export const CONTENTS_GET = `GET ${CONTENTS}`;
export const CONTENTS_PUT = `PUT ${CONTENTS}`;
export const COMMENT_PATCH = `PATCH ${COMMENT}`;
export const JOBS_GET = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs';

/** A routes table sending `label` on issues to the graph at `graph`. */
export const routeLabel = (label: string, graph: string) => `routes:
  - event: issues
    action: labeled
    label: "${label}"
    graph: ${graph}
`;

let nextRunId = 9000;

/** A workflow run GitHub knows, with one job per runner, so recovery can ask whether each is still going. */
export function workflowRun(
  repo: RepoState,
  runners: string[],
  opts: { status?: 'in_progress' | 'completed'; job?: string } = {},
): number {
  const id = ++nextRunId;
  const status = opts.status ?? 'in_progress';
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id,
    event: 'issues',
    status,
    conclusion: status === 'completed' ? 'cancelled' : null,
    jobs: runners.map((runner, i) => ({
      name: runners.length > 1 ? `${opts.job ?? 'interlock'} (${i + 1})` : (opts.job ?? 'interlock'),
      runner_name: runner,
      status,
      conclusion: status === 'completed' ? 'cancelled' : null,
      started_at: new Date(Date.now() - 60_000).toISOString(),
      completed_at: status === 'completed' ? new Date().toISOString() : null,
    })),
  });
  return id;
}

/** Ends a workflow run (cancelled), as GitHub shows it once the runner is gone. */
export function endWorkflowRun(repo: RepoState, id: number): void {
  repo.updateWorkflowRun(id, { status: 'completed', conclusion: 'cancelled' });
}

/** Step options for an issue labelled `label`, in a workflow run of its own that GitHub says is running. */
export function issueStep(
  server: GitHubServer,
  ws: string,
  issue: number,
  label: string,
  extra: Partial<StepOptions> = {},
): StepOptions {
  const repo = server.state.repo(FULL);
  const runner = `runner-${nextRunId + 1}`;
  const runId = workflowRun(repo, [runner]);
  return {
    apiUrl: server.url,
    repository: FULL,
    workspace: ws,
    eventName: 'issues',
    payload: issuesLabeled(OWNER, REPO, issue, label, repo.issue(issue)?.title),
    inputs: {},
    job: { runId, runner },
    ...extra,
  };
}

/** A real `pull_request.opened` payload pointed at pull request `number` of the test repository. */
export function pullRequestOpened(repo: RepoState, number: number): Record<string, unknown> {
  const p = webhookExample('pull_request', 'opened') as {
    number: number;
    pull_request: {
      number: number;
      head: { ref: string; sha: string; repo: unknown };
      base: { ref: string; sha: string; repo: unknown };
    };
    repository: { name: string; full_name: string; owner: { login: string } };
  };
  const issue = repo.issue(number);
  if (!issue?.pull) throw new Error(`#${number} is not a pull request`);
  p.number = number;
  p.pull_request.number = number;
  p.pull_request.head = { ...p.pull_request.head, ref: issue.pull.head.ref, sha: repo.pullHeadSha(issue) };
  p.pull_request.base = { ...p.pull_request.base, ref: issue.pull.base.ref, sha: issue.pull.base.sha };
  p.repository = {
    ...p.repository,
    name: REPO,
    full_name: FULL,
    owner: { ...p.repository.owner, login: OWNER },
  };
  return p as unknown as Record<string, unknown>;
}

export function journalText(server: GitHubServer, runId: string): string | undefined {
  return journalTextIn(server.state.repo(FULL), runId, JOURNAL_BRANCH);
}

export function readJournal(server: GitHubServer, runId: string): Journal {
  const text = journalText(server, runId);
  if (text === undefined) throw new Error(`no journal for ${runId}`);
  return parseJournal(text, runId);
}

/**
 * The journal parses, validates and folds under the graph, and its events are numbered 1, 2, 3... with no gap
 * and no repeat: nothing was lost or written twice.
 */
export function validJournal(journal: Journal, graphFile: string): RunState {
  expect(journal.events.map((e) => e.seq)).toEqual(journal.events.map((_, i) => i + 1));
  return fold(journal, loadGraphFile(graphFile));
}

export function eventsOf<T extends JournalEvent['type']>(
  journal: Journal,
  type: T,
  node?: string,
): Extract<JournalEvent, { type: T }>[] {
  return journal.events.filter(
    (e): e is Extract<JournalEvent, { type: T }> =>
      e.type === type && (node === undefined || ('node' in e && e.node === node)),
  );
}

export async function waitForFile(path: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > end) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
