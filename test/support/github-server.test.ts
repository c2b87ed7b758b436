import { createHash, generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { Probot, ProbotOctokit } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_JOURNAL_BRANCH } from '../../src/store/git.js';
import { runBranch } from '../../src/store/git-layout.js';
import { BODY_LIMIT, CHECK_OUTPUT_LIMIT, type GitHubServer, startGitHubServer } from './github-server.js';

const OWNER = 'acme';
const REPO = 'widgets';
const repo = { owner: OWNER, repo: REPO };
const CONTENTS = '/repos/{owner}/{repo}/contents/{path}';

let server: GitHubServer;
let octokit: Octokit;

/** Octokit logs every failed request; these tests fail requests on purpose. */
const log = { debug() {}, info() {}, warn() {}, error() {} };

const client = (auth = 'test'): Octokit =>
  new Octokit({ auth, baseUrl: server.url, request: { retries: 0 }, log });

/** The status of a rejected request, or `ok`. */
async function statusOf(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return (error as { status: number }).status;
  }
}

const gitBlobSha = (text: string): string =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(text)}\0${text}`)
    .digest('hex');

const b64 = (text: string): string => Buffer.from(text).toString('base64');

beforeEach(async () => {
  server = await startGitHubServer({
    // These tests pin the server's exact answers and counts; the like-GitHub model has its own suite
    // (github-load-model.test.ts).
    likeGitHub: false,
    repos: [
      {
        owner: OWNER,
        name: REPO,
        files: { 'README.md': '# widgets\n' },
        collaborators: { alice: 'admin', bob: 'maintain', carol: 'triage', dave: 'read' },
        issues: [{ title: 'Fix the bug', labels: ['bug'] }],
        workflows: ['interlock.yml', { file: 'nightly.yml', dispatchable: false }],
      },
    ],
    orgs: {
      acme: { reviewers: { members: { alice: 'maintainer', erin: { role: 'member', state: 'pending' } } } },
    },
  });
  octokit = client();
});

afterEach(async () => {
  await server.close();
});

describe('git data API', () => {
  // The two branches the git store makes: the journal branch of before (which runs of before go on) and a run's
  // own branch (what the bundled action writes today: the run id's slash makes it a folder of refs).
  it.each([
    ['the journal branch of before', DEFAULT_JOURNAL_BRANCH, `${DEFAULT_JOURNAL_BRANCH}/x`],
    [
      "a run's own branch",
      runBranch(DEFAULT_JOURNAL_BRANCH, 'fix-bug/issue-1'),
      runBranch(DEFAULT_JOURNAL_BRANCH, 'fix-bug'),
    ],
  ])(
    'creates an orphan branch from a blob, a tree, a parentless commit and a new ref: %s',
    async (_, branch, clash) => {
      const { data: blob } = await octokit.rest.git.createBlob({ ...repo, content: '[]', encoding: 'utf-8' });
      expect(blob.sha).toBe(gitBlobSha('[]'));
      const { data: tree } = await octokit.rest.git.createTree({
        ...repo,
        tree: [{ path: 'runs/.keep', mode: '100644', type: 'blob', sha: blob.sha }],
      });
      const { data: commit } = await octokit.rest.git.createCommit({
        ...repo,
        message: 'interlock: start the journal branch',
        tree: tree.sha,
        parents: [],
      });
      expect(commit.parents).toEqual([]);
      const created = await octokit.rest.git.createRef({
        ...repo,
        ref: `refs/heads/${branch}`,
        sha: commit.sha,
      });
      expect(created.status).toBe(201);

      const { data: ref } = await octokit.rest.git.getRef({ ...repo, ref: `heads/${branch}` });
      expect(ref.object.sha).toBe(commit.sha);
      const { data: listing } = await octokit.rest.repos.getContent({ ...repo, path: 'runs', ref: branch });
      expect(Array.isArray(listing) && listing.map((item) => item.name)).toEqual(['.keep']);
      // Orphan: nothing of main is on it.
      expect(await statusOf(octokit.rest.repos.getContent({ ...repo, path: 'README.md', ref: branch }))).toBe(
        404,
      );
      // A file written on it by name goes on that branch alone.
      const put = await octokit.rest.repos.createOrUpdateFileContents({
        ...repo,
        path: 'runs/fix-bug/issue-1.json',
        message: 'interlock: fix-bug/issue-1',
        content: b64('{"events":[]}'),
        branch,
      });
      expect(put.data.commit.parents?.map((parent) => parent.sha)).toEqual([commit.sha]);
      expect(server.state.repo(`${OWNER}/${REPO}`).readText('runs/fix-bug/issue-1.json', branch)).toBe(
        '{"events":[]}',
      );
      expect(server.state.repo(`${OWNER}/${REPO}`).readText('runs/fix-bug/issue-1.json')).toBeUndefined();
      // git holds no ref below another ref's name, nor one whose name is a folder of refs (422).
      expect(
        await statusOf(octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${clash}`, sha: commit.sha })),
      ).toBe(422);
    },
  );

  it('refuses a duplicate ref and a non-fast-forward update unless forced', async () => {
    const main = server.state.repo(`${OWNER}/${REPO}`).branchSha('main')!;
    const { data: tree } = await octokit.rest.git.createTree({
      ...repo,
      tree: [{ path: 'x', mode: '100644', type: 'blob', content: 'x' }],
    });
    const { data: unrelated } = await octokit.rest.git.createCommit({
      ...repo,
      message: 'x',
      tree: tree.sha,
      parents: [],
    });
    expect(await statusOf(octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/main', sha: main }))).toBe(
      422,
    );
    expect(
      await statusOf(octokit.rest.git.updateRef({ ...repo, ref: 'heads/main', sha: unrelated.sha })),
    ).toBe(422);
    const forced = await octokit.rest.git.updateRef({
      ...repo,
      ref: 'heads/main',
      sha: unrelated.sha,
      force: true,
    });
    expect(forced.data.object.sha).toBe(unrelated.sha);

    const badName = await octokit.rest.git.createRef({ ...repo, ref: 'heads/x', sha: main }).catch((e) => e);
    expect(badName.response.data.message).toBe(
      'Reference name must contain at least three slash-separated components.',
    );
    // A branch cannot live under another branch's name (git's directory/file clash).
    expect(await statusOf(octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/main/x', sha: main }))).toBe(
      422,
    );
  });

  it('answers 409 "Git Repository is empty." for a repository without commits', async () => {
    server.state.addRepo({ owner: OWNER, name: 'empty', empty: true });
    const error = await octokit.rest.git
      .createBlob({ owner: OWNER, repo: 'empty', content: 'x' })
      .catch((e) => e);
    expect(error.status).toBe(409);
    expect(error.response.data.message).toBe('Git Repository is empty.');
  });
});

