// What an approval (`/approve`, `/approve-rerun`) must meet beyond the repository's rules: the node's policy
// checked for this person, and the count and self-approval rule it carries into the command's events.
import type { Graph } from '../../graph/model.js';
import type { Target } from '../applying/apply.js';
import type { Command } from '../commands/parse.js';
import type { HandlerDeps } from '../deps.js';
import { checkNodePolicy } from './node-policy.js';

export type ApprovalTerms =
  | { ok: true; required: number; preventSelfApproval: boolean }
  | { ok: false; reason: string };

/** The terms of a command under the node's policy; other commands keep the repository's count. */
export async function approvalTerms(
  deps: Pick<HandlerDeps, 'octokit' | 'repo'>,
  t: Pick<Target, 'config'> & { command: Command; graph: Graph; login: string },
): Promise<ApprovalTerms> {
  const { command } = t;
  // `/rerun-from` needs what `/approve-rerun` needs (issue 28): the named node's policy.
  if (command.kind !== 'approve' && command.kind !== 'approve-rerun' && command.kind !== 'rerun-from')
    return { ok: true, required: t.config.approvals.required, preventSelfApproval: false };
  const r = await checkNodePolicy(deps, {
    config: t.config,
    graph: t.graph,
    node: command.node,
    login: t.login,
  });
  if (!r.ok) return r;
  return { ok: true, required: r.policy.required, preventSelfApproval: r.policy.prevent_self_approval };
}
