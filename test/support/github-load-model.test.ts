/**
 * The like-GitHub model of the local GitHub (github/load-model.ts): contents writes that race on their branch,
 * reads by branch name answered from the past, secondary limits, and the seed that makes them reproducible.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { type GitHubServer, type LikeGitHubOptions, startGitHubServer } from './github-server.js';

const repo = { owner: 'acme', repo: 'widgets' };
const log = { debug() {}, info() {}, warn() {}, error() {} };
const b64 = (text: string): string => Buffer.from(text).toString('base64');

let server: GitHubServer;
afterEach(async () => server?.close());

async function start(likeGitHub: LikeGitHubOptions | false): Promise<Octokit> {
  server = await startGitHubServer({
    likeGitHub,
    repos: [{ owner: 'acme', name: 'widgets', files: { 'a.txt': 'a0\n', 'b.txt': 'b0\n' } }],
  });
  return new Octokit({ auth: 'test', baseUrl: server.url, request: { retries: 0 }, log });
}

/** The status and message of a request, or 'ok' and the status. */
async function outcome(promise: Promise<{ status: number }>): Promise<[number, string]> {
  try {
    return [(await promise).status, 'ok'];
  } catch (e) {
    const error = e as { status: number; response?: { data?: { message?: string } } };
    return [error.status, error.response?.data?.message ?? ''];
  }
}

const put = (octokit: Octokit, path: string, text: string, sha?: string) =>
  octokit.rest.repos.createOrUpdateFileContents({
    ...repo,
    path,
    message: `write ${path}`,
    content: b64(text),
    ...(sha ? { sha } : {}),
  });

async function fileSha(octokit: Octokit, path: string, ref?: string): Promise<string> {
  const { data } = await octokit.rest.repos.getContent({ ...repo, path, ...(ref ? { ref } : {}) });
  if (Array.isArray(data) || data.type !== 'file') throw new Error(`${path} is not a file`);
  return data.sha;
}

