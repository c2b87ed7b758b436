/**
 * The dispatch an approval or a settlement called for, retried by a copy of its delivery (issue 50) or a re-run of
 * the `mode: comment` job on the same event (issue 45): both faces reach it through `applyCommand`. The process that
 * journaled the command dispatches the run's workflow right after; killed in between, it leaves the command in the
 * journal and no workflow run, and every copy of the delivery is a duplicate. So a copy looks: when the journal still owes the
 * dispatch (`owedDispatch`), the lease of whoever claimed it last has run out, and GitHub lists no workflow run of
 * the workflow dispatched since that claim, the copy writes `WorkflowDispatchRetried` through the compare-and-swap
 * and only then dispatches. Of many copies at once, on any replica, one write lands: one dispatch.
 */

import { statusOf } from '../../github/status.js';
import type { Journal } from '../../journal/events/events.js';
import type { RunnerInfo } from '../../journal/events/fields.js';
import { floorOf } from '../../journal/freshness.js';
import { TUNING } from '../../os/tuning.js';
import { type OwedDispatch, owedDispatch } from '../../protocol/commands/owed-dispatch.js';
import { commit } from '../../runner/journal-io/commit.js';
import { type RunSetup, readRun } from '../../runner/journal-io/read.js';
import { FreshStore } from '../../store/fresh.js';
import type { HandlerDeps } from '../deps.js';
import {
  dispatchWorkflow,
  type StartedWorkflowRun,
  type WorkflowTarget,
  workflowOf,
} from '../workflow/workflow-dispatch.js';

/** How far apart copies that waited for the same lease wake (`retry`). */
const CLAIM_SPREAD_MS = 250;

/** GitHub's clock and the App's differ a little: a run created this long before a claim still counts as its own. */
const CLOCK_SLACK_MS = 5_000;

/**
 * How long whoever journaled an approval, a settlement (or a retry) has to dispatch: a copy waits this long after the claim
 * before it looks for the workflow run. The writer dispatches only within half of it (`withinLease`). In ms:
 * `INTERLOCK_DISPATCH_LEASE_MS`, which the face reads (`HandlerDeps.dispatchLeaseMs`); absent, the tuning
 * schema's default (src/os/tuning.ts, 60 s).
 */
function dispatchLeaseMs(deps: Pick<HandlerDeps, 'dispatchLeaseMs'>): number {
  return deps.dispatchLeaseMs ?? TUNING.INTERLOCK_DISPATCH_LEASE_MS.default;
}

/** Whether a dispatch claimed at `since` may still be made by the claimer: within half the face's lease. */
export function withinLease(
  deps: Pick<HandlerDeps, 'dispatchLeaseMs'>,
  since: string,
  now = Date.now(),
): boolean {
  return now - Date.parse(since) < dispatchLeaseMs(deps) / 2;
}

/** The workflow's runs could not be listed for want of a permission: whether the dispatch was made is unknown. */
class RunsUnlisted extends Error {
  constructor(file: string, message: string) {
    super(
      `GitHub refused to list the runs of \`${file}\` (403: ${message}), so whether this command's dispatch was made is unknown and nothing was dispatched: the token needs \`actions: read\` (a \`mode: comment\` workflow: \`permissions: actions: write\`, which includes it; the App: the Actions permission, read and write)`,
    );
  }
}

/** The newest workflow run of the workflow that a dispatch started since `since` (less the clock slack), if any. */
async function workflowRunSince(
  deps: HandlerDeps,
  target: WorkflowTarget,
  since: string,
): Promise<number | undefined> {
  const from = new Date(Date.parse(since) - CLOCK_SLACK_MS).toISOString().replace(/\.\d+Z$/, 'Z');
  const r = await deps.octokit
    .request('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', {
      ...deps.repo,
      workflow_id: target.file,
      event: 'workflow_dispatch',
      created: `>=${from}`,
      per_page: 1,
    })
    .catch((e: unknown) => {
      const message = (e as Error).message;
      if (statusOf(e) === 403 && !/rate limit/i.test(message)) throw new RunsUnlisted(target.file, message);
      throw e;
    });
  const runs = (r.data as { workflow_runs?: { id?: unknown }[] }).workflow_runs ?? [];
  const id = runs[0]?.id;
  return typeof id === 'number' ? id : undefined;
}

