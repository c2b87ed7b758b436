// What an approval (`/approve`, `/approve-rerun`) must meet beyond the repository's rules: the node's policy
// checked for this person, and the count and self-approval rule it carries into the command's events.
import { type Graph, nodeById } from '../../graph/model.js';
import { commandTerms, isApproval } from '../../protocol/policy.js';
import type { Target } from '../applying/apply.js';
import type { Command } from '../commands/parse.js';
import type { HandlerDeps } from '../deps.js';
import { checkNodePolicy } from './node-policy.js';

/** The terms a command is counted under (protocol's `ApprovalTerms` and a count), or why it is refused. */
type TermsOrRefusal =
  | { ok: true; required: number; preventSelfApproval: boolean }
  | { ok: false; reason: string };

/** The terms of a command under the node's policy; other commands keep the repository's count. */
export async function approvalTerms(
  deps: Pick<HandlerDeps, 'octokit' | 'repo'>,
  t: Pick<Target, 'config'> & { command: Command; graph: Graph; login: string },
): Promise<TermsOrRefusal> {
  const { command } = t;
  const node = 'node' in command ? command.node : undefined;
  const terms = commandTerms(command.kind, t.config.approvals, node ? nodeById(t.graph, node) : undefined);
  if (!isApproval(command.kind) || node === undefined) return { ok: true, ...terms };
  // An approval: the person must satisfy each level the graph and the node add.
  const r = await checkNodePolicy(deps, { config: t.config, graph: t.graph, node, login: t.login });
  return r.ok ? { ok: true, ...terms } : r;
}
