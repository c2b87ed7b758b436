/** Whether an Actions job that dispatched an attempt has ended: recovery's probe for attempts run by the Action (asked by a step and by the comment handler). */
import type { GitHubClient, RepoRef } from '../github/client.js';
import type { DispatchInfo } from '../journal/state.js';
import type { Probe } from '../protocol/recovery.js';

/** This job, as NodeDispatched.runner records it. */
export interface JobIdentity {
  workflow_run_id: number;
  run_attempt: number;
  job: string;
  runner_name: string;
}

/**
 * Asks GitHub whether the workflow run attempt that dispatched an attempt is still going. Only when it has
 * ended (or it was this very job, in an earlier step) is the executor gone; a job still running is left alone.
 */
export async function probeActions(
  octokit: GitHubClient,
  repo: RepoRef,
  me: JobIdentity,
  d: DispatchInfo,
  now: number,
): Promise<Probe> {
  const r = d.runner;
  const since = Date.parse(d.at);
  if (r.kind !== 'actions' || typeof r.workflow_run_id !== 'number') {
    return {
      gone: false,
      why: `dispatched by a ${r.kind} runner (${r.host ?? '?'}); recover it there`,
      observed_ms: 0,
    };
  }
  const attempt = r.run_attempt ?? 1;
  if (
    r.workflow_run_id === me.workflow_run_id &&
    attempt === me.run_attempt &&
    r.job === me.job &&
    r.runner_name === me.runner_name
  ) {
    return {
      gone: true,
      why: 'dispatched by an earlier step of this job, which has ended',
      observed_ms: Math.max(0, now - since),
    };
  }
  const { data: jobs } = await octokit.rest.actions.listJobsForWorkflowRunAttempt({
    ...repo,
    run_id: r.workflow_run_id,
    attempt_number: attempt,
    per_page: 100,
  });
  const job =
    jobs.jobs.find((j) => j.runner_name && j.runner_name === r.runner_name) ??
    jobs.jobs.find((j) => j.name === r.job);
  const where = `workflow run ${r.workflow_run_id} attempt ${attempt}${job ? ` job "${job.name}"` : ''}`;
  if (job) {
    if (job.status !== 'completed')
      return { gone: false, why: `${where} is still ${job.status}`, observed_ms: 0 };
    const end = job.completed_at ? Date.parse(job.completed_at) : now;
    return {
      gone: true,
      why: `${where} ended (${job.conclusion ?? 'no conclusion'})`,
      observed_ms: Math.max(0, end - since),
    };
  }
  const { data: run } = await octokit.rest.actions.getWorkflowRunAttempt({
    ...repo,
    run_id: r.workflow_run_id,
    attempt_number: attempt,
  });
  if (run.status !== 'completed')
    return { gone: false, why: `${where} is still ${run.status}`, observed_ms: 0 };
  const end = Date.parse(run.updated_at);
  return {
    gone: true,
    why: `${where} ended (${run.conclusion ?? 'no conclusion'})`,
    observed_ms: Math.max(0, end - since),
  };
}