describe('contents API', () => {
  it('writes a file as a real commit on the branch and reads it back with its blob sha', async () => {
    const before = server.state.repo(`${OWNER}/${REPO}`).branchSha('main');
    const put = await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'runs/fix-bug/issue-1.json',
      message: 'interlock: fix-bug/issue-1 RunStarted',
      content: b64('{"events":[]}'),
    });
    expect(put.status).toBe(201);
    expect(put.data.content?.sha).toBe(gitBlobSha('{"events":[]}'));
    expect(put.data.commit.parents?.map((parent) => parent.sha)).toEqual([before]);
    expect(server.state.repo(`${OWNER}/${REPO}`).branchSha('main')).toBe(put.data.commit.sha);

    const { data } = await octokit.rest.repos.getContent({ ...repo, path: 'runs/fix-bug/issue-1.json' });
    if (Array.isArray(data) || data.type !== 'file') throw new Error('expected a file');
    expect(data.sha).toBe(put.data.content?.sha);
    expect(data.encoding).toBe('base64');
    expect(Buffer.from(data.content, 'base64').toString()).toBe('{"events":[]}');

    const update = await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'runs/fix-bug/issue-1.json',
      message: 'second',
      content: b64('{"events":[1]}'),
      sha: data.sha,
    });
    expect(update.status).toBe(200);
    expect(update.data.commit.parents?.map((parent) => parent.sha)).toEqual([put.data.commit.sha]);
  });

  it('answers 409 for a stale sha and 422 for a missing sha, changing nothing', async () => {
    const first = await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'journal.json',
      message: 'one',
      content: b64('1'),
    });
    const stale = first.data.content!.sha!;
    await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'journal.json',
      message: 'two',
      content: b64('2'),
      sha: stale,
    });
    const head = server.state.repo(`${OWNER}/${REPO}`).branchSha('main');

    const conflict = await octokit.rest.repos
      .createOrUpdateFileContents({
        ...repo,
        path: 'journal.json',
        message: 'x',
        content: b64('3'),
        sha: stale,
      })
      .catch((error) => error);
    expect(conflict.status).toBe(409);
    expect(conflict.response.data.message).toBe(`journal.json does not match ${stale}`);

    const missing = await octokit.rest.repos
      .createOrUpdateFileContents({ ...repo, path: 'journal.json', message: 'x', content: b64('3') })
      .catch((error) => error);
    expect(missing.status).toBe(422);
    expect(missing.response.data.message).toBe('Invalid request.\n\n"sha" wasn\'t supplied.');

    expect(server.state.repo(`${OWNER}/${REPO}`).branchSha('main')).toBe(head);
    expect(server.state.repo(`${OWNER}/${REPO}`).readText('journal.json')).toBe('2');
  });

  it('returns raw bytes for the raw media type, and only raw content past 1 MB', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    server.state.repo(`${OWNER}/${REPO}`).commitFiles('main', { 'big.json': big, 'small.txt': 'hello\n' });

    const raw = await octokit.rest.repos.getContent({
      ...repo,
      path: 'small.txt',
      mediaType: { format: 'raw' },
    });
    expect(raw.data).toBe('hello\n');
    const rawByHeader = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
      ...repo,
      path: 'small.txt',
      headers: { accept: 'application/vnd.github.raw+json' },
    });
    expect(rawByHeader.data).toBe('hello\n');

    const { data } = await octokit.rest.repos.getContent({ ...repo, path: 'big.json' });
    if (Array.isArray(data) || data.type !== 'file') throw new Error('expected a file');
    expect(data.encoding).toBe('none');
    expect(data.content).toBe('');
    const bigRaw = await octokit.rest.repos.getContent({
      ...repo,
      path: 'big.json',
      mediaType: { format: 'raw' },
    });
    expect(String(bigRaw.data).length).toBe(big.length);
  });

  it('reads at a ref and answers 404 for a missing file or ref', async () => {
    const repoState = server.state.repo(`${OWNER}/${REPO}`);
    const old = repoState.branchSha('main')!;
    repoState.commitFiles('main', { 'README.md': 'changed' });
    const { data } = await octokit.rest.repos.getContent({ ...repo, path: 'README.md', ref: old });
    if (Array.isArray(data) || data.type !== 'file') throw new Error('expected a file');
    expect(Buffer.from(data.content, 'base64').toString()).toBe('# widgets\n');
    expect(await statusOf(octokit.rest.repos.getContent({ ...repo, path: 'nope.txt' }))).toBe(404);
    expect(await statusOf(octokit.rest.repos.getContent({ ...repo, path: 'README.md', ref: 'nope' }))).toBe(
      404,
    );
  });

  it('loses no update when 8 writers append in parallel and re-read on conflict', async () => {
    const path = 'runs/parallel.json';
    await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path,
      message: 'init',
      content: b64('[]'),
    });
    let conflicts = 0;

    const writer = async (id: number, appends: number): Promise<void> => {
      const own = client(`writer-${id}`);
      for (let done = 0; done < appends; ) {
        const { data } = await own.rest.repos.getContent({ ...repo, path });
        if (Array.isArray(data) || data.type !== 'file') throw new Error('expected a file');
        const events = JSON.parse(Buffer.from(data.content, 'base64').toString()) as string[];
        events.push(`${id}:${done}`);
        try {
          await own.rest.repos.createOrUpdateFileContents({
            ...repo,
            path,
            message: `append ${id}:${done}`,
            content: b64(JSON.stringify(events)),
            sha: data.sha,
          });
          done += 1;
        } catch (error) {
          if ((error as { status: number }).status !== 409) throw error;
          conflicts += 1;
        }
      }
    };

    await Promise.all(Array.from({ length: 8 }, (_, id) => writer(id, 5)));
    const events = JSON.parse(server.state.repo(`${OWNER}/${REPO}`).readText(path)!) as string[];
    expect(events).toHaveLength(40);
    expect(new Set(events).size).toBe(40);
    expect(conflicts).toBeGreaterThan(0);
    expect(server.requests.count({ kind: `PUT ${CONTENTS}`, status: 409 })).toBe(conflicts);
  });
});

