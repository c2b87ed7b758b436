/**
 * `check` evidence: which check runs count, and the proof that a `github-actions` check run is a job's.
 *
 * A job's `GITHUB_TOKEN` acts as the `github-actions` app, the same app that owns the check run of every job of
 * a workflow run; a node holding that token can create a check run of any name. What a token cannot make is a
 * job: GitHub Actions gives each job's check run the job's own id, so `GET /actions/jobs/{id}` finds the job of a
 * real one and answers 404 for a made one. The rule, by `app:`:
 * - absent or `github-actions`: only check runs of GitHub Actions jobs, each proven by that lookup;
 * - another slug: only that app's check runs (a token the node holds acts as no other app);
 * - `*`: any app's, a check run made with a token included.
 */
import type { GitHubClient, RepoRef } from '../github/client.js';
import { statusOf } from '../github/status.js';
import type { Evidence } from '../journal/events/fields.js';

type Rest = GitHubClient['rest'];
type CheckRun = Awaited<ReturnType<Rest['checks']['listForRef']>>['data']['check_runs'][number];
type Job = Awaited<ReturnType<Rest['actions']['getJobForWorkflowRun']>>['data'];
/** The client and repository the check asks. */
interface CheckRunClient {
  octokit: GitHubClient;
  repo: RepoRef;
}

/** What `app:` says to accept any app's check run. */
const ANY_APP = '*';
const ACTIONS_APP = 'github-actions';
/** Job lookups per check, at most: a node that floods a name with made check runs makes the check fail, not loop. */
const MAX_JOB_LOOKUPS = 5;

interface CheckRunSpec {
  ref: string;
  name: string;
  conclusion?: 'success' | 'neutral' | 'skipped';
  app?: string;
}

/** What the rule makes of one check run before any request: counted, to be proven a job, or refused (why). */
type Standing = { is: 'counted' } | { is: 'needs-job' } | { is: 'refused'; why: string };

/** The rule of `app:` for one check run (pure). */
function standing(appSlug: string | undefined, app: string | undefined): Standing {
  if (app === ANY_APP) return { is: 'counted' };
  const by = appSlug ?? 'an unknown app';
  if (app === undefined || app === ACTIONS_APP) {
    if (appSlug === ACTIONS_APP) return { is: 'needs-job' };
    // Naming the app is the fix only when GitHub said which app it is.
    if (app || !appSlug) return { is: 'refused', why: `made by ${by}, not by a GitHub Actions job` };
    return {
      is: 'refused',
      why: `made by ${by}; only GitHub Actions jobs count unless the check names an app (app: ${appSlug})`,
    };
  }
  return appSlug === app ? { is: 'counted' } : { is: 'refused', why: `made by ${by}, not ${app}` };
}

/** Why a `github-actions` check run is not a job's check run (undefined: it is, and `job` is that job). */
async function jobOf(gh: CheckRunClient, run: CheckRun): Promise<{ job?: Job; why?: string }> {
  try {
    const { data: job } = await gh.octokit.rest.actions.getJobForWorkflowRun({ ...gh.repo, job_id: run.id });
    if (
      job.id !== run.id ||
      !job.check_run_url.endsWith(`/check-runs/${run.id}`) ||
      job.head_sha !== run.head_sha
    )
      return { why: `job ${job.id} of workflow run ${job.run_id} is not this check run's` };
    return { job };
  } catch (e) {
    const status = statusOf(e);
    if (status === 404)
      return {
        why: 'made with a GitHub Actions token, not by a job of a workflow run (no job has its id): a node holding GITHUB_TOKEN can make one',
      };
    if (status === 403)
      return { why: "GitHub refused the job lookup (403): give the workflow's token `actions: read`" };
    throw e;
  }
}

/** A check run that did not count: where it is, and why. */
interface Refusal {
  what: string;
  why: string;
}

interface Found {
  run?: CheckRun;
  job?: Job;
  refused: Refusal[];
}

/** The newest check run that counts, and every newer one refused, with the reason. */
async function firstCounted(runs: CheckRun[], spec: CheckRunSpec, gh: CheckRunClient): Promise<Found> {
  const refused: Refusal[] = [];
  const where = (run: CheckRun) => run.html_url ?? `check run ${run.id}`;
  let lookups = 0;
  for (const [index, run] of runs.entries()) {
    const rule = standing(run.app?.slug, spec.app);
    if (rule.is === 'counted') return { run, refused };
    if (rule.is === 'refused') {
      refused.push({ what: where(run), why: rule.why });
      continue;
    }
    if (lookups === MAX_JOB_LOOKUPS) {
      const why = `not looked up: at most ${MAX_JOB_LOOKUPS} job lookups a check`;
      refused.push({ what: `${runs.length - index} older`, why });
      break;
    }
    lookups++;
    const { job, why } = await jobOf(gh, run);
    if (job) return { run, job, refused };
    refused.push({ what: where(run), why: why ?? 'no job' });
  }
  return { refused };
}

/** `; refused: a, b (why); c (other why)`: each reason once, after the check runs it refused. */
function refusals(refused: Refusal[]): string {
  if (!refused.length) return '';
  const byWhy = new Map<string, string[]>();
  for (const { what, why } of refused) byWhy.set(why, [...(byWhy.get(why) ?? []), what]);
  return `; refused: ${[...byWhy].map(([why, whats]) => `${whats.join(', ')} (${why})`).join('; ')}`;
}

/** The check in words: its name, ref, conclusion and whose check runs count. */
function label(spec: CheckRunSpec, want: string): string {
  const whose =
    spec.app === undefined || spec.app === ACTIONS_APP
      ? 'from a GitHub Actions job'
      : spec.app === ANY_APP
        ? 'by any app'
        : `by ${spec.app}`;
  return `check "${spec.name}" on ${spec.ref} ${want} ${whose}`;
}

/** The latest check run of the name on the ref that counts under `app:` has concluded as required. */
export async function checkRunCheck(spec: CheckRunSpec, gh: CheckRunClient): Promise<Evidence> {
  const want = spec.conclusion ?? 'success';
  const { data } = await gh.octokit.rest.checks.listForRef({
    ...gh.repo,
    ref: spec.ref,
    check_name: spec.name,
    // Every one, newest first: with `latest`, a newer check run a node made could hide a job's of the same app.
    filter: 'all',
    per_page: 100,
  });
  const newestFirst = [...data.check_runs].sort((a, b) => b.id - a.id);
  const { run, job, refused } = await firstCounted(newestFirst, spec, gh);
  const notCounted = refusals(refused);
  if (!run)
    return {
      check: label(spec, want),
      passed: false,
      observed: `no check run "${spec.name}" on ${spec.ref} counts${notCounted}`,
    };
  // A job's own state decides: its check run is the Actions app's, which a token of that app may update.
  const status = job?.status ?? run.status;
  const conclusion = job ? job.conclusion : run.conclusion;
  const ofJob = job
    ? ` job ${job.html_url ?? job.id} of workflow run ${job.run_id}`
    : ` app ${run.app?.slug ?? 'unknown'}`;
  const disagree =
    job && (run.status !== job.status || run.conclusion !== job.conclusion)
      ? ` (the check run says ${run.status}/${run.conclusion ?? 'none'}: the job's state counts)`
      : '';
  return {
    check: label(spec, want),
    passed: status === 'completed' && conclusion === want,
    observed: `${status}/${conclusion ?? 'none'} ${run.html_url ?? ''} sha ${run.head_sha.slice(0, 12)}${ofJob}${disagree}${notCounted}`,
  };
}
