import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClientOptions,
  createClient,
  DO_NOT_RETRY,
  type GitHubClient,
  resendable,
  retryWait,
} from '../../src/github/client.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';

const repo = { owner: 'acme', repo: 'widgets' };
const CONTENTS = '/repos/{owner}/{repo}/contents/{path}';
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('retryWait: which failures are tried again, and after how long', () => {
  const failure = (status: number, message = '', headers: Record<string, string> = {}) => ({
    status,
    message,
    response: { headers },
  });

  it('server errors, timeouts and dropped connections (500 and up): 1, 4, 9 seconds', () => {
    expect([0, 1, 2].map((tries) => retryWait(failure(502), tries)?.seconds)).toEqual([1, 4, 9]);
    expect(retryWait(failure(500, 'fetch failed'), 0)).toEqual({ seconds: 1, why: 'error 500' });
  });

  it('a secondary rate limit waits its retry-after; without one, until the reset, or 60 s doubled each retry', () => {
    const message =
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';
    expect(retryWait(failure(403, message, { 'retry-after': '7' }), 0)).toEqual({
      seconds: 7,
      why: 'secondary rate limit',
    });
    expect([0, 1, 2].map((tries) => retryWait(failure(403, message), tries)?.seconds)).toEqual([
      60, 120, 240,
    ]);
    const now = 1_800_000_000_000;
    const spent = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 30) };
    expect(retryWait(failure(403, message, spent), 0, now)?.seconds).toBe(31);
    expect(retryWait(failure(429, 'slow down', { 'retry-after': '3' }), 0)?.seconds).toBe(3);
    expect(retryWait(failure(429, 'slow down'), 1)).toEqual({ seconds: 120, why: 'secondary rate limit' });
  });

  it('a spent primary rate limit waits until its reset, and a second more', () => {
    const now = 1_800_000_000_000;
    const headers = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 90) };
    expect(retryWait(failure(403, 'API rate limit exceeded', headers), 0, now)).toEqual({
      seconds: 91,
      why: 'rate limit',
    });
  });

  it('what a resend cannot fix is not retried: a plain 403, 404, a 409 conflict, 422, no status at all', () => {
    // The App's client hands the same list to Probot's retry plugin; 429 is always a rate limit here.
    for (const status of DO_NOT_RETRY.filter((s) => s !== 429))
      expect(retryWait(failure(status, 'Resource not accessible by integration'), 0)).toBeUndefined();
    expect(retryWait(new Error('not a request'), 0)).toBeUndefined();
    expect(retryWait(undefined, 0)).toBeUndefined();
  });
});

