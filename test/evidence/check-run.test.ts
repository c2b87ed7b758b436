// `check` evidence through the local GitHub over HTTP: whose check runs count under each `app:`, the job lookup
// that tells a GitHub Actions job's check run from one a node made with a GITHUB_TOKEN, and what it costs.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GitHubEvidence, runGitHubCheck } from '../../src/evidence/github.js';
import { createClient } from '../../src/github/client.js';
import type { Check } from '../../src/graph/schema/check.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';

const OWNER = 'acme';
const REPO = 'widgets';
const JOB_LOOKUP = 'GET /repos/{owner}/{repo}/actions/jobs/{job_id}';

let server: GitHubServer;
let repo: RepoState;
let gh: GitHubEvidence;

beforeEach(async () => {
  server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO }],
    app: { slug: 'trusted-ci' },
  });
  repo = server.state.repo(`${OWNER}/${REPO}`);
  gh = {
    octokit: createClient({ token: 'ghs_job_token', baseUrl: server.url, retries: 0, writeIntervalMs: 0 }),
    repo: { owner: OWNER, repo: REPO },
  };
});
afterEach(async () => server.close());

/** A workflow run on main whose one job, `test`, ended with `conclusion`. */
function ciJob(conclusion: 'success' | 'failure' = 'success'): number {
  const run = repo.addWorkflowRun({ workflow: 'ci.yml', jobs: [{ name: 'test', conclusion }], conclusion });
  return repo.latestAttempt(run).jobs[0]!.id;
}

/** What a node holding the job's GITHUB_TOKEN can do: make a check run `test` (it belongs to github-actions). */
async function forged(conclusion: 'success' | 'failure' = 'success'): Promise<number> {
  const { data } = await gh.octokit.rest.checks.create({
    owner: OWNER,
    repo: REPO,
    name: 'test',
    head_sha: repo.branchSha('main')!,
    conclusion,
  });
  expect(data.app?.slug).toBe('github-actions');
  return data.id;
}

const check = (app?: string): Check => ({ check: { ref: 'main', name: 'test', ...(app ? { app } : {}) } });
const url = (id: number) => `https://github.com/${OWNER}/${REPO}/runs/${id}`;
const MADE = 'made with a GitHub Actions token, not by a job of a workflow run';

describe('check evidence with no app: only a GitHub Actions job counts', () => {
  it("passes on a job's check run, naming the job, with one job lookup", async () => {
    const id = ciJob();
    const mark = server.requests.mark();
    const ev = await runGitHubCheck(check(), gh);
    expect(ev.check).toBe('check "test" on main success from a GitHub Actions job');
    expect(ev.passed).toBe(true);
    expect(ev.observed).toMatch(
      new RegExp(`^completed/success ${url(id)} sha \\w{12} job .*/job/${id} of workflow run \\d+$`),
    );
    expect(server.requests.stats(mark).byKind[JOB_LOOKUP]).toBe(1);
  });

  it('refuses a check run made with a GITHUB_TOKEN, and says why', async () => {
    const id = await forged();
    const ev = await runGitHubCheck(check(), gh);
    expect(ev.passed).toBe(false);
    expect(ev.observed).toBe(
      `no check run "test" on main counts; refused: ${url(id)} (${MADE} (no job has its id): a node holding GITHUB_TOKEN can make one)`,
    );
  });

  it("a made check run newer than a failed job's does not turn the check green", async () => {
    const job = ciJob('failure');
    const made = await forged('success');
    const ev = await runGitHubCheck(check(), gh);
    expect(ev.passed).toBe(false);
    expect(ev.observed).toMatch(
      new RegExp(`^completed/failure ${url(job)} .*; refused: ${url(made)} \\(${MADE}`),
    );
  });

  it("a job's state decides when its check run was updated through the API", async () => {
    const id = ciJob('failure');
    await gh.octokit.rest.checks.update({
      owner: OWNER,
      repo: REPO,
      check_run_id: id,
      conclusion: 'success',
    });
    const ev = await runGitHubCheck(check(), gh);
    expect(ev.passed).toBe(false);
    expect(ev.observed).toMatch(
      /^completed\/failure .* \(the check run says completed\/success: the job's state counts\)$/,
    );
  });

  it("refuses another app's check run without a job lookup, and names the app to write", async () => {
    repo.addCheckRun({ name: 'test', app: 'trusted-ci', conclusion: 'success' });
    const mark = server.requests.mark();
    const ev = await runGitHubCheck(check(), gh);
    expect(ev.passed).toBe(false);
    expect(ev.observed).toMatch(
      /\(made by trusted-ci; only GitHub Actions jobs count unless the check names an app \(app: trusted-ci\)\)$/,
    );
    expect(server.requests.stats(mark).byKind[JOB_LOOKUP]).toBeUndefined();
  });

  it('fails saying what permission is missing when GitHub refuses the job lookup', async () => {
    ciJob();
    server.faults.inject({
      method: 'GET',
      path: '/repos/{owner}/{repo}/actions/jobs/{job_id}',
      fault: { kind: 'status', status: 403 },
    });
    const ev = await runGitHubCheck(check(), gh);
    expect(ev.passed).toBe(false);
    expect(ev.observed).toMatch(
      /GitHub refused the job lookup \(403\): give the workflow's token `actions: read`\)$/,
    );
  });

  it('looks up at most a few made check runs, then fails', async () => {
    ciJob();
    for (let i = 0; i < 7; i++) await forged();
    const mark = server.requests.mark();
    const ev = await runGitHubCheck(check(), gh);
    expect(ev.passed).toBe(false);
    expect(ev.observed).toMatch(/; 3 older \(not looked up: at most 5 job lookups a check\)$/);
    expect(server.requests.stats(mark).byKind[JOB_LOOKUP]).toBe(5);
  });
});

describe('check evidence that names whose check runs count', () => {
  it('app: github-actions is the default: a made check run is refused', async () => {
    await forged();
    const ev = await runGitHubCheck(check('github-actions'), gh);
    expect([ev.check, ev.passed]).toEqual(['check "test" on main success from a GitHub Actions job', false]);
  });

  it("app: <slug> counts that app's check run, with no job lookup, and refuses a made one", async () => {
    const made = await forged();
    const ci = repo.addCheckRun({ name: 'test', app: 'trusted-ci', conclusion: 'success' });
    const mark = server.requests.mark();
    const ev = await runGitHubCheck(check('trusted-ci'), gh);
    expect(ev).toEqual({
      check: 'check "test" on main success by trusted-ci',
      passed: true,
      observed: `completed/success ${url(ci.id)} sha ${ci.head_sha.slice(0, 12)} app trusted-ci`,
    });
    expect(made).toBeLessThan(ci.id);
    expect(server.requests.stats(mark).byKind[JOB_LOOKUP]).toBeUndefined();
  });

  it('app: "*" counts any check run, a made one included', async () => {
    const made = await forged();
    const ev = await runGitHubCheck(check('*'), gh);
    expect([ev.check, ev.passed, ev.observed]).toEqual([
      'check "test" on main success by any app',
      true,
      `completed/success ${url(made)} sha ${repo.branchSha('main')!.slice(0, 12)} app github-actions`,
    ]);
  });
});
