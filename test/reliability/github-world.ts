/**
 * One local GitHub shared by many Action scenarios: a repository whose workflow can be dispatched, a person
 * with write permission who approves, an issue per scenario (so each has a run of its own), and a workflow run
 * per step that recovery can ask about.
 */

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_JOURNAL_BRANCH } from '../../src/store/git.js';
import type { StepOptions } from '../support/action-process.js';
import { type CacheServer, startCacheServer } from '../support/cache-server.js';
import { issuesLabeled, webhookExample } from '../support/fixtures.js';
import {
  type GitHubServer,
  type LikeGitHubOptions,
  type RepoState,
  startGitHubServer,
} from '../support/github-server.js';
import { journalText as journalTextIn } from '../support/journal-text.js';
import { type GitLayout, gitLayoutOf } from '../support/seed-journal.js';

export const OWNER = 'acme';
export const REPO = 'widgets';
export const FULL = `${OWNER}/${REPO}`;
/**
 * The journal branch the bundle is configured with (its default): a run it starts goes on a branch of its own,
 * `<JOURNAL_BRANCH>-runs/<run-id>`, and the branch itself holds only runs started before that layout.
 */
export const JOURNAL_BRANCH = DEFAULT_JOURNAL_BRANCH;
/** A collaborator with write permission: who approves and settles. */
export const APPROVER = 'alice';
export const WORKFLOW = 'interlock.yml';

export interface ActionWorld {
  server: GitHubServer;
  /** The Actions cache service the steps are given (sessions carried between workflow runs). */
  cache: CacheServer;
  repo: RepoState;
  /** A fresh issue; every scenario gets its own, so its run id is its own. */
  issue(title?: string): number;
  /** A workflow run in progress with one job on one runner, as GitHub shows a running job. */
  job(): { runId: number; runner: string };
  /** The job's run has ended (the runner died, or the job finished): recovery may now call it gone. */
  endJob(runId: number): void;
  /** Step options for an `issues.labeled` event on `issue`, in `job` (a new running job by default). */
  step(ws: string, issue: number, extra?: Partial<StepOptions> & { title?: string }): StepOptions;
  /** An `issue_comment.created` event by `login` on `issue`; the comment exists on the server. */
  comment(issue: number, body: string, login?: string): Record<string, unknown>;
  /** Commits files to the default branch (graphs the app reads back). */
  commit(files: Record<string, string>): void;
  /** The run's journal: on its own branch (where the bundle writes a new run), else the journal branch of before. */
  journalText(runId: string): string | undefined;
  /** Which of the git store's layouts holds the run's journal now ('both', or undefined for neither). */
  journalLayout(runId: string): GitLayout | 'both' | undefined;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** Files on the default branch at the start. */
  files?: Record<string, string>;
  /** Tokens that act as logins of their own (`x[bot]` logins are bots), to tell writers apart in the log. */
  tokens?: Record<string, string>;
  /**
   * Called as each request arrives, before it is answered or faulted: what another job does at that moment
   * (a race at a chosen request, made deterministic).
   */
  onRequest?: (request: { method: string; path: string }) => void;
  /** The like-GitHub model (default: on, without the secondary limit: see `startActionWorld`). */
  likeGitHub?: LikeGitHubOptions | false;
}

/**
 * The dispatch lease of the crash scenarios' steps (`INTERLOCK_DISPATCH_LEASE_MS`, default 60 s): a re-run of a
 * comment job that finds an approval's dispatch owed waits this out, which must end well within a scenario's minute
 * per command. The writer still has half of it to dispatch; one slower leaves the dispatch to a copy, as in production.
 */
export const CRASH_DISPATCH_LEASE_MS = '20000';

/**
 * The App's lease in the crash scenarios: a copy waits it out before it answers, and the model reads what was
 * applied from an answer given within `INTERLOCK_ANSWER_MS` (at most 8 s), so the wait must end well inside it.
 */
export const CRASH_APP_DISPATCH_LEASE_MS = '4000';

/** A server latency function that adds no delay: it only lets the hook act as each request arrives. */
function hookOnly(hook: (r: { method: string; path: string }) => void) {
  return (r: { method: string; path: string }): number => {
    hook(r);
    return 0;
  };
}

