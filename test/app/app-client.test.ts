// The App's Octokit (appOctokit, what `npm start` gives Probot) against the local GitHub: what it sends again
// after a failure, and what it must not.
import { ProbotOctokit } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appOctokit } from '../../src/app/server.js';
import { clientTuning } from '../../src/github/client.js';
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

const fastAppOctokit = () => client(appOctokit(fastProbotOctokit('app-client'), { requestTimeoutMs: 2_000 }));

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

  it('spaces the starts of writes by INTERLOCK_WRITE_INTERVAL_MS, as the Action does, and reads not at all', async () => {
    const gaps = async (env: NodeJS.ProcessEnv) => {
      const octokit = client(appOctokit(ProbotOctokit, clientTuning(env)));
      const since = server.requests.mark();
      for (const body of ['one', 'two', 'three'])
        await octokit.rest.issues.createComment({ ...repo, issue_number: 1, body });
      await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
      await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
      const at = server.requests.filter({ since }).map((r) => r.at);
      return at.slice(1).map((t, i) => t - at[i]!);
    };
    const spaced = await gaps({ INTERLOCK_WRITE_INTERVAL_MS: '400' });
    expect(spaced.slice(0, 2).every((g) => g >= 380)).toBe(true);
    expect(spaced.slice(2).every((g) => g < 300)).toBe(true);
    const unspaced = await gaps({ INTERLOCK_WRITE_INTERVAL_MS: '0' });
    expect(unspaced.every((g) => g < 300)).toBe(true);
  });
});
