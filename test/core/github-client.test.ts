import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type GitHubClient, retryWait } from '../../src/github/client.js';
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

  it('a secondary rate limit waits its retry-after, or 60 s when GitHub gives none', () => {
    const message =
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';
    expect(retryWait(failure(403, message, { 'retry-after': '7' }), 0)).toEqual({
      seconds: 7,
      why: 'secondary rate limit',
    });
    expect(retryWait(failure(403, message), 0)?.seconds).toBe(60);
    expect(retryWait(failure(429, 'slow down', { 'retry-after': '3' }), 0)?.seconds).toBe(3);
    expect(retryWait(failure(429, 'slow down'), 0)?.seconds).toBe(60);
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
    for (const status of [400, 401, 403, 404, 409, 410, 422, 451])
      expect(retryWait(failure(status, 'Resource not accessible by integration'), 0)).toBeUndefined();
    expect(retryWait(new Error('not a request'), 0)).toBeUndefined();
    expect(retryWait(undefined, 0)).toBeUndefined();
  });
});

describe('createClient against the local GitHub', () => {
  let server: GitHubServer;
  let said: string[];
  let octokit: GitHubClient;

  beforeEach(async () => {
    server = await startGitHubServer({
      repos: [{ owner: repo.owner, name: repo.repo, files: { 'README.md': '# widgets\n' } }],
    });
    said = [];
    octokit = createClient({
      token: 'test',
      baseUrl: server.url,
      retryAfterBaseValue: 1,
      writeIntervalMs: 0,
      log: (m) => said.push(m),
    });
  });
  afterEach(() => server.close());

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

  it('waits out a secondary rate limit for its retry-after, then writes once', async () => {
    server.faults.inject({
      method: 'PUT',
      path: CONTENTS,
      fault: { kind: 'secondary-rate-limit', retryAfter: 2 },
    });
    await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'a.txt',
      message: 'a',
      content: b64('a'),
    });
    expect(statuses(`PUT ${CONTENTS}`)).toEqual([403, 201]);
    expect(said).toEqual([`GitHub secondary rate limit on PUT ${CONTENTS}; retry 1 of 3 after 2s`]);
    expect(server.state.repo('acme/widgets').readText('a.txt')).toBe('a');
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
    const quick = createClient({
      token: 'test',
      baseUrl: server.url,
      retryAfterBaseValue: 1,
      requestTimeoutMs: 200,
      log: (m) => said.push(m),
    });
    server.faults.inject({ method: 'GET', path: CONTENTS, fault: { kind: 'timeout' } });
    await quick.rest.repos.getContent({ ...repo, path: 'README.md' });
    expect(server.requests.filter({ kind: `GET ${CONTENTS}` })).toHaveLength(2);
    expect(said).toEqual([`GitHub error 500 on GET ${CONTENTS}; retry 1 of 3 after 1s`]);
  });

  it('spaces writes by the write interval and leaves reads alone', async () => {
    const spaced = createClient({ token: 'test', baseUrl: server.url, writeIntervalMs: 150 });
    const put = (path: string) =>
      spaced.rest.repos.createOrUpdateFileContents({ ...repo, path, message: path, content: b64(path) });
    const t0 = performance.now();
    await put('c.txt');
    await spaced.rest.repos.getContent({ ...repo, path: 'README.md' });
    await put('d.txt');
    const total = performance.now() - t0;
    // The second write starts at least 150 ms after the first started, whatever came between.
    expect(total).toBeGreaterThanOrEqual(150);
    expect(server.state.repo('acme/widgets').readText('d.txt')).toBe('d.txt');
  });
});
