/**
 * Whether an Actions job that dispatched an attempt has ended: recovery's probe for attempts run by the Action
 * (asked by a step and by the comment handler). One step asks GitHub once per workflow run attempt for its jobs
 * and answers every in-flight node from that listing, on every retry of its commit (`actionsProbes`).
 */
import type { GitHubClient, RepoRef } from '../../github/client.js';
import type { DispatchInfo } from '../../journal/state.js';
import type { Probe } from '../../protocol/recovery.js';

/** This job, as NodeDispatched.runner records it. */
export interface JobIdentity {
  workflow_run_id: number;
  run_attempt: number;
  job: string;
  runner_name: string;
}

type Jobs = Awaited<
  ReturnType<GitHubClient['rest']['actions']['listJobsForWorkflowRunAttempt']>
>['data']['jobs'];
type RunAttempt = Awaited<ReturnType<GitHubClient['rest']['actions']['getWorkflowRunAttempt']>>['data'];

/** What GitHub said about one workflow run attempt: its jobs, and the attempt itself when a job was not listed. */
interface Listing {
  jobs: Jobs;
  run?: RunAttempt;
  /** The dispatches (by `dispatchKey`) this listing was fetched after: only for those may it prove a job gone. */
  seen: Set<string>;
}

type ActionsProbe = (node: string, d: DispatchInfo) => Promise<Probe>;

/** One attempt's dispatch, named by what recorded it (the node's attempt and the executor's tag). */
function dispatchKey(node: string, d: DispatchInfo): string {
  return `${node}\u0000${d.attempt}\u0000${d.runner.exec_tag ?? ''}\u0000${d.at}`;
}

/**
 * A probe that remembers GitHub's answers for one step: the jobs of each workflow run attempt are listed once,
 * and every in-flight node dispatched there is answered from that listing, on every retry of the step's commit.
 *
 * Rule 3 holds as with a fresh listing per node: a job that has ended stays ended, so a listing that shows it
 * ended still proves it; a listing that shows a job running may be out of date, which only leaves the node
 * alone (a later step recovers it). A listing taken before a dispatch was first seen never proves that
 * dispatch's executor gone: it is listed again first.
 */
export function actionsProbes(octokit: GitHubClient, repo: RepoRef, me: JobIdentity): ActionsProbe {
  const listings = new Map<string, Promise<Listing>>();
  const list = (run_id: number, attempt_number: number, seen: Set<string>): Promise<Listing> => {
    const key = `${run_id}/${attempt_number}`;
    const fresh = (async (): Promise<Listing> => {
      const { data } = await octokit.rest.actions.listJobsForWorkflowRunAttempt({
        ...repo,
        run_id,
        attempt_number,
        per_page: 100,
      });
      return { jobs: data.jobs, seen };
    })();
    listings.set(key, fresh);
    // A failed listing is not remembered: the next question asks again.
    fresh.catch(() => listings.delete(key));
    return fresh;
  };
  /** Every dispatch asked about so far: a new listing is taken after all of them were seen. */
  const asked = new Set<string>();
  return async (node, d) => {
    const r = d.runner;
    if (r.kind !== 'actions' || typeof r.workflow_run_id !== 'number') return notActions(d);
    const attempt = r.run_attempt ?? 1;
    if (ownEarlierStep(me, d, attempt)) return earlierStep(d);
    const key = dispatchKey(node, d);
    asked.add(key);
    const at = `${r.workflow_run_id}/${attempt}`;
    let listing = await (listings.get(at) ?? list(r.workflow_run_id, attempt, new Set(asked)));
    const ask = (l: Listing) =>
      typeof r.planned_by === 'string'
        ? plannedAnswer(me, l, d, attempt)
        : answer(octokit, repo, l, d, attempt);
    let probe = await ask(listing);
    if (probe.gone && !listing.seen.has(key)) {
      // Listed before this dispatch was read: only a listing taken after it may prove its job gone.
      listing = await list(r.workflow_run_id, attempt, new Set(asked));
      probe = await ask(listing);
    }
    return probe;
  };
}

