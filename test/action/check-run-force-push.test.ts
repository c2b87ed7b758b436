// The check-run store after a force-push: the commit that held the run's check run leaves the pull request, and
// the run is still found (the `synchronize` event's `before`, then interlock's progress comment, which names where
// the check run is), so a completed `replay: never` node never runs again under the same id. When the run cannot
// be found but plainly existed, the step refuses to start it over and says how to start afresh.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJournal } from '../../src/store/check-run.js';
import { makeWorkspace, runStep, type StepOptions } from '../support/action-process.js';
import { webhookExample } from '../support/fixtures.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { reviewFiles, runningJob } from './check-run-world.js';
import { eventsOf, FULL, OWNER, pullRequestOpened, REPO } from './world.js';

const nameOf = (n: number) => `interlock: review/pr-${n}`;

let server: GitHubServer;
let repo: RepoState;

beforeAll(async () => {
  server = await startGitHubServer({
    repos: [
      { owner: OWNER, name: REPO, branches: { 'feat-f': { 'f.txt': 'f\n' }, 'feat-g': { 'g.txt': 'g\n' } } },
    ],
  });
  repo = server.state.repo(FULL);
  repo.addPull({ number: 40, head: 'feat-f', base: 'main', title: 'Feature F' });
  repo.addPull({ number: 41, head: 'feat-g', base: 'main', title: 'Feature G' });
});
afterAll(async () => server?.close());

const counter = { next: 7600 };
const job = () => runningJob(repo, counter, 'pull_request');

/** Rewrites the branch as `git push --force` does: a new commit on the base, the old head no longer in it. */
function forcePush(branch: string, files: Record<string, string>): { before: string; after: string } {
  const before = repo.branchSha(branch)!;
  const commit = repo.makeCommit(repo.branchSha('main'), new Map(), { message: 'rewritten', actor: OWNER });
  repo.refs.set(`refs/heads/${branch}`, commit.sha);
  repo.commitFiles(branch, files, { message: 'rewritten work' });
  return { before, after: repo.branchSha(branch)! };
}

/** A `pull_request.synchronize` payload as GitHub sends it after a push: `before`, `after`, the new head. */
function synchronize(number: number, push: { before: string; after: string }): Record<string, unknown> {
  const base = pullRequestOpened(repo, number) as { pull_request: Record<string, unknown> };
  const example = webhookExample('pull_request', 'synchronize');
  return { ...example, ...base, action: 'synchronize', before: push.before, after: push.after };
}

/** A `pull_request.labeled` event: it carries the head, and no `before`. */
function labeled(number: number): Record<string, unknown> {
  return { ...pullRequestOpened(repo, number), action: 'labeled', label: { name: 'ready' } };
}

function step(ws: string, payload: Record<string, unknown>): StepOptions {
  return {
    apiUrl: server.url,
    repository: FULL,
    workspace: ws,
    eventName: 'pull_request',
    payload,
    inputs: { store: 'check-run' },
    job: job(),
  };
}

const checkRuns = (n: number, sha: string) =>
  [...repo.checkRuns.values()].filter((c) => c.name === nameOf(n) && c.head_sha === sha);
const effects = (ws: string) => readFileSync(join(ws, 'effects.log'), 'utf8').trim().split('\n');

