/**
 * A slash command refused for permission is answered on the issue or pull request where it was written, not
 * only in the job log nobody who commented can see. A bot's or an edited comment gets no reply (no loops).
 */
import { refusedReply } from '../../approvals/replies/replies.js';
import { payloadSubject } from '../../journal/run-id.js';
import type { ActionContext } from '../context/context.js';

export async function replyRefusal(ctx: ActionContext, commenter: string, why: string): Promise<void> {
  const subject = payloadSubject(ctx.payload);
  if (!subject) return;
  try {
    await ctx.octokit.rest.issues.createComment({
      ...ctx.repo,
      issue_number: subject.number,
      body: refusedReply(commenter, `not started: ${why}`),
    });
  } catch (e) {
    // The reply is a courtesy: the step's notice and summary still say why.
    ctx.io.warning(`interlock: could not reply on #${subject.number}: ${(e as Error).message}`);
  }
}
