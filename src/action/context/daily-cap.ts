/**
 * The daily cost cap in the Action: `budget.daily_usd` of the checkout's `.github/interlock.yml` (read from disk,
 * as the routes are), and the other runs' spend of the day counted from the journal branch: one listing of
 * the runs (their branches, and `runs/` of the journal branch of before) and one read per other run, at most
 * MAX_READS of them (the listing does not say when a journal was written, so every listed run is a candidate),
 * counted by `countOtherRuns` as every face counts. On the check-run store the runs are those in check runs on the
 * heads of the repository's pull requests, open or closed since the day began (`PullRequestCheckRuns`). Nothing
 * here asks GitHub anything unless a cap is configured.
 */

import { existsSync } from 'node:fs';
import { parseConfig } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { readCheckoutFile } from '../../os/node-user/node-files.js';
import { approveRerunCommand } from '../../render/next-commands.js';
import { countOtherRuns, type DailyCapSource } from '../../runner/daily-cap.js';
import { PullRequestCheckRuns } from '../../store/check-run-pulls.js';
import { GitRuns } from '../../store/git-runs.js';
import { type ActionContext, CONFIG_FILE, inWorkspace } from './context.js';

/** Journals read at most in one step to count the day's spend; past it, the rest is said not counted. */
export const MAX_READS = 40;

/** The cap of the checkout's routes file and how this step counts the day's spend; undefined without a cap. */
export function actionDailyCap(ctx: ActionContext, runId: string): DailyCapSource | undefined {
  const path = inWorkspace(ctx, CONFIG_FILE);
  if (!existsSync(path)) return undefined;
  const daily = parseConfig(CONFIG_FILE, readCheckoutFile(path, CONFIG_FILE)).budget?.daily_usd;
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
export function checkoutModelPrices(ctx: ActionContext): Config['model_prices'] {
  const path = inWorkspace(ctx, CONFIG_FILE);
  if (!existsSync(path)) return undefined;
  return parseConfig(CONFIG_FILE, readCheckoutFile(path, CONFIG_FILE)).model_prices;
}
