import type { CommentPayload } from '../../approvals/deps.js';
import { handleComment, outcomeWords } from '../../approvals/handler.js';
import type { ActionContext, ActionResult } from '../context/context.js';
import type { AnyActionStatus } from '../report/status.js';
import { writeOutputs } from '../report/step-report.js';

const STATUS = {
  done: 'completed',
  refused: 'refused',
  ignored: 'ignored',
  failed: 'failed',
} as const satisfies Record<string, AnyActionStatus>;

/**
 * `mode: comment`: the approval app's handler inside a workflow triggered `on: issue_comment`, with the job's
 * token. The step fails when the handler fails; a refused command is an answer, not a failure.
 */
export async function commentMode(ctx: ActionContext): Promise<ActionResult> {
  if (ctx.env.GITHUB_EVENT_NAME !== 'issue_comment') {
    return {
      outputs: { status: 'failed' },
      failed: `mode: comment handles issue_comment events; this workflow was triggered by ${ctx.env.GITHUB_EVENT_NAME}. Use on: issue_comment: types: [created]`,
    };
  }
  const outcome = await handleComment(
    {
      octokit: ctx.octokit,
      repo: ctx.repo,
      config: ctx.config.defaultBranch,
      journalBranch: ctx.inputs['journal-branch'],
      webUrl: ctx.env.GITHUB_SERVER_URL,
      staleWindowMs: ctx.tuning.INTERLOCK_STALE_READ_MS,
      dispatchLeaseMs: ctx.tuning.INTERLOCK_DISPATCH_LEASE_MS,
      rerunJob: ctx.me.run_attempt > 1,
      log: (m) => ctx.io.info(m),
    },
    ctx.payload as unknown as CommentPayload,
  );
  const outputs = writeOutputs(ctx.io, { status: STATUS[outcome.kind] });
  if (outcome.kind === 'failed') return { outputs, failed: `interlock: ${outcomeWords(outcome)}` };
  ctx.io.info(`interlock: ${outcomeWords(outcome)}`);
  return { outputs };
}