describe('issues, comments, labels and reactions', () => {
  it('paginates comments with a Link header', async () => {
    const repoState = server.state.repo(`${OWNER}/${REPO}`);
    for (let index = 0; index < 65; index++) repoState.addComment(1, `comment ${index}`, 'alice');

    const first = await octokit.rest.issues.listComments({ ...repo, issue_number: 1, per_page: 30 });
    expect(first.data).toHaveLength(30);
    expect(first.headers.link).toContain('rel="next"');
    expect(first.headers.link).toContain('page=3');
    const third = await octokit.rest.issues.listComments({ ...repo, issue_number: 1, per_page: 30, page: 3 });
    expect(third.data.map((comment) => comment.body)).toEqual([
      'comment 60',
      'comment 61',
      'comment 62',
      'comment 63',
      'comment 64',
    ]);
    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      ...repo,
      issue_number: 1,
      per_page: 30,
    });
    expect(all).toHaveLength(65);
  });

  it('creates, updates and deletes a comment as the token user', async () => {
    server.state.tokens.set('alice-token', 'alice');
    const alice = client('alice-token');
    const { data: created } = await alice.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: '/approve-rerun x',
    });
    expect(created.user?.login).toBe('alice');
    expect(created.author_association).toBe('COLLABORATOR');
    const { data: updated } = await alice.rest.issues.updateComment({
      ...repo,
      comment_id: created.id,
      body: 'edited',
    });
    expect(updated.body).toBe('edited');
    expect((await alice.rest.issues.deleteComment({ ...repo, comment_id: created.id })).status).toBe(204);
    expect(await statusOf(alice.rest.issues.getComment({ ...repo, comment_id: created.id }))).toBe(404);
    const tooLong = 'x'.repeat(BODY_LIMIT + 1);
    expect(await statusOf(alice.rest.issues.createComment({ ...repo, issue_number: 1, body: tooLong }))).toBe(
      422,
    );
  });

  it('adds a label (creating it), removes it, and 404s on removing one that is not there', async () => {
    const { data } = await octokit.rest.issues.addLabels({
      ...repo,
      issue_number: 1,
      labels: ['interlock: needs human'],
    });
    expect(data.map((label) => label.name)).toEqual(['bug', 'interlock: needs human']);
    const removed = await octokit.rest.issues.removeLabel({
      ...repo,
      issue_number: 1,
      name: 'interlock: needs human',
    });
    expect(removed.data.map((label) => label.name)).toEqual(['bug']);
    expect(await statusOf(octokit.rest.issues.removeLabel({ ...repo, issue_number: 1, name: 'nope' }))).toBe(
      404,
    );
    expect((await octokit.rest.issues.createLabel({ ...repo, name: 'held', color: 'd73a4a' })).status).toBe(
      201,
    );
    expect(await statusOf(octokit.rest.issues.createLabel({ ...repo, name: 'HELD' }))).toBe(422);
  });

  it('answers 201 for a new reaction and 200 with the same reaction for a duplicate', async () => {
    const comment = server.state.repo(`${OWNER}/${REPO}`).addComment(1, '/approve-rerun implement', 'alice');
    const first = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: 'eyes',
    });
    const again = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: 'eyes',
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.data.id).toBe(first.data.id);
    expect(comment.reactions).toHaveLength(1);
  });
});

