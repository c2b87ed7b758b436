/**
 * The world of the fan-out suites through the bundled action (issue 28: for-each.test.ts, subgraphs.test.ts): a
 * repository whose issue 7 starts a run, one workflow run whose jobs are a planner, the plan steps, one matrix
 * job per node listed and a `rest` job; `/approve-rerun` delivered as GitHub delivers a comment; and the run
 * the approval dispatches. On the order clock (test/support/clock.ts).
 */
import { readFileSync } from 'node:fs';
import type { components } from '@octokit/openapi-types';
import { makeWorkspace, runStep, type StepOptions, worldLog } from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { issuesLabeled, webhookExample } from '../support/fixtures.js';
import type { GitHubServer } from '../support/github-server.js';
import { SHIP_ROUTES, startShipRepository } from './gate-world.js';
import { FULL, OWNER, REPO, readJournal, workflowRun } from './world.js';

type CommentCreated = components['schemas']['webhook-issue-comment-created'];

export const RUN = 'ship/issue-7';
export const RUN_ID = 5151;
export const CONFIG = `${SHIP_ROUTES}approvals:
  permission: write
`;

export interface FanWorld {
  server: GitHubServer;
  files: Record<string, string>;
  /** Files a node's command appends its effects to, and the integrator writes what it saw to. */
  EFFECTS: string;
  ALL_FILE: string;
  /** A job of the workflow run: its own checkout, as on GitHub. */
  job(key: string, runner: string, inputs: Record<string, string>, ws?: string): StepOptions;
  /** `/approve-rerun` as GitHub delivers the comment (`issue_comment.created`), to a `mode: comment` step. */
  comment(body: string, login: string): ReturnType<typeof runStep>;
  /** The run the last dispatch started, as one `node: all` job. */
  dispatched(): ReturnType<typeof runStep>;
  journal(): ReturnType<typeof readJournal>;
  effects(): string[];
}

/** Starts the world: `graphs` are the files under .github/interlock/ (ship.yml first), `matrix` the jobs' nodes. */
export async function startFanWorld(graphs: Record<string, string>, matrix: string[]): Promise<FanWorld> {
  const files: Record<string, string> = { '.github/interlock.yml': CONFIG };
  for (const [name, text] of Object.entries(graphs)) files[`.github/interlock/${name}`] = text;
  // The fan-out suites are about order (who dispatches, records and joins what), not GitHub's timing.
  const { server } = await startShipRepository(graphs['ship.yml']!, {
    likeGitHub: ORDER_CLOCK,
    config: CONFIG,
    repo: {
      collaborators: { mia: 'maintain' },
      workflows: [{ file: 'interlock.yml', inputs: ['run-id'] }],
      files,
    },
  });
  server.state.repo(FULL).addWorkflowRun({
    workflow: 'interlock.yml',
    id: RUN_ID,
    event: 'issues',
    status: 'in_progress',
    jobs: [
      { name: 'plan', runner_name: 'runner-plan', status: 'in_progress' },
      { name: 'planner', runner_name: 'runner-planner', status: 'in_progress' },
      ...matrix.map((id, i) => ({
        name: `node (${id})`,
        runner_name: `runner-${i + 1}`,
        status: 'in_progress' as const,
      })),
      { name: 'rest', runner_name: 'runner-rest', status: 'in_progress' },
    ],
  });
  const EFFECTS = worldLog();
  const ALL_FILE = worldLog();
  const web = `https://github.com/${FULL}`;
  return {
    server,
    files,
    EFFECTS,
    ALL_FILE,
    job: (key, runner, inputs, ws = makeWorkspace(files)) => ({
      apiUrl: server.url,
      repository: FULL,
      workspace: ws,
      eventName: 'issues',
      payload: issuesLabeled(OWNER, REPO, 7, 'ship', 'Ship 1.2'),
      inputs,
      job: { runId: RUN_ID, attempt: 1, job: key, runner },
      env: { EFFECTS, ALL_FILE },
    }),
    comment(body, login) {
      const repo = server.state.repo(FULL);
      const made = repo.addComment(7, body, login);
      const p = webhookExample('issue_comment', 'created') as unknown as CommentCreated;
      p.comment = {
        ...p.comment,
        id: made.id,
        body,
        html_url: `${web}/issues/7#issuecomment-${made.id}`,
        user: { ...p.comment.user!, login, type: 'User' },
      };
      const { pull_request: _, ...issue } = p.issue;
      p.issue = { ...issue, number: 7, html_url: `${web}/issues/7`, labels: [] };
      p.sender = { ...p.sender, login, type: 'User' };
      p.repository = {
        ...p.repository,
        name: REPO,
        full_name: FULL,
        html_url: web,
        default_branch: 'main',
        owner: { ...p.repository.owner, login: OWNER },
      };
      delete p.installation;
      return runStep({
        apiUrl: server.url,
        repository: FULL,
        workspace: makeWorkspace({}),
        eventName: 'issue_comment',
        payload: p as unknown as Record<string, unknown>,
        inputs: { mode: 'comment' },
        job: { runId: workflowRun(repo, ['runner-comment']) },
      });
    },
    dispatched() {
      const dispatch = server.state.repo(FULL).dispatches.at(-1)!;
      const runner = 'runner-dispatched';
      return runStep({
        apiUrl: server.url,
        repository: FULL,
        workspace: makeWorkspace(files),
        eventName: 'workflow_dispatch',
        payload: {
          ...(webhookExample('workflow_dispatch') as Record<string, unknown>),
          inputs: dispatch.inputs,
        },
        inputs: { node: 'all', 'run-id': RUN },
        job: { runId: workflowRun(server.state.repo(FULL), [runner]), runner },
        env: { EFFECTS, ALL_FILE },
      });
    },
    journal: () => readJournal(server, RUN),
    effects: () => readFileSync(EFFECTS, 'utf8').trim().split('\n').filter(Boolean),
  };
}
