/**
 * The repository's approval rules for the words of a gate's attention comment, read where `/approve` reads them:
 * `.github/interlock.yml` on the default branch, never the step's checkout (which a node may have edited). The
 * count the comment names is the strictest of the repository's, the graph's and the node's, as `/approve` counts.
 */
import type { RepoApprovals } from '../../protocol/policy.js';
import type { ActionContext } from './context.js';

/** The default branch's `approvals`; undefined (and said) when it cannot be read or does not parse. */
export async function defaultBranchApprovals(ctx: ActionContext): Promise<RepoApprovals | undefined> {
  try {
    return (await ctx.config.defaultBranch.orDefaults()).approvals;
  } catch (e) {
    ctx.io.info(
      `interlock: the approval rules on the default branch could not be read (${(e as Error).message.split('\n')[0]}): the comment names the graph's and the node's rules only`,
    );
    return undefined;
  }
}