describe('check runs', () => {
  it('enforces the 65535-character limit on output.summary and output.text', async () => {
    const head = server.state.repo(`${OWNER}/${REPO}`).branchSha('main')!;
    const create = (summary: string, text?: string) =>
      octokit.rest.checks.create({
        ...repo,
        name: 'interlock',
        head_sha: head,
        output: { title: 'journal', summary, ...(text === undefined ? {} : { text }) },
      });

    expect(await statusOf(create('x'.repeat(CHECK_OUTPUT_LIMIT)))).toBe('ok');
    const tooLong = await create('x'.repeat(CHECK_OUTPUT_LIMIT + 1)).catch((error) => error);
    expect(tooLong.status).toBe(422);
    expect(tooLong.response.data.message).toBe(
      'Invalid request.\n\nOnly 65535 characters are allowed; 65536 were supplied.',
    );
    expect(await statusOf(create('ok', 'y'.repeat(CHECK_OUTPUT_LIMIT + 1)))).toBe(422);
    // Fewer characters than the limit, more bytes: GitHub counts those too.
    const bytes = await create('é'.repeat(40000)).catch((error) => error);
    expect(bytes.status).toBe(422);
    expect(bytes.response.data.errors[0].message).toBe('summary exceeds a maximum bytesize of 65535');
  });

  it('creates, updates, gets and lists check runs for a ref', async () => {
    const head = server.state.repo(`${OWNER}/${REPO}`).branchSha('main')!;
    const { data: created } = await octokit.rest.checks.create({
      ...repo,
      name: 'interlock',
      head_sha: head,
      status: 'in_progress',
    });
    expect(created.app?.slug).toBe('github-actions');
    const { data: updated } = await octokit.rest.checks.update({
      ...repo,
      check_run_id: created.id,
      conclusion: 'success',
      output: { title: 'done', summary: 'all nodes completed' },
    });
    expect([updated.status, updated.conclusion]).toEqual(['completed', 'success']);
    const { data: got } = await octokit.rest.checks.get({ ...repo, check_run_id: created.id });
    expect(got.output.summary).toBe('all nodes completed');
    const { data: listed } = await octokit.rest.checks.listForRef({
      ...repo,
      ref: 'main',
      check_name: 'interlock',
    });
    expect(listed.total_count).toBe(1);
    expect(listed.check_runs[0]?.id).toBe(created.id);
  });

  it("gives each job a check run with the job's id, which follows the job; an API-made one is no job", async () => {
    const repoState = server.state.repo(`${OWNER}/${REPO}`);
    const run = repoState.addWorkflowRun({
      workflow: 'ci.yml',
      status: 'in_progress',
      jobs: [{ name: 'test', status: 'in_progress' }],
    });
    const jobId = repoState.latestAttempt(run).jobs[0]!.id;
    repoState.updateWorkflowRun(run.id, { jobs: [{ name: 'test', conclusion: 'success' }] });

    const { data: listed } = await octokit.rest.checks.listForRef({
      ...repo,
      ref: 'main',
      check_name: 'test',
    });
    expect(
      listed.check_runs.map((c) => [c.id, c.app?.slug, c.status, c.conclusion, c.check_suite?.id]),
    ).toEqual([[jobId, 'github-actions', 'completed', 'success', run.id + 1]]);
    const { data: job } = await octokit.rest.actions.getJobForWorkflowRun({ ...repo, job_id: jobId });
    expect([job.id, job.check_run_url.endsWith(`/check-runs/${jobId}`), job.head_sha]).toEqual([
      jobId,
      true,
      listed.check_runs[0]!.head_sha,
    ]);
    // The same app's token makes a check run of the same name; GitHub has no job with its id.
    const { data: made } = await octokit.rest.checks.create({
      ...repo,
      name: 'test',
      head_sha: run.head_sha,
      conclusion: 'success',
    });
    expect(made.app?.slug).toBe('github-actions');
    expect(await statusOf(octokit.rest.actions.getJobForWorkflowRun({ ...repo, job_id: made.id }))).toBe(404);
  });
});

