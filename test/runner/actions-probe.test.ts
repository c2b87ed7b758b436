// Recovery's probe for attempts run by the Action, against the local GitHub: one listing of a run attempt's jobs
// answers every in-flight node of one step, and a listing older than a dispatch never proves that dispatch gone.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/github/client.js';
import type { DispatchInfo } from '../../src/journal/state.js';
import { actionsProbes, type JobIdentity } from '../../src/runner/recovery/actions-probe.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';

const JOBS = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs';
const RUN = 501;
const repoRef = { owner: 'acme', repo: 'widgets' };
const me: JobIdentity = { workflow_run_id: RUN, run_attempt: 1, job: 'fanout', runner_name: 'runner-me' };

let server: GitHubServer;
let repo: RepoState;
beforeEach(async () => {
  server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }] });
  repo = server.state.repo('acme/widgets');
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: RUN,
    event: 'issues',
    status: 'in_progress',
    jobs: ['me', '1', '2', '3'].map((r) => ({
      name: `fanout (${r})`,
      runner_name: `runner-${r}`,
      status: 'in_progress' as const,
    })),
  });
});
afterEach(async () => server?.close());

const client = () => createClient({ token: 'ghs_x', baseUrl: server.url, retries: 0 });
const dispatch = (runner: string, attempt = 1): DispatchInfo => ({
  attempt,
  at: new Date(Date.now() - 5_000).toISOString(),
  replay: 'never',
  approach: 'default',
  runner: {
    kind: 'actions',
    workflow_run_id: RUN,
    run_attempt: 1,
    job: 'fanout',
    runner_name: runner,
    exec_tag: `tag-${runner}-${attempt}`,
  },
});
const listings = () => server.requests.count({ kind: JOBS });

describe('actionsProbes: one listing of a run attempt’s jobs per step', () => {
  it('answers every in-flight node of the run attempt, on every retry, from one listing', async () => {
    const probe = actionsProbes(client(), repoRef, me);
    for (let retry = 0; retry < 3; retry++)
      for (const r of ['runner-1', 'runner-2', 'runner-3']) {
        const p = await probe(r, dispatch(r));
        expect(p.gone, r).toBe(false);
        expect(p.why).toContain('is still in_progress');
      }
    expect(listings()).toBe(1);
  });

  it('a job that has ended is gone, from the one listing', async () => {
    repo.updateWorkflowRun(RUN, { jobs: [{ name: 'fanout (2)', conclusion: 'failure' }] });
    const probe = actionsProbes(client(), repoRef, me);
    const d1 = dispatch('runner-1');
    const d2 = dispatch('runner-2');
    expect((await probe('n1', d1)).gone).toBe(false);
    // n2's dispatch was asked about after the listing was taken: a listing taken after it is what proves it gone.
    expect(await probe('n2', d2)).toMatchObject({
      gone: true,
      why: expect.stringContaining('ended (failure)'),
    });
    expect(listings()).toBe(2);
    // Both were asked about before the second listing: the retry asks GitHub nothing more.
    expect((await probe('n1', d1)).gone).toBe(false);
    expect((await probe('n2', d2)).gone).toBe(true);
    expect(listings()).toBe(2);
  });

  it('rule 3: a listing taken before a dispatch was seen never proves its executor gone', async () => {
    repo.updateWorkflowRun(RUN, { jobs: [{ name: 'fanout (2)', conclusion: 'success' }] });
    const probe = actionsProbes(client(), repoRef, me);
    expect((await probe('n1', dispatch('runner-1'))).gone).toBe(false);
    // Then a new job of the run starts on runner-2 (a self-hosted runner runs the run's jobs one after another)
    // and dispatches n5. The first listing shows only runner-2's job that ended: it must not say n5's is gone.
    repo.updateWorkflowRun(RUN, {
      jobs: [{ name: 'fanout (5)', runner_name: 'runner-2', status: 'in_progress' }],
    });
    const p = await probe('n5', dispatch('runner-2'));
    expect(p).toMatchObject({
      gone: false,
      why: expect.stringContaining('"fanout (5)" is still in_progress'),
    });
    expect(listings()).toBe(2);
  });

  it('an out-of-date listing only leaves a node alone: a job that ended since is recovered by a later step', async () => {
    const probe = actionsProbes(client(), repoRef, me);
    expect((await probe('n1', dispatch('runner-1'))).gone).toBe(false);
    repo.updateWorkflowRun(RUN, { jobs: [{ name: 'fanout (3)', conclusion: 'cancelled' }] });
    expect((await probe('n3', dispatch('runner-3'))).gone).toBe(false);
    expect(listings()).toBe(1);
    expect((await actionsProbes(client(), repoRef, me)('n3', dispatch('runner-3'))).gone).toBe(true);
  });

  it('among jobs on one runner, one still running is the executor (a runner runs one job at a time)', async () => {
    repo.updateWorkflowRun(RUN, {
      jobs: [
        { name: 'earlier on runner-1', runner_name: 'runner-1', status: 'completed', conclusion: 'success' },
      ],
    });
    const p = await actionsProbes(client(), repoRef, me)('n1', dispatch('runner-1'));
    expect(p.gone).toBe(false);
  });

  it('an earlier step of this very job is gone without asking GitHub', async () => {
    const p = await actionsProbes(client(), repoRef, me)('n0', dispatch('runner-me'));
    expect(p).toMatchObject({ gone: true, why: expect.stringContaining('earlier step of this job') });
    expect(listings()).toBe(0);
  });
});