/** What a retry came to: the workflow run it dispatched, or why it dispatched nothing. */
export type Retried = { dispatched: StartedWorkflowRun & { file: string } } | { why: string; failed?: true };

/** Writes the claim when the dispatch is still owed, unclaimed since `owed`, and GitHub shows no run since. */
async function claim(
  deps: HandlerDeps,
  setup: RunSetup,
  runner: RunnerInfo,
  source: string,
  owed: OwedDispatch,
  target: WorkflowTarget,
): Promise<string | undefined> {
  const r = await commit(setup, runner, async (cur) => {
    const now = owedDispatch(cur.journal, cur.state, source);
    if (!now) return { events: [], refusal: 'a step took the dispatch' };
    if (now.claim !== owed.claim) return { events: [], refusal: 'another copy claimed the dispatch first' };
    const found = await workflowRunSince(deps, target, now.since);
    if (found !== undefined)
      return {
        events: [],
        refusal: `workflow run ${found} of \`${target.file}\` was dispatched since ${now.since}`,
      };
    return {
      events: [{ type: 'WorkflowDispatchRetried' as const, source, workflow: target.file, since: now.since }],
      refusal: undefined,
    };
  });
  return r.chosen.refusal;
}

/** What a retry is given: the comment's source, the branch to dispatch on, and the journal its caller read. */
interface RetryOptions {
  source: string;
  defaultBranch: string;
  /**
   * The journal as the caller's compare-and-swap read or wrote it (it holds the command): every read of the retry
   * holds at least as much, so GitHub answering a read by branch name from the past never reads as "no dispatch is
   * owed" (issue 35's rule, src/journal/freshness.ts).
   */
  known: Journal;
}

/**
 * For a copy of an approval or settlement the journal holds: dispatches the run's workflow once when the first dispatch never
 * happened; waits out the lease of the last claim first (its writer may be dispatching right now).
 */
export async function retryOwedDispatch(
  deps: HandlerDeps,
  setup: RunSetup,
  runner: RunnerInfo,
  opts: RetryOptions,
): Promise<Retried> {
  const fresh = { ...setup, store: new FreshStore(setup.store, { floor: floorOf(opts.known) }) };
  try {
    return await retry(deps, fresh, runner, opts);
  } catch (e) {
    if (e instanceof RunsUnlisted) return { failed: true, why: e.message };
    throw e;
  }
}

async function retry(
  deps: HandlerDeps,
  setup: RunSetup,
  runner: RunnerInfo,
  opts: RetryOptions,
): Promise<Retried> {
  const lease = dispatchLeaseMs(deps);
  for (let round = 0; round < 3; round++) {
    const cur = await readRun(setup, runner);
    const owed = owedDispatch(cur.journal, cur.state, opts.source);
    if (!owed) return { why: 'no dispatch is owed (a step took it, or the command released nothing)' };
    const target = workflowOf(cur.journal, deps.repo, owed.node);
    if (!target) return { why: 'the run records no workflow of this repository' };
    // The usual copy: the dispatch was made, and GitHub lists its run. Only a copy that finds none waits.
    const found = await workflowRunSince(deps, target, owed.since);
    if (found !== undefined)
      return { why: `workflow run ${found} of \`${target.file}\` was dispatched since ${owed.since}` };
    const wait = Date.parse(owed.since) + lease - Date.now();
    if (wait > 0) {
      // Copies that waited for the same lease would wake, read and claim in the same millisecond: two such claims
      // are the very same event, and a commit takes a refused write whose events it reads back for its own (an
      // answer lost), so both would dispatch. Each wakes up to a quarter second apart instead.
      await new Promise((r) => setTimeout(r, wait + Math.floor(Math.random() * CLAIM_SPREAD_MS)));
      continue;
    }
    const refusal = await claim(deps, setup, runner, opts.source, owed, target);
    if (refusal) return { why: refusal };
    try {
      const d = await dispatchWorkflow(deps, target, setup.runId, opts.defaultBranch);
      return { dispatched: { ...d, file: target.file } };
    } catch (e) {
      return { failed: true, why: `GitHub refused to dispatch \`${target.file}\` (${(e as Error).message})` };
    }
  }
  return { why: 'the dispatch was claimed again while this copy waited' };
}