describe('permissions, teams, Actions, pulls, tags and releases', () => {
  it('reports collaborator permission with the legacy mapping, and team membership', async () => {
    const level = async (username: string) =>
      (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username })).data;
    expect(await level('alice')).toMatchObject({ permission: 'admin', role_name: 'admin' });
    expect(await level('bob')).toMatchObject({ permission: 'write', role_name: 'maintain' });
    expect(await level('carol')).toMatchObject({ permission: 'read', role_name: 'triage' });
    expect((await level('mallory')).permission).toBe('read');

    const membership = await octokit.rest.teams.getMembershipForUserInOrg({
      org: 'acme',
      team_slug: 'reviewers',
      username: 'alice',
    });
    expect(membership.data).toMatchObject({ role: 'maintainer', state: 'active' });
    const pending = await octokit.rest.teams.getMembershipForUserInOrg({
      org: 'acme',
      team_slug: 'reviewers',
      username: 'erin',
    });
    expect(pending.data.state).toBe('pending');
    expect(
      await statusOf(
        octokit.rest.teams.getMembershipForUserInOrg({
          org: 'acme',
          team_slug: 'reviewers',
          username: 'mallory',
        }),
      ),
    ).toBe(404);
  });

  it('serves workflow runs per attempt with their jobs, and records a dispatch', async () => {
    const repoState = server.state.repo(`${OWNER}/${REPO}`);
    const run = repoState.addWorkflowRun({
      workflow: 'interlock.yml',
      status: 'in_progress',
      jobs: [{ name: 'step', status: 'in_progress', runner_name: 'runner-1' }],
    });
    repoState.updateWorkflowRun(run.id, {
      status: 'completed',
      conclusion: 'cancelled',
      jobs: [{ name: 'step', status: 'completed', conclusion: 'cancelled' }],
    });
    repoState.rerunWorkflowRun(run.id);

    const { data: latest } = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: run.id });
    expect([latest.run_attempt, latest.status]).toEqual([2, 'queued']);
    const { data: first } = await octokit.rest.actions.getWorkflowRunAttempt({
      ...repo,
      run_id: run.id,
      attempt_number: 1,
    });
    expect([first.status, first.conclusion]).toEqual(['completed', 'cancelled']);
    const { data: jobs } = await octokit.rest.actions.listJobsForWorkflowRun({
      ...repo,
      run_id: run.id,
      filter: 'all',
    });
    expect(jobs.jobs.map((job) => [job.run_attempt, job.status])).toEqual([
      [1, 'completed'],
      [2, 'queued'],
    ]);
    expect(jobs.jobs[0]?.completed_at).not.toBeNull();

    const dispatched = await octokit.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: 'interlock.yml',
      ref: 'main',
      inputs: { 'run-id': 'fix-bug/issue-1' },
    });
    expect(dispatched.status).toBe(204);
    expect(repoState.dispatches).toMatchObject([
      { workflow_id: 'interlock.yml', ref: 'main', inputs: { 'run-id': 'fix-bug/issue-1' } },
    ]);
    expect(
      await statusOf(
        octokit.rest.actions.createWorkflowDispatch({ ...repo, workflow_id: 'nightly.yml', ref: 'main' }),
      ),
    ).toBe(422);
    expect(
      await statusOf(
        octokit.rest.actions.createWorkflowDispatch({ ...repo, workflow_id: 'missing.yml', ref: 'main' }),
      ),
    ).toBe(404);
  });

  it('filters pulls by head only in the owner:branch form, as GitHub does', async () => {
    const repoState = server.state.repo(`${OWNER}/${REPO}`);
    repoState.commitFiles('feature', { 'a.txt': 'a' });
    repoState.commitFiles('other', { 'b.txt': 'b' });
    const { data: pull } = await octokit.rest.pulls.create({
      ...repo,
      title: 'Add a',
      head: 'feature',
      base: 'main',
    });
    await octokit.rest.pulls.create({ ...repo, title: 'Add b', head: 'other', base: 'main' });

    const filtered = await octokit.rest.pulls.list({ ...repo, head: `${OWNER}:feature` });
    expect(filtered.data.map((item) => item.number)).toEqual([pull.number]);
    const ignored = await octokit.rest.pulls.list({ ...repo, head: 'feature' });
    expect(ignored.data).toHaveLength(2);
    const { data: got } = await octokit.rest.pulls.get({ ...repo, pull_number: pull.number });
    expect([got.state, got.merged, got.head.sha]).toEqual(['open', false, repoState.branchSha('feature')]);
  });

  it('serves branches, annotated tags and releases by tag', async () => {
    const repoState = server.state.repo(`${OWNER}/${REPO}`);
    const tagSha = repoState.createTag('v1.0.0', 'main', 'first release');
    repoState.addRelease({ tag: 'v1.0.0' });

    const { data: branch } = await octokit.rest.repos.getBranch({ ...repo, branch: 'main' });
    expect(branch.commit.sha).toBe(repoState.branchSha('main'));
    expect(await statusOf(octokit.rest.repos.getBranch({ ...repo, branch: 'nope' }))).toBe(404);
    const { data: tag } = await octokit.rest.git.getTag({ ...repo, tag_sha: tagSha });
    expect([tag.tag, tag.object.sha]).toEqual(['v1.0.0', repoState.branchSha('main')]);
    const { data: ref } = await octokit.rest.git.getRef({ ...repo, ref: 'tags/v1.0.0' });
    expect(ref.object.type).toBe('tag');
    const { data: release } = await octokit.rest.repos.getReleaseByTag({ ...repo, tag: 'v1.0.0' });
    expect(release.tag_name).toBe('v1.0.0');
    expect(await statusOf(octokit.rest.repos.getReleaseByTag({ ...repo, tag: 'v9' }))).toBe(404);
  });
});

