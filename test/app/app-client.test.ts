// The App's Octokit (appOctokit, what `npm start` gives Probot) against the local GitHub: what it sends again
// after a failure, and what it must not.
import type { ProbotOctokit } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appOctokit } from '../../src/app/server.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { fastProbotOctokit } from './world.js';

const repo = { owner: 'acme', repo: 'widgets' };
const COMMENTS = '/repos/{owner}/{repo}/issues/{issue_number}/comments';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function client(Client: typeof ProbotOctokit): InstanceType<typeof ProbotOctokit> {
  return new Client({ auth: { token: 'test' }, baseUrl: server.url, log: quiet } as ConstructorParameters<
    typeof Client
  >[0]);
}

const fastAppOctokit = () => client(appOctokit(fastProbotOctokit('app-client'), 2_000));

let server: GitHubServer;
beforeEach(async () => {
  server = await startGitHubServer({
    repos: [{ owner: repo.owner, name: repo.repo, issues: [{ title: 'a bug' }] }],
  });
});
afterEach(() => server.close());

const statuses = (kind: string) => server.requests.filter({ kind }).map((entry) => entry.status);

describe("the App's Octokit", () => {
  it('does not post a reply again when the answer to the first was lost: one comment', async () => {
    const octokit = fastAppOctokit();
    server.faults.inject({
      method: 'POST',
      path: COMMENTS,
      when: 'after',
      fault: { kind: 'status', status: 502 },
    });
    await expect(
      octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'once' }),
    ).rejects.toMatchObject({ status: 502 });
    expect(statuses(`POST ${COMMENTS}`)).toEqual([502]);
    const { data } = await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    expect(data.map((c) => c.body)).toEqual(['once']);
  });

  it('still retries a read after a server error, and a post a rate limit refused', async () => {
    const octokit = fastAppOctokit();
    server.faults.inject({ method: 'GET', path: COMMENTS, fault: { kind: 'status', status: 502 } });
    await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    expect(statuses(`GET ${COMMENTS}`)).toEqual([502, 200]);
    server.faults.inject({
      method: 'POST',
      path: COMMENTS,
      fault: { kind: 'secondary-rate-limit', retryAfter: 1 },
    });
    await octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'after the limit' });
    expect(statuses(`POST ${COMMENTS}`)).toEqual([403, 201]);
  });

  it("Probot's own Octokit would post it twice (what appOctokit changes)", async () => {
    const octokit = client(fastProbotOctokit('probot-client'));
    server.faults.inject({
      method: 'POST',
      path: COMMENTS,
      when: 'after',
      fault: { kind: 'status', status: 502 },
    });
    await octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'twice' });
    const { data } = await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    expect(data.map((c) => c.body)).toEqual(['twice', 'twice']);
  });
});
