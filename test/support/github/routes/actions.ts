/**
 * GitHub Actions: workflows, workflow runs per attempt, their jobs (status, conclusion, timing),
 * and `workflow_dispatch`, which is recorded and queues a run as GitHub does.
 */
import { conflict, invalidRequest, notFound, unprocessable } from '../http-error.js';
import type { AttemptRecord, WorkflowRecord, WorkflowRunRecord } from '../records.js';
import { job, workflow, workflowRun } from '../render/actions.js';
import type { RepoState } from '../repo-state.js';
import { type RouteDef, route } from '../router.js';

function findRun(repo: RepoState, id: string): WorkflowRunRecord {
  const found = repo.workflowRuns.get(Number(id));
  if (!found) throw notFound();
  return found;
}

function findAttempt(run: WorkflowRunRecord, number: string): AttemptRecord {
  const found = run.attempts[Number(number) - 1];
  if (!found) throw notFound();
  return found;
}

function findWorkflow(repo: RepoState, id: string): WorkflowRecord {
  const found = repo.findWorkflow(id);
  if (!found) throw notFound();
  return found;
}

/**
 * Whether a time is inside a `created` query as GitHub's search syntax writes it: `>=T`, `>T`, `<=T`, `<T`,
 * `A..B`, or a bare date or time (that day, or that moment on).
 */
export function createdMatches(query: string | null, at: string): boolean {
  if (query === null) return true;
  const t = Date.parse(at);
  const range = /^(.+)\.\.(.+)$/.exec(query);
  if (range) return t >= Date.parse(range[1]!) && t <= Date.parse(range[2]!);
  const m = /^(>=|<=|>|<)?(.+)$/.exec(query)!;
  const v = Date.parse(m[2]!);
  if (Number.isNaN(v)) throw invalidRequest(`"created" is not a date: ${query}`);
  if (m[1] === '>=') return t >= v;
  if (m[1] === '>') return t > v;
  if (m[1] === '<=') return t <= v;
  if (m[1] === '<') return t < v;
  return /^\d{4}-\d\d-\d\d$/.test(m[2]!) ? t >= v && t < v + 86_400_000 : t >= v;
}

/** Runs newest first, filtered as `GET .../actions/runs` filters them. */
function filterRuns(repo: RepoState, query: URLSearchParams, workflowId?: number): WorkflowRunRecord[] {
  const event = query.get('event');
  const status = query.get('status');
  const branch = query.get('branch');
  const headSha = query.get('head_sha');
  const actor = query.get('actor');
  const created = query.get('created');
  return [...repo.workflowRuns.values()]
    .filter((run) => workflowId === undefined || run.workflow_id === workflowId)
    .filter((run) => {
      const attempt = repo.latestAttempt(run);
      return (
        (event === null || run.event === event) &&
        (status === null || attempt.status === status || attempt.conclusion === status) &&
        (branch === null || run.head_branch === branch) &&
        (headSha === null || run.head_sha === headSha) &&
        (actor === null || run.actor.toLowerCase() === actor.toLowerCase()) &&
        createdMatches(created, run.created_at)
      );
    })
    .sort((a, b) => b.id - a.id);
}