describe('authorization and rate limits', () => {
  it('answers 401 without an Authorization header and sets x-ratelimit-* headers', async () => {
    const anonymous = new Octokit({ baseUrl: server.url, request: { retries: 0 }, log });
    const error = await anonymous.rest.issues.get({ ...repo, issue_number: 1 }).catch((e) => e);
    expect(error.status).toBe(401);
    expect(error.response.data.message).toBe('Requires authentication');

    const response = await octokit.rest.issues.get({ ...repo, issue_number: 1 });
    expect(response.headers['x-ratelimit-limit']).toBe('5000');
    expect(response.headers['x-ratelimit-remaining']).toBe('4999');
    const { data: limits } = await octokit.rest.rateLimit.get();
    expect(limits.resources.core.used).toBe(1);
  });

  it('refuses a primary rate limit once the window is spent', async () => {
    await server.close();
    server = await startGitHubServer({
      likeGitHub: false,
      rateLimit: 2,
      repos: [{ owner: OWNER, name: REPO }],
    });
    const limited = client();
    await limited.rest.repos.get(repo);
    await limited.rest.repos.get(repo);
    const error = await limited.rest.repos.get(repo).catch((e) => e);
    expect([error.status, error.response.headers['x-ratelimit-remaining']]).toEqual([403, '0']);
    expect(error.response.data.message).toMatch(/^API rate limit exceeded/);
    expect((await limited.rest.rateLimit.get()).data.rate.remaining).toBe(0);
  });

  it('with secondaryLimit, refuses content-creating requests past the minute’s allowance with 403 and retry-after', async () => {
    await server.close();
    server = await startGitHubServer({
      likeGitHub: false,
      secondaryLimit: { writesPerMinute: 2 },
      tokens: { 'bob-token': 'bob' },
      repos: [{ owner: OWNER, name: REPO, collaborators: { bob: 'write' } }],
    });
    server.state.repo(`${OWNER}/${REPO}`).addIssue({ number: 1, title: 'x' });
    const limited = client();
    const comment = () => limited.rest.issues.createComment({ ...repo, issue_number: 1, body: 'hi' });
    await comment();
    await comment();
    const error = await comment().catch((e) => e);
    expect(error.status).toBe(403);
    expect(error.response.data.message).toMatch(/^You have exceeded a secondary rate limit/);
    expect(Number(error.response.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    // Reads are not content-creating, and another actor has an allowance of its own.
    expect((await limited.rest.issues.get({ ...repo, issue_number: 1 })).status).toBe(200);
    expect(
      (await client('bob-token').rest.issues.createComment({ ...repo, issue_number: 1, body: 'x' })).status,
    ).toBe(201);
  });
});

describe('the clients the Action and the app use', () => {
  it('serves @actions/github getOctokit', async () => {
    const github = getOctokit('ghs_job_token', { baseUrl: server.url, log });
    const { data } = await github.rest.issues.get({ ...repo, issue_number: 1 });
    expect(data.labels.map((label) => (typeof label === 'string' ? label : label.name))).toEqual(['bug']);
    expect(server.requests.all[0]?.actor).toBe('github-actions[bot]');
  });

  it('gives a Probot app a JWT-authenticated view and an installation token acting as its bot', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const probot = new Probot({
      appId: server.state.app.id,
      privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      baseUrl: server.url,
      Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
      logLevel: 'fatal',
    });
    const asApp = await probot.auth();
    const { data: installation } = await asApp.rest.apps.getRepoInstallation(repo);
    const installed = await probot.auth(installation.id);
    const { data: comment } = await installed.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: 'hi',
    });
    expect(comment.user?.login).toBe('interlock[bot]');
    expect(comment.performed_via_github_app?.slug).toBe('interlock');
    expect(server.requests.count({ kind: 'POST /app/installations/{installation_id}/access_tokens' })).toBe(
      1,
    );
  });

  it('serves a Probot handler receiving a real webhook payload', async () => {
    const require = createRequire(import.meta.url);
    const examples = require('@octokit/webhooks-examples') as {
      name: string;
      examples: { action?: string; comment: { id: number }; repository: { full_name: string } }[];
    }[];
    const payload = structuredClone(
      examples.find((event) => event.name === 'issue_comment')!.examples.find((e) => e.action === 'created')!,
    );
    const [owner, name] = payload.repository.full_name.split('/') as [string, string];
    const hello = server.state.addRepo({
      owner,
      name,
      issues: [{ title: 'Spelling error in the README file' }],
    });
    hello.addComment(1, 'You are totally right!', 'Codertocat', { id: payload.comment.id });

    const probot = new Probot({
      githubToken: 'test',
      baseUrl: server.url,
      Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
      logLevel: 'fatal',
    });
    await probot.load((app) => {
      app.on('issue_comment.created', async (context) => {
        await context.octokit.rest.reactions.createForIssueComment(
          context.repo({ comment_id: context.payload.comment.id, content: 'eyes' }),
        );
        await context.octokit.rest.issues.createComment(context.issue({ body: 'seen' }));
      });
    });
    await probot.receive({ id: '1', name: 'issue_comment', payload } as Parameters<Probot['receive']>[0]);

    expect(hello.comments.get(payload.comment.id)?.reactions.map((reaction) => reaction.content)).toEqual([
      'eyes',
    ]);
    expect(hello.commentsOn(1).map((comment) => comment.body)).toEqual(['You are totally right!', 'seen']);
  });
});

