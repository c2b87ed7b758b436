/**
 * The daily cost cap in the Action: `budget.daily_usd` of the checkout's `.github/interlock.yml` (read from disk,
 * as the routes are), and the other runs' spend of the day counted from the journal branch: one listing of
 * the runs (their branches, and `runs/` of the journal branch of before) and one read per other run, at most
 * MAX_READS of them (the listing does not say when a journal was written, so every listed run is a candidate),
 * counted by `countOtherRuns` as every face counts. On the check-run store the runs are those in check runs on the
 * heads of the repository's pull requests, open or closed since the day began (`PullRequestCheckRuns`). Nothing
 * here asks GitHub anything unless a cap is configured.
 */

import type { Config } from '../../config/schema.js';
import { approveRerunCommand } from '../../render/next-commands.js';
import { countOtherRuns, type DailyCapSource } from '../../runner/daily-cap.js';
import { PullRequestCheckRuns } from '../../store/check-run-pulls.js';
import { GitRuns } from '../../store/git-runs.js';
import type { ActionContext } from './context.js';

/** Journals read at most in one step to count the day's spend; past it, the rest is said not counted. */
const MAX_READS = 40;

/** The cap of the checkout's routes file and how this step counts the day's spend; undefined without a cap. */
export async function actionDailyCap(ctx: ActionContext, runId: string): Promise<DailyCapSource | undefined> {
  const daily = (await ctx.config.checkout.file())?.budget?.daily_usd;
  if (daily === undefined) return undefined;
  const checkRuns = ctx.inputs.store === 'check-run';
  return {
    daily_usd: daily,
    count: (day) =>
      countOtherRuns(
        checkRuns
          ? new PullRequestCheckRuns(ctx.octokit, ctx.repo, { closedSince: Date.parse(`${day}T00:00:00Z`) })
          : new GitRuns(ctx.octokit, ctx.repo, ctx.inputs['journal-branch']),
        { day, own: (r) => r.runId === runId, maxReads: MAX_READS },
      ),
    goOn: (node) => approveRerunCommand('comment', node, { runId }),
  };
}

/** `model_prices` of the checkout's `.github/interlock.yml` (the key proxy's prices over its defaults), or none. */
export async function checkoutModelPrices(ctx: ActionContext): Promise<Config['model_prices']> {
  return (await ctx.config.checkout.file())?.model_prices;
}