describe('store: check-run, when a force-push takes the run’s commit out of the pull request', () => {
  const ws = makeWorkspace(reviewFiles(['opened', 'synchronize', 'labeled']));
  let first: string;
  let second: string;

  it('the synchronize event’s `before` leads to the run: it goes on, and the completed never node is not run again', async () => {
    first = repo.branchSha('feat-f')!;
    const opened = await runStep(step(ws, pullRequestOpened(repo, 40)));
    expect(opened.outputs).toMatchObject({ 'run-id': 'review/pr-40', node: 'lint', status: 'completed' });

    const push = forcePush('feat-f', { 'f.txt': 'f, rewritten\n' });
    second = push.after;
    const listed = await fetch(`${server.url}/repos/${FULL}/pulls/40/commits`, {
      headers: { authorization: 'token test' },
    }).then((r) => r.json() as Promise<{ sha: string }[]>);
    expect(listed.map((c) => c.sha)).not.toContain(first);

    const r = await runStep(step(ws, synchronize(40, push)));
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({
      'run-id': 'review/pr-40',
      node: 'test',
      attempt: '1',
      status: 'completed',
    });
    expect(effects(ws)).toEqual(['lint 1', 'test 1']);
    const journal = decodeJournal(checkRuns(40, second)[0]?.output.text ?? '', nameOf(40));
    expect(eventsOf(journal, 'NodeDispatched', 'lint')).toHaveLength(1);
    expect(eventsOf(journal, 'RunStarted')).toHaveLength(1);
  });

  it('the old head’s check run is concluded neutral and names the head the run moved to', () => {
    const [old] = checkRuns(40, first);
    expect(old).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(old?.output.summary).toContain(`moved to the new head ${second}`);
  });

  it('after another force-push, an event with no `before` finds the run where interlock’s progress comment says it is', async () => {
    forcePush('feat-f', { 'f.txt': 'f, rewritten again\n' });
    const r = await runStep(step(ws, labeled(40)));
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({
      'run-id': 'review/pr-40',
      node: 'ship',
      attempt: '1',
      status: 'completed',
    });
    expect(effects(ws)).toEqual(['lint 1', 'test 1', 'ship 1']);
    expect(checkRuns(40, second)[0]).toMatchObject({ status: 'completed', conclusion: 'neutral' });
  });
});

describe('store: check-run, when the run existed but its check run cannot be found', () => {
  const ws = makeWorkspace(reviewFiles(['opened', 'synchronize', 'labeled']));

  it('refuses to start the run over under the same id, and says how to start afresh', async () => {
    const first = repo.branchSha('feat-g')!;
    const opened = await runStep(step(ws, pullRequestOpened(repo, 41)));
    expect(opened.outputs).toMatchObject({ node: 'lint', status: 'completed' });
    // The commit is gone from GitHub (garbage-collected after the force-push): its check runs cannot be listed.
    server.faults.inject({
      method: 'GET',
      path: `/repos/${FULL}/commits/${first}/check-runs`,
      every: true,
      fault: { kind: 'status', status: 422 },
    });
    forcePush('feat-g', { 'g.txt': 'g, rewritten\n' });

    const r = await runStep(step(ws, labeled(41)));
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(r.stdout).toContain('run "review/pr-41" was started on this pull request');
    expect(r.stdout).toContain('run-id: review/pr-41-2');
    expect(r.summary).toContain('Starting afresh');
    expect(effects(ws)).toEqual(['lint 1']);
    expect([...repo.checkRuns.values()].filter((c) => c.name === nameOf(41))).toHaveLength(1);
  });

  it('starting afresh as the error says works: a dispatch with run-id review/pr-41-2 and the graph runs on the pull request', async () => {
    const r = await runStep({
      apiUrl: server.url,
      repository: FULL,
      workspace: ws,
      eventName: 'workflow_dispatch',
      payload: { inputs: { 'run-id': 'review/pr-41-2' } },
      inputs: { store: 'check-run', 'run-id': 'review/pr-41-2', graph: '.github/interlock/review.yml' },
      job: job(),
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ 'run-id': 'review/pr-41-2', node: 'lint', status: 'completed' });
    const [fresh] = [...repo.checkRuns.values()].filter((c) => c.name === 'interlock: review/pr-41-2');
    expect(fresh?.head_sha).toBe(repo.branchSha('feat-g'));
    expect(eventsOf(decodeJournal(fresh?.output.text ?? '', 'fresh'), 'RunStarted')[0]).toMatchObject({
      subject: 'pr-41',
    });
  });
});