describe('faults and the request log', () => {
  it('fires a fault on the nth matching request only, and records it', async () => {
    server.faults.inject({ method: 'GET', path: CONTENTS, nth: 2, fault: { kind: 'status', status: 502 } });
    const read = () => statusOf(octokit.rest.repos.getContent({ ...repo, path: 'README.md' }));
    expect([await read(), await read(), await read()]).toEqual(['ok', 502, 'ok']);
    expect(server.faults.fired).toMatchObject([{ kind: 'status', method: 'GET', occurrence: 2 }]);
    expect(server.requests.filter({ kind: `GET ${CONTENTS}` }).map((entry) => entry.status)).toEqual([
      200, 502, 200,
    ]);
  });

  it('fires on a run of occurrences with nth and times, and stops when removed', async () => {
    const rule = server.faults.inject({
      path: '/repos/*/*/issues/1',
      nth: 2,
      times: 2,
      fault: { kind: 'status', status: 503 },
    });
    const read = () => statusOf(octokit.rest.issues.get({ ...repo, issue_number: 1 }));
    expect([await read(), await read(), await read(), await read()]).toEqual(['ok', 503, 503, 'ok']);
    expect([rule.seen, rule.fired]).toEqual([4, 2]);
    const every = server.faults.inject({
      path: '/repos/*/*/issues/1',
      every: true,
      fault: { kind: 'status', status: 500 },
    });
    expect(await read()).toBe(500);
    every.remove();
    expect(await read()).toBe('ok');
  });

  it('fires every time when asked, and matches path globs', async () => {
    server.faults.inject({
      path: '/repos/*/*/issues/**',
      every: true,
      fault: { kind: 'status', status: 500 },
    });
    expect(await statusOf(octokit.rest.issues.get({ ...repo, issue_number: 1 }))).toBe(500);
    expect(await statusOf(octokit.rest.issues.listComments({ ...repo, issue_number: 1 }))).toBe(500);
    expect(await statusOf(octokit.rest.repos.getContent({ ...repo, path: 'README.md' }))).toBe('ok');
  });

  it('answers 429 and 403 secondary rate limits with retry-after', async () => {
    server.faults.inject({ path: CONTENTS, fault: { kind: 'too-many-requests', retryAfter: 7 } });
    server.faults.inject({ path: CONTENTS, nth: 2, fault: { kind: 'secondary-rate-limit', retryAfter: 3 } });
    const tooMany = await octokit.rest.repos.getContent({ ...repo, path: 'README.md' }).catch((e) => e);
    expect([tooMany.status, tooMany.response.headers['retry-after']]).toEqual([429, '7']);
    const secondary = await octokit.rest.repos.getContent({ ...repo, path: 'README.md' }).catch((e) => e);
    expect([secondary.status, secondary.response.headers['retry-after']]).toEqual([403, '3']);
    expect(secondary.response.data.message).toMatch(/^You have exceeded a secondary rate limit/);
  });

  it('holds the socket for a timeout and destroys it for a dropped connection', async () => {
    server.faults.inject({ path: '/repos/*/*/issues/1', fault: { kind: 'timeout' } });
    const timedOut = await octokit.rest.issues
      .get({ ...repo, issue_number: 1, request: { signal: AbortSignal.timeout(200) } })
      .catch((e) => e);
    expect(timedOut).toBeInstanceOf(Error);
    expect(timedOut.name).toMatch(/Abort|Timeout|HttpError/);

    server.faults.inject({ path: '/repos/*/*/issues/1', fault: { kind: 'drop' } });
    const dropped = await octokit.rest.issues.get({ ...repo, issue_number: 1 }).catch((e) => e);
    expect(dropped.status).toBe(500);
    expect(server.faults.fired.map((fault) => fault.kind)).toEqual(['timeout', 'drop']);
    expect(server.requests.all.map((entry) => [entry.status, entry.fault])).toEqual([
      [0, 'timeout'],
      [0, 'drop'],
    ]);
  });

  it('can lose only the answer: with `when: after` the write lands', async () => {
    server.faults.inject({
      method: 'PUT',
      path: CONTENTS,
      when: 'after',
      fault: { kind: 'status', status: 502 },
    });
    const status = await statusOf(
      octokit.rest.repos.createOrUpdateFileContents({
        ...repo,
        path: 'a.json',
        message: 'a',
        content: b64('a'),
      }),
    );
    expect(status).toBe(502);
    expect(server.state.repo(`${OWNER}/${REPO}`).readText('a.json')).toBe('a');
  });

  it('lets the retry plugin recover from a 502', async () => {
    const Retrying = Octokit.plugin(retry);
    const retrying = new Retrying({
      auth: 'test',
      baseUrl: server.url,
      retry: { retryAfterBaseValue: 1 },
      log,
    });
    server.faults.inject({ method: 'GET', path: CONTENTS, fault: { kind: 'status', status: 502 } });
    const { data } = await retrying.rest.repos.getContent({ ...repo, path: 'README.md' });
    expect(Array.isArray(data)).toBe(false);
    expect(server.requests.filter({ kind: `GET ${CONTENTS}` }).map((entry) => entry.status)).toEqual([
      502, 200,
    ]);
  });

  it('lets the throttling plugin wait out a secondary rate limit', async () => {
    const Throttled = Octokit.plugin(throttling);
    const waits: number[] = [];
    const throttled = new Throttled({
      auth: 'test',
      baseUrl: server.url,
      log,
      throttle: {
        retryAfterBaseValue: 1,
        onRateLimit: () => false,
        onSecondaryRateLimit: (
          retryAfter: number,
          _options: unknown,
          _octokit: unknown,
          retryCount: number,
        ) => {
          waits.push(retryAfter);
          return retryCount < 1;
        },
      },
    });
    server.faults.inject({ path: CONTENTS, fault: { kind: 'secondary-rate-limit', retryAfter: 2 } });
    await throttled.rest.repos.getContent({ ...repo, path: 'README.md' });
    expect(waits).toEqual([2]);
  });

  it('counts requests by kind from a mark', async () => {
    await octokit.rest.issues.get({ ...repo, issue_number: 1 });
    const mark = server.requests.mark();
    await octokit.rest.repos.getContent({ ...repo, path: 'README.md' });
    const { data } = await octokit.rest.repos.getContent({ ...repo, path: 'README.md' });
    if (Array.isArray(data)) throw new Error('expected a file');
    await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'README.md',
      message: 'x',
      content: b64('x'),
      sha: data.sha,
    });
    expect(server.requests.stats(mark)).toEqual({
      total: 3,
      reads: 2,
      writes: 1,
      failed: 0,
      byKind: { [`GET ${CONTENTS}`]: 2, [`PUT ${CONTENTS}`]: 1 },
    });
  });
});