export async function startActionWorld(opts: WorldOptions = {}): Promise<ActionWorld> {
  const server = await startGitHubServer({
    // Hundreds of scenarios share one server: GitHub's hourly limit is not what these suites measure.
    rateLimit: Number.MAX_SAFE_INTEGER,
    // Nor the secondary limit: the scenarios share one token and wait retry-after 200 times faster than GitHub
    // asks, so their pace over a minute is that of many repositories, not one run's. Stale reads and raced
    // writes stay on; the matrix race measures one run against the limit (races-matrix.test.ts).
    likeGitHub: opts.likeGitHub ?? { secondaryLimit: false },
    ...(opts.tokens ? { tokens: opts.tokens } : {}),
    ...(opts.onRequest ? { latencyMs: hookOnly(opts.onRequest) } : {}),
    repos: [
      {
        owner: OWNER,
        name: REPO,
        files: { 'README.md': '# widgets\n', ...(opts.files ?? {}) },
        collaborators: { [APPROVER]: 'write', rita: 'read' },
        workflows: [{ file: WORKFLOW, inputs: ['run-id'] }],
        labels: ['interlock: needs human'],
      },
    ],
  });
  const cache = await startCacheServer();
  const repo = server.state.repo(FULL);
  let nextIssue = 1;
  let nextRun = 10_000;
  let nextComment = 500_000;
  const titles = new Map<number, string>();
  const world: ActionWorld = {
    server,
    cache,
    repo,
    issue(title = 'Reliability') {
      const number = nextIssue++;
      repo.addIssue({ number, title, labels: ['interlock'] });
      titles.set(number, title);
      return number;
    },
    job() {
      const runId = ++nextRun;
      const runner = `runner-${runId}`;
      repo.addWorkflowRun({
        workflow: WORKFLOW,
        id: runId,
        event: 'issues',
        status: 'in_progress',
        conclusion: null,
        jobs: [
          {
            name: 'interlock',
            runner_name: runner,
            status: 'in_progress',
            conclusion: null,
            started_at: new Date(Date.now() - 1000).toISOString(),
            completed_at: null,
          },
        ],
      });
      return { runId, runner };
    },
    endJob(runId) {
      repo.updateWorkflowRun(runId, { status: 'completed', conclusion: 'cancelled' });
    },
    step(ws, issue, extra = {}) {
      const { title, ...rest } = extra;
      const job = rest.job ?? world.job();
      return {
        apiUrl: server.url,
        repository: FULL,
        workspace: ws,
        eventName: 'issues',
        payload: issuesLabeled(OWNER, REPO, issue, 'interlock', title ?? titles.get(issue)),
        inputs: {},
        ...rest,
        job: { runId: job.runId, runner: job.runner ?? `runner-${job.runId}` },
      };
    },
    comment(issue, body, login = APPROVER) {
      const id = ++nextComment;
      repo.addComment(issue, body, login, { id });
      const p = webhookExample('issue_comment', 'created') as {
        issue: Record<string, unknown>;
        comment: Record<string, unknown>;
        sender: Record<string, unknown>;
        repository: Record<string, unknown> & { owner: Record<string, unknown> };
        installation?: unknown;
      };
      const url = `https://github.com/${FULL}/issues/${issue}`;
      p.issue = { ...p.issue, number: issue, html_url: url, labels: [], title: titles.get(issue) ?? 'x' };
      delete p.issue.pull_request;
      p.comment = {
        ...p.comment,
        id,
        body,
        html_url: `${url}#issuecomment-${id}`,
        user: { ...(p.comment.user as object), login, type: 'User' },
        // As GitHub's: made now (what a person saw before commenting was written before this).
        created_at: new Date().toISOString(),
      };
      p.sender = { ...p.sender, login, type: 'User' };
      p.repository = ourRepository(p.repository);
      delete p.installation;
      return p as unknown as Record<string, unknown>;
    },
    commit(files) {
      repo.commitFiles('main', files);
    },
    journalText(runId) {
      return journalTextIn(repo, runId, JOURNAL_BRANCH);
    },
    journalLayout(runId) {
      return gitLayoutOf(repo, runId, JOURNAL_BRANCH);
    },
    close: async () => {
      await cache.close();
      await server.close();
    },
  };
  return world;
}

/** A webhook example's `repository`, made this world's repository. */
export function ourRepository(repository: Record<string, unknown>): Record<string, unknown> & {
  owner: Record<string, unknown>;
} {
  return {
    ...repository,
    name: REPO,
    full_name: FULL,
    html_url: `https://github.com/${FULL}`,
    default_branch: 'main',
    owner: { ...(repository.owner as Record<string, unknown>), login: OWNER },
  };
}

/** A workspace directory with these files (a checkout of the repository, as the runner gives a step). */
export function workspace(root: string, files: Record<string, string>): string {
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(join(root, 'ws-'));
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, text);
  }
  return dir;
}