function notActions(d: DispatchInfo): Probe {
  return {
    gone: false,
    why: `dispatched by a ${d.runner.kind} runner (${d.runner.host ?? '?'}); recover it there`,
    observed_ms: 0,
  };
}

function ownEarlierStep(me: JobIdentity, d: DispatchInfo, attempt: number): boolean {
  const r = d.runner;
  return (
    r.workflow_run_id === me.workflow_run_id &&
    attempt === me.run_attempt &&
    r.job === me.job &&
    r.runner_name === me.runner_name
  );
}

function earlierStep(d: DispatchInfo): Probe {
  return {
    gone: true,
    why: 'dispatched by an earlier step of this job, which has ended',
    observed_ms: Math.max(0, Date.now() - Date.parse(d.at)),
  };
}

/**
 * The answer for a dispatch a plan journaled for a matrix job (`dispatch: ready`), which names no job: the plan
 * cannot know which job or runner GitHub gives it. Its executor is provably gone only when every job of the run
 * attempt but the one asking has completed: the job meant for it ended, was cancelled, or never started and never
 * will. While any other job of the attempt is queued or running, it is left alone.
 */
function plannedAnswer(me: JobIdentity, listing: Listing, d: DispatchInfo, attempt: number): Probe {
  const where = `workflow run ${d.runner.workflow_run_id} attempt ${attempt}`;
  const asking = (j: Listing['jobs'][number]) =>
    d.runner.workflow_run_id === me.workflow_run_id &&
    attempt === me.run_attempt &&
    j.status !== 'completed' &&
    !!j.runner_name &&
    j.runner_name === me.runner_name;
  const open = listing.jobs.filter((j) => j.status !== 'completed' && !asking(j));
  // One page of 100 jobs is all a listing holds: past it, a job not seen may still run.
  const unseen = listing.jobs.length === 0 || listing.jobs.length >= 100;
  if (open.length > 0 || unseen)
    return {
      gone: false,
      why: `dispatched by the plan for a job of ${where}, where ${open.length ? `job "${open[0]!.name}" is still ${open[0]!.status}` : 'not every job is listed'}`,
      observed_ms: 0,
    };
  const ends = listing.jobs.map((j) => (j.completed_at ? Date.parse(j.completed_at) : Date.now()));
  return {
    gone: true,
    why: `dispatched by the plan for a job of ${where}, whose jobs have all ended`,
    observed_ms: Math.max(0, Math.max(...ends) - Date.parse(d.at)),
  };
}

/**
 * The answer a listing gives for one dispatch. A runner runs one job at a time, so among the jobs on the
 * dispatch's runner one not yet completed is the one that dispatched it (a self-hosted runner may have run an
 * earlier job of the same run attempt, which has ended).
 */
async function answer(
  octokit: GitHubClient,
  repo: RepoRef,
  listing: Listing,
  d: DispatchInfo,
  attempt: number,
): Promise<Probe> {
  const r = d.runner;
  const now = Date.now();
  const since = Date.parse(d.at);
  const onRunner = listing.jobs.filter((j) => j.runner_name && j.runner_name === r.runner_name);
  const job =
    onRunner.find((j) => j.status !== 'completed') ??
    onRunner[0] ??
    listing.jobs.find((j) => j.name === r.job);
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
  listing.run ??= (
    await octokit.rest.actions.getWorkflowRunAttempt({
      ...repo,
      run_id: r.workflow_run_id!,
      attempt_number: attempt,
    })
  ).data;
  const run = listing.run;
  if (run.status !== 'completed')
    return { gone: false, why: `${where} is still ${run.status}`, observed_ms: 0 };
  const end = Date.parse(run.updated_at);
  return {
    gone: true,
    why: `${where} ended (${run.conclusion ?? 'no conclusion'})`,
    observed_ms: Math.max(0, end - since),
  };
}