describe('resendable: what may be sent again after its answer was lost', () => {
  const lost = { status: 502 };
  it('reads and updates, yes; a POST that creates something (comment, check run, dispatch), no', () => {
    expect(resendable('GET', '/repos/{owner}/{repo}/contents/{path}', lost)).toBe(true);
    expect(resendable('PUT', '/repos/{owner}/{repo}/contents/{path}', lost)).toBe(true);
    expect(resendable('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', lost)).toBe(true);
    expect(resendable('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', lost)).toBe(false);
    expect(resendable('POST', '/repos/{owner}/{repo}/check-runs', lost)).toBe(false);
    expect(resendable('POST', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', lost)).toBe(
      false,
    );
  });
  it('git objects, refs, labels and reactions, yes; any request a rate limit refused, yes', () => {
    for (const url of ['git/blobs', 'git/trees', 'git/commits', 'git/refs', 'issues/{issue_number}/labels'])
      expect(resendable('POST', `/repos/{owner}/{repo}/${url}`, lost)).toBe(true);
    expect(resendable('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', { status: 429 })).toBe(
      true,
    );
  });
});

describe('createClient against the local GitHub', () => {
  let server: GitHubServer;
  let said: string[];
  let octokit: GitHubClient;

  beforeEach(async () => {
    server = await startGitHubServer({
      repos: [
        {
          owner: repo.owner,
          name: repo.repo,
          files: { 'README.md': '# widgets\n' },
          issues: [{ title: 'a bug' }],
        },
      ],
    });
    said = [];
    octokit = clientWith({});
  });
  afterEach(() => server.close());

  /** A client of the local GitHub with tiny waits, logging into `said`; `extra` changes any option. */
  const clientWith = (extra: Partial<ClientOptions>): GitHubClient =>
    createClient({
      token: 'test',
      baseUrl: server.url,
      retryAfterBaseValue: 1,
      writeIntervalMs: 0,
      log: (m) => said.push(m),
      ...extra,
    });

  const statuses = (kind: string) => server.requests.filter({ kind }).map((entry) => entry.status);

  it('retries a server error and says so', async () => {
    server.faults.inject({ method: 'GET', path: CONTENTS, fault: { kind: 'status', status: 502 } });
    await octokit.rest.repos.getContent({ ...repo, path: 'README.md' });
    expect(statuses(`GET ${CONTENTS}`)).toEqual([502, 200]);
    expect(said).toEqual([`GitHub error 502 on GET ${CONTENTS}; retry 1 of 3 after 1s`]);
  });

  it('gives up after three retries (four tries in all) and throws the last error', async () => {
    server.faults.inject({
      method: 'GET',
      path: CONTENTS,
      every: true,
      fault: { kind: 'status', status: 503 },
    });
    await expect(octokit.rest.repos.getContent({ ...repo, path: 'README.md' })).rejects.toMatchObject({
      status: 503,
    });
    expect(statuses(`GET ${CONTENTS}`)).toEqual([503, 503, 503, 503]);
    expect(said.at(-1)).toBe(`GitHub error 503 on GET ${CONTENTS}; giving up after 3 retries`);
  });

  it('waits out a secondary rate limit for its retry-after (in seconds of retryAfterBaseValue), then writes once', async () => {
    const slow = clientWith({ retryAfterBaseValue: 40 });
    server.faults.inject({
      method: 'PUT',
      path: CONTENTS,
      fault: { kind: 'secondary-rate-limit', retryAfter: 2 },
    });
    await slow.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'a.txt',
      message: 'a',
      content: b64('a'),
    });
    const puts = server.requests.filter({ kind: `PUT ${CONTENTS}` });
    expect(puts.map((entry) => entry.status)).toEqual([403, 201]);
    // retry-after 2 × 40 ms: the retry cannot arrive sooner.
    expect(puts[1]!.at - puts[0]!.at).toBeGreaterThanOrEqual(80);
    expect(said).toEqual([`GitHub secondary rate limit on PUT ${CONTENTS}; retry 1 of 3 after 2s`]);
    expect(server.state.repo('acme/widgets').readText('a.txt')).toBe('a');
  });

  it('waits out a spent primary rate limit until its reset, then reads', async () => {
    server.faults.inject({
      method: 'GET',
      path: CONTENTS,
      fault: { kind: 'primary-rate-limit', resetInSeconds: 1 },
    });
    await octokit.rest.repos.getContent({ ...repo, path: 'README.md' });
    expect(statuses(`GET ${CONTENTS}`)).toEqual([403, 200]);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^GitHub rate limit on GET \/repos\/\{owner\}\/\{repo\}\/contents\/\{path\}; retry 1 of 3 after [12]s$/,
    );
  });

  it('does not send a new comment again after its answer was lost: one comment, and the error', async () => {
    const COMMENTS = '/repos/{owner}/{repo}/issues/{issue_number}/comments';
    server.faults.inject({
      method: 'POST',
      path: COMMENTS,
      when: 'after',
      fault: { kind: 'status', status: 502 },
    });
    await expect(
      octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'once' }),
    ).rejects.toMatchObject({
      status: 502,
    });
    expect(statuses(`POST ${COMMENTS}`)).toEqual([502]);
    const { data } = await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    expect(data.map((c) => c.body)).toEqual(['once']);
    expect(said).toEqual([
      `GitHub error 502 on POST ${COMMENTS}; not sent again: it may have been carried out, and a resend would do it twice`,
    ]);
  });

  it('sends a git object again after a lost answer (the same content is the same object)', async () => {
    const TREES = '/repos/{owner}/{repo}/git/trees';
    server.faults.inject({
      method: 'POST',
      path: TREES,
      when: 'after',
      fault: { kind: 'status', status: 502 },
    });
    const { data } = await octokit.rest.git.createTree({
      ...repo,
      tree: [{ path: 'x.txt', mode: '100644', type: 'blob', content: 'x' }],
    });
    expect(statuses(`POST ${TREES}`)).toEqual([502, 201]);
    expect(data.sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('a request may set its own budget: request.retries 0 is one try', async () => {
    server.faults.inject({ method: 'GET', path: CONTENTS, fault: { kind: 'status', status: 502 } });
    await expect(
      octokit.rest.repos.getContent({ ...repo, path: 'README.md', request: { retries: 0 } }),
    ).rejects.toMatchObject({ status: 502 });
    expect(statuses(`GET ${CONTENTS}`)).toEqual([502]);
    expect(said).toEqual([`GitHub error 502 on GET ${CONTENTS}; giving up after 0 retries`]);
  });

  it('leaves a conflict to the caller: a 409 is sent once', async () => {
    await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'b.txt',
      message: 'b',
      content: b64('b'),
    });
    const stale = '0'.repeat(40);
    await expect(
      octokit.rest.repos.createOrUpdateFileContents({
        ...repo,
        path: 'b.txt',
        message: 'b2',
        content: b64('b2'),
        sha: stale,
      }),
    ).rejects.toMatchObject({ status: 409 });
    expect(statuses(`PUT ${CONTENTS}`)).toEqual([201, 409]);
    expect(said).toEqual([]);
  });

  it('a request that never answers counts as failed after the deadline and is tried again', async () => {
    const quick = clientWith({ requestTimeoutMs: 200 });
    server.faults.inject({ method: 'GET', path: CONTENTS, fault: { kind: 'timeout' } });
    await quick.rest.repos.getContent({ ...repo, path: 'README.md' });
    expect(server.requests.filter({ kind: `GET ${CONTENTS}` })).toHaveLength(2);
    expect(said).toEqual([`GitHub error 500 on GET ${CONTENTS}; retry 1 of 3 after 1s`]);
  });

  it('spaces the starts of writes by the write interval and leaves reads alone', async () => {
    // A whole second between writes, so that a loaded machine's slow requests cannot blur the two bounds below.
    const spaced = clientWith({ writeIntervalMs: 1_000 });
    const put = (path: string) =>
      spaced.rest.repos.createOrUpdateFileContents({ ...repo, path, message: path, content: b64(path) });
    await put('c.txt');
    await spaced.rest.repos.getContent({ ...repo, path: 'README.md' });
    await put('d.txt');
    const [first, read, second] = server.requests.filter({}).slice(-3);
    expect([first!.method, read!.method, second!.method]).toEqual(['PUT', 'GET', 'PUT']);
    // The second write starts a second after the first started, whatever came between (arrivals are timed by
    // the server, and the first request's connection set-up can make the gap look a little shorter).
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
    // The read was not held for the next write slot, which opens a second after the first write.
    expect(read!.at - first!.at).toBeLessThan(900);
    expect(server.state.repo('acme/widgets').readText('d.txt')).toBe('d.txt');
  });
});