describe('contents writes under the like-GitHub model', () => {
  it('take their time and fail 409 "is at … but expected …" when another write moved the branch, even for another file', async () => {
    const octokit = await start({ contentsWriteMs: 150, staleProbability: 0 });
    const main = server.state.repo('acme/widgets');
    const before = main.branchSha('main')!;
    const started = Date.now();
    const [a, b] = await Promise.all([
      outcome(put(octokit, 'a.txt', 'a1\n', await fileSha(octokit, 'a.txt'))),
      sleep(20).then(async () => outcome(put(octokit, 'new.txt', 'n\n'))),
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(a).toEqual([200, 'ok']);
    const after = main.branchSha('main')!;
    expect(b).toEqual([409, `is at ${after} but expected ${before}`]);
    expect(main.readText('new.txt', 'main')).toBeUndefined();
    expect(server.model.stats.racedWrites).toBe(1);
    // One after the other, both land.
    expect(await outcome(put(octokit, 'new.txt', 'n\n'))).toEqual([201, 'ok']);
  });

  it('still refuse a stale blob sha with 409 "<path> does not match <sha>"', async () => {
    const octokit = await start({ contentsWriteMs: 10, staleProbability: 0 });
    const old = await fileSha(octokit, 'a.txt');
    await put(octokit, 'a.txt', 'a1\n', old);
    expect(await outcome(put(octokit, 'a.txt', 'a2\n', old))).toEqual([409, `a.txt does not match ${old}`]);
  });

  it('leave the git data API alone: refs moved in parallel never conflict; a ref that moved is not fast-forwarded', async () => {
    const octokit = await start({ contentsWriteMs: 200, staleProbability: 0 });
    const base = server.state.repo('acme/widgets').branchSha('main')!;
    const commitOn = async (parent: string, text: string) => {
      const { data: commit } = await octokit.rest.git.getCommit({ ...repo, commit_sha: parent });
      const tree = await octokit.rest.git.createTree({
        ...repo,
        base_tree: commit.tree.sha,
        tree: [{ path: 'x.txt', mode: '100644', type: 'blob', content: text }],
      });
      return (
        await octokit.rest.git.createCommit({
          ...repo,
          message: text,
          tree: tree.data.sha,
          parents: [parent],
        })
      ).data.sha;
    };
    for (const ref of ['heads/run-1', 'heads/run-2'])
      await octokit.rest.git.createRef({ ...repo, ref: `refs/${ref}`, sha: base });
    const [one, two] = await Promise.all([commitOn(base, 'one'), commitOn(base, 'two')]);
    const moved = await Promise.all([
      outcome(octokit.rest.git.updateRef({ ...repo, ref: 'heads/run-1', sha: one })),
      outcome(octokit.rest.git.updateRef({ ...repo, ref: 'heads/run-2', sha: two })),
    ]);
    expect(moved).toEqual([
      [200, 'ok'],
      [200, 'ok'],
    ]);
    expect(await outcome(octokit.rest.git.updateRef({ ...repo, ref: 'heads/run-1', sha: two }))).toEqual([
      422,
      'Update is not a fast forward',
    ]);
  });
});

describe('reads by branch name under the like-GitHub model', () => {
  it('may answer from the branch as it stood staleMs before; by commit sha they are exact', async () => {
    const octokit = await start({ contentsWriteMs: 0, staleProbability: 1, staleMs: 300 });
    const old = await fileSha(octokit, 'a.txt');
    const written = await put(octokit, 'a.txt', 'a1\n', old);
    // A file that is new to the branch is not there yet, and the branch's head is the old one.
    await put(octokit, 'c.txt', 'c\n');
    expect(await fileSha(octokit, 'a.txt')).toBe(old);
    expect((await outcome(octokit.rest.repos.getContent({ ...repo, path: 'c.txt' })))[0]).toBe(404);
    const { data: ref } = await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' });
    expect(ref.object.sha).not.toBe(server.state.repo('acme/widgets').branchSha('main'));
    // By the sha the write returned: exact.
    expect(await fileSha(octokit, 'a.txt', written.data.commit.sha)).toBe(written.data.content?.sha);
    expect(server.model.stats.staleAnswers).toBe(3);
    await sleep(350);
    expect(await fileSha(octokit, 'a.txt')).toBe(written.data.content?.sha);
  });

  it('carry cache-control: public, max-age=60', async () => {
    const octokit = await start({ staleProbability: 0 });
    const read = await octokit.rest.repos.getContent({ ...repo, path: 'a.txt' });
    expect(read.headers['cache-control']).toBe('public, max-age=60');
  });

  it('never hide what a test set up directly (seeding, a simulated push)', async () => {
    const octokit = await start({ staleProbability: 1, staleMs: 5000 });
    server.state.repo('acme/widgets').commitFiles('main', { 'pushed.txt': 'p\n' }, { message: 'push' });
    expect((await octokit.rest.repos.getContent({ ...repo, path: 'pushed.txt' })).status).toBe(200);
  });

  it('go stale in the same places for the same seed, and elsewhere for another', async () => {
    const pattern = async (seed: number): Promise<string> => {
      const octokit = await start({ seed, contentsWriteMs: 0, staleProbability: 0.5, staleMs: 60_000 });
      await put(octokit, 'a.txt', 'a1\n', await fileSha(octokit, 'a.txt'));
      let seen = '';
      for (let i = 0; i < 24; i++) {
        const text = await octokit.rest.repos.getContent({ ...repo, path: 'a.txt' });
        const content = Buffer.from((text.data as { content: string }).content, 'base64').toString();
        seen += content === 'a1\n' ? 'n' : 'o';
      }
      await server.close();
      return seen;
    };
    const first = await pattern(7);
    expect(first).toMatch(/n/);
    expect(first).toMatch(/o/);
    expect(await pattern(7)).toBe(first);
    expect(await pattern(8)).not.toBe(first);
  });
});

describe('secondary limits under the like-GitHub model', () => {
  it('refuse content-creating requests past the minute with 403, GitHub’s message and retry-after', async () => {
    const octokit = await start({ contentsWriteMs: 0, secondaryLimit: { writesPerMinute: 3 } });
    for (let i = 0; i < 3; i++) await put(octokit, `f${i}.txt`, 'x');
    const error = await put(octokit, 'f3.txt', 'x').catch((e) => e);
    expect(error.status).toBe(403);
    expect(error.response.data.message).toMatch(/^You have exceeded a secondary rate limit/);
    expect(Number(error.response.headers['retry-after'])).toBeGreaterThan(0);
    expect(server.model.stats.limited).toBe(1);
  });

  it('refuse requests past the concurrent allowance with 429 and retry-after', async () => {
    const octokit = await start({ contentsWriteMs: 200, concurrent: 2, staleProbability: 0 });
    const answers = await Promise.all(
      ['p.txt', 'q.txt', 'r.txt'].map(async (path, i) => {
        await sleep(i * 20);
        return outcome(put(octokit, path, 'x'));
      }),
    );
    expect(answers.map(([status]) => status)).toEqual([201, 409, 429]);
    expect(answers[2]![1]).toMatch(/secondary rate limit/);
  });
});

describe('likeGitHub: false', () => {
  it('turns the model off: writes at once, never race, reads exact, no secondary limit', async () => {
    const octokit = await start(false);
    const answers = await Promise.all(
      Array.from({ length: 90 }, (_, i) => outcome(put(octokit, `many/${i}.txt`, 'x'))),
    );
    expect(answers.every(([status]) => status === 201)).toBe(true);
    expect(await fileSha(octokit, 'many/89.txt')).toBeTruthy();
    expect(server.model.stats).toEqual({ staleAnswers: 0, racedWrites: 0, limited: 0 });
  });
});
