/**
 * The workflow dispatch after a command asks GitHub for the run it started, and copes where GitHub does not say. It
 * reads and writes no journal, so it is the same whichever git layout keeps the run: the handler's deps name the
 * journal branch only because every face is given one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HandlerDeps } from '../../src/approvals/deps.js';
import { dispatchedRun, dispatchWorkflow } from '../../src/approvals/workflow/workflow-dispatch.js';
import { createClient, type GitHubClient } from '../../src/github/client.js';
import { DEFAULT_JOURNAL_BRANCH } from '../../src/store/git.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { handlerDeps } from '../support/handler-deps.js';

const REPO = { owner: 'acme', repo: 'widgets' };
const WEB = 'https://github.example';

describe('dispatchWorkflow', () => {
  let server: GitHubServer;
  beforeEach(async () => {
    server = await startGitHubServer({
      repos: [{ owner: 'acme', name: 'widgets', workflows: [{ file: 'interlock.yml', inputs: ['run-id'] }] }],
    });
  });
  afterEach(() => server.close());

  const deps = (octokit: GitHubClient): HandlerDeps =>
    handlerDeps({ octokit, repo: REPO, journalBranch: DEFAULT_JOURNAL_BRANCH, webUrl: WEB });

  it('records the workflow run GitHub says it started (200 with workflow_run_id) and links to it', async () => {
    const octokit = createClient({ token: 't', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
    const d = await dispatchWorkflow(deps(octokit), { file: 'interlock.yml' }, 'fix/issue-1', 'main');
    const dispatch = server.state.repo('acme/widgets').dispatches.at(-1)!;
    expect(d.workflowRunId).toBe(dispatch.run_id);
    expect(d.link).toMatch(new RegExp(`/acme/widgets/actions/runs/${dispatch.run_id}$`));
    expect(dispatch.inputs).toEqual({ 'run-id': 'fix/issue-1' });
  });

  it('where GitHub answers 204 with no body (an Enterprise Server without the option), links to the workflow', async () => {
    const octokit = {
      request: async () => ({ status: 204, data: undefined, headers: {}, url: '' }),
    } as unknown as GitHubClient;
    const d = await dispatchWorkflow(deps(octokit), { file: 'interlock.yml' }, 'fix/issue-1', 'main');
    expect(d).toEqual({ link: `${WEB}/acme/widgets/actions/workflows/interlock.yml` });
  });

  it('takes only a positive integer id and an http(s) page from the answer', () => {
    expect(dispatchedRun({ workflow_run_id: 7, html_url: 'https://x/runs/7' })).toEqual({
      workflowRunId: 7,
      html_url: 'https://x/runs/7',
    });
    expect(dispatchedRun({ workflow_run_id: '7', html_url: 'javascript:alert(1)' })).toEqual({});
    expect(dispatchedRun({ workflow_run_id: -1 })).toEqual({});
    expect(dispatchedRun('')).toEqual({});
  });
});
