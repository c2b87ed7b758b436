/** Workflows, workflow runs (per attempt) and jobs as GitHub shows them. */
import type { Urls } from '../context.js';
import type { AttemptRecord, JobRecord, WorkflowRecord, WorkflowRunRecord } from '../records.js';
import type { RepoState } from '../repo-state.js';
import type { Schema } from '../types.js';
import { pullsAt } from './pulls.js';
import { minimalRepository } from './repos.js';
import { simpleUser } from './users.js';

export function workflow(repo: RepoState, urls: Urls, record: WorkflowRecord): Schema<'workflow'> {
  return {
    id: record.id,
    node_id: record.node_id,
    name: record.name,
    path: record.path,
    state: record.state,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    url: `${urls.api}/repos/${repo.fullName}/actions/workflows/${record.id}`,
    html_url: `${urls.web}/${repo.fullName}/blob/${repo.defaultBranch}/${record.path}`,
    badge_url: `${urls.web}/${repo.fullName}/workflows/${encodeURIComponent(record.name)}/badge.svg`,
  };
}

/** A run as one attempt shows it (the latest, unless another is given). */
export function workflowRun(
  repo: RepoState,
  urls: Urls,
  run: WorkflowRunRecord,
  attempt: AttemptRecord = repo.latestAttempt(run),
): Schema<'workflow-run'> {
  const api = `${urls.api}/repos/${repo.fullName}/actions/runs/${run.id}`;
  const wf = repo.workflows.get(run.workflow_id);
  const commit = repo.git.commit(run.head_sha);
  const actor = simpleUser(repo.env.user(run.actor), urls);
  const repoShape = minimalRepository(repo, urls);
  return {
    id: run.id,
    name: wf?.name ?? null,
    node_id: run.node_id,
    check_suite_id: run.id + 1,
    check_suite_node_id: `CS_${run.id}`,
    head_branch: run.head_branch,
    head_sha: run.head_sha,
    path: wf?.path ?? '',
    run_number: run.run_number,
    run_attempt: attempt.attempt,
    referenced_workflows: [],
    event: run.event,
    status: attempt.status,
    conclusion: attempt.conclusion,
    workflow_id: run.workflow_id,
    url: api,
    html_url: `${urls.web}/${repo.fullName}/actions/runs/${run.id}`,
    pull_requests: pullsAt(repo, urls, run.head_sha),
    created_at: run.created_at,
    updated_at: attempt.updated_at,
    actor,
    triggering_actor: actor,
    run_started_at: attempt.run_started_at,
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    check_suite_url: `${urls.api}/repos/${repo.fullName}/check-suites/${run.id + 1}`,
    artifacts_url: `${api}/artifacts`,
    cancel_url: `${api}/cancel`,
    rerun_url: `${api}/rerun`,
    previous_attempt_url: attempt.attempt > 1 ? `${api}/attempts/${attempt.attempt - 1}` : null,
    workflow_url: `${urls.api}/repos/${repo.fullName}/actions/workflows/${run.workflow_id}`,
    head_commit: commit
      ? {
          id: commit.sha,
          tree_id: commit.tree,
          message: commit.message,
          timestamp: commit.committer.date,
          author: { name: commit.author.name, email: commit.author.email },
          committer: { name: commit.committer.name, email: commit.committer.email },
        }
      : null,
    repository: repoShape,
    head_repository: repoShape,
    display_title: run.display_title,
  };
}

export function job(
  repo: RepoState,
  urls: Urls,
  run: WorkflowRunRecord,
  attempt: AttemptRecord,
  record: JobRecord,
): Schema<'job'> {
  const wf = repo.workflows.get(run.workflow_id);
  return {
    id: record.id,
    run_id: run.id,
    run_url: `${urls.api}/repos/${repo.fullName}/actions/runs/${run.id}`,
    run_attempt: attempt.attempt,
    node_id: record.node_id,
    head_sha: run.head_sha,
    url: `${urls.api}/repos/${repo.fullName}/actions/jobs/${record.id}`,
    html_url: `${urls.web}/${repo.fullName}/actions/runs/${run.id}/job/${record.id}`,
    status: record.status,
    conclusion: record.conclusion,
    created_at: record.created_at,
    started_at: record.started_at,
    completed_at: record.completed_at,
    name: record.name,
    steps: record.steps,
    check_run_url: `${urls.api}/repos/${repo.fullName}/check-runs/${record.id}`,
    labels: record.labels,
    runner_id: record.runner_id,
    runner_name: record.runner_name,
    runner_group_id: record.runner_id === null ? null : 1,
    runner_group_name: record.runner_id === null ? null : 'GitHub Actions',
    workflow_name: wf?.name ?? null,
    head_branch: run.head_branch,
  };
}