export const actionsRoutes: RouteDef[] = [
  route('get', '/repos/{owner}/{repo}/actions/workflows', (ctx) => {
    const repo = ctx.repo();
    const all = [...repo.workflows.values()];
    const { items, headers } = ctx.page(all);
    return ctx.reply(
      200,
      { total_count: all.length, workflows: items.map((record) => workflow(repo, ctx.urls, record)) },
      headers,
    );
  }),

  route('get', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}', (ctx) => {
    const repo = ctx.repo();
    return ctx.reply(200, workflow(repo, ctx.urls, findWorkflow(repo, ctx.params.workflow_id)));
  }),

  route('get', '/repos/{owner}/{repo}/actions/runs', (ctx) => {
    const repo = ctx.repo();
    const runs = filterRuns(repo, ctx.query);
    const { items, headers } = ctx.page(runs);
    return ctx.reply(
      200,
      { total_count: runs.length, workflow_runs: items.map((run) => workflowRun(repo, ctx.urls, run)) },
      headers,
    );
  }),

  route('get', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', (ctx) => {
    const repo = ctx.repo();
    const runs = filterRuns(repo, ctx.query, findWorkflow(repo, ctx.params.workflow_id).id);
    const { items, headers } = ctx.page(runs);
    return ctx.reply(
      200,
      { total_count: runs.length, workflow_runs: items.map((run) => workflowRun(repo, ctx.urls, run)) },
      headers,
    );
  }),

  route('get', '/repos/{owner}/{repo}/actions/runs/{run_id}', (ctx) => {
    const repo = ctx.repo();
    return ctx.reply(200, workflowRun(repo, ctx.urls, findRun(repo, ctx.params.run_id)));
  }),

  // Cancelling a run that is still going: 202, and the run ends cancelled; a finished run answers 409 as GitHub does.
  route('post', '/repos/{owner}/{repo}/actions/runs/{run_id}/cancel', (ctx) => {
    const repo = ctx.repo();
    const run = findRun(repo, ctx.params.run_id);
    if (repo.latestAttempt(run).status === 'completed')
      throw conflict('Cannot cancel a workflow run that is completed.');
    repo.updateWorkflowRun(run.id, { status: 'completed', conclusion: 'cancelled' });
    return ctx.reply(202, {});
  }),

  route('get', '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}', (ctx) => {
    const repo = ctx.repo();
    const run = findRun(repo, ctx.params.run_id);
    return ctx.reply(200, workflowRun(repo, ctx.urls, run, findAttempt(run, ctx.params.attempt_number)));
  }),

  route('get', '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs', (ctx) => {
    const repo = ctx.repo();
    const run = findRun(repo, ctx.params.run_id);
    const attempts = ctx.query.get('filter') === 'all' ? run.attempts : [repo.latestAttempt(run)];
    const jobs = attempts.flatMap((attempt) =>
      attempt.jobs.map((record) => job(repo, ctx.urls, run, attempt, record)),
    );
    const { items, headers } = ctx.page(jobs);
    return ctx.reply(200, { total_count: jobs.length, jobs: items }, headers);
  }),

  route('get', '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs', (ctx) => {
    const repo = ctx.repo();
    const run = findRun(repo, ctx.params.run_id);
    const attempt = findAttempt(run, ctx.params.attempt_number);
    const jobs = attempt.jobs.map((record) => job(repo, ctx.urls, run, attempt, record));
    const { items, headers } = ctx.page(jobs);
    return ctx.reply(200, { total_count: jobs.length, jobs: items }, headers);
  }),

  route('get', '/repos/{owner}/{repo}/actions/jobs/{job_id}', (ctx) => {
    const repo = ctx.repo();
    const id = Number(ctx.params.job_id);
    for (const run of repo.workflowRuns.values()) {
      for (const attempt of run.attempts) {
        const found = attempt.jobs.find((record) => record.id === id);
        if (found) return ctx.reply(200, job(repo, ctx.urls, run, attempt, found));
      }
    }
    throw notFound();
  }),

  route('post', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', (ctx) => {
    const repo = ctx.repo();
    const target = findWorkflow(repo, ctx.params.workflow_id);
    const { ref, inputs = {} } = ctx.body;
    if (typeof ref !== 'string' || ref === '') throw invalidRequest('"ref" wasn\'t supplied.');
    if (!target.dispatchable) throw unprocessable("Workflow does not have 'workflow_dispatch' trigger");
    const branch = ref.replace(/^refs\/(heads|tags)\//, '');
    const sha =
      repo.branchSha(branch) ??
      (repo.refs.has(`refs/tags/${branch}`) ? repo.resolveCommit(branch) : undefined);
    if (!sha) throw unprocessable(`No ref found for: ${ref}`);
    if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
      throw invalidRequest('"inputs" must be an object.');
    }
    const declared = target.inputs;
    const unexpected = declared ? Object.keys(inputs).filter((name) => !declared.includes(name)) : [];
    if (unexpected.length > 0)
      throw unprocessable(`Unexpected inputs provided: ${JSON.stringify(unexpected)}`);

    const run = repo.addWorkflowRun({
      workflow: target.id,
      event: 'workflow_dispatch',
      head_branch: branch,
      head_sha: sha,
      actor: ctx.actor.login,
      status: 'queued',
    });
    repo.dispatches.push({
      workflow_id: ctx.params.workflow_id,
      workflow: target.id,
      ref,
      inputs: { ...inputs },
      actor: ctx.actor.login,
      at: repo.env.now(),
      run_id: run.id,
    });
    if (ctx.body.return_run_details === true) {
      return ctx.reply(200, {
        workflow_run_id: run.id,
        run_url: `${ctx.urls.api}/repos/${repo.fullName}/actions/runs/${run.id}`,
        html_url: `${ctx.urls.web}/${repo.fullName}/actions/runs/${run.id}`,
      });
    }
    return ctx.reply(204, undefined);
  }),
];
