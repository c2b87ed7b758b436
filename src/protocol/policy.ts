/**
 * The approval policy that applies to one node: the repository's `approvals` tightened by the graph's and the
 * node's `approvals:`. The strictest applies where several set a rule: the largest `required`, self-approval
 * prevented when any level prevents it, and an approver must satisfy every level that names approvers or a
 * permission. Pure; who satisfies a level is decided with the person's facts in `approvals/authorization/node-policy.ts`.
 */

import type { GraphNode } from '../graph/model.js';
import type { ApprovalPolicy } from '../graph/schema/approval.js';

/** One level an approver must satisfy: the permission it asks for, or a listing among its approvers. */
export interface PolicyLevel {
  where: 'repository' | 'graph or node';
  permission?: string;
  approvers: string[];
}

export interface EffectivePolicy {
  required: number;
  prevent_self_approval: boolean;
  levels: PolicyLevel[];
}

/** The repository's approvals, as `.github/interlock.yml` gives them (absent where the face has none). */
export interface RepoApprovals {
  permission: string;
  approvers: string[];
  required: number;
}

/** The policy for `node`: the repository's (when known) with the graph's and the node's levels over it. */
export function effectivePolicy(
  repo: RepoApprovals | undefined,
  node: Pick<GraphNode, 'approvals'> | undefined,
): EffectivePolicy {
  const own: ApprovalPolicy[] = node?.approvals ?? [];
  const levels: PolicyLevel[] = repo
    ? [{ where: 'repository', permission: repo.permission, approvers: repo.approvers }]
    : [];
  for (const l of own) {
    if (l.permission === undefined && l.approvers === undefined) continue;
    levels.push({
      where: 'graph or node',
      ...(l.permission !== undefined ? { permission: l.permission } : {}),
      approvers: l.approvers ?? [],
    });
  }
  return {
    required: Math.max(repo?.required ?? 1, ...own.map((l) => l.required ?? 1)),
    prevent_self_approval: own.some((l) => l.prevent_self_approval === true),
    levels,
  };
}

/** What a person's command carries into its events: distinct people who must give it, and the self rule. */
interface CommandTerms {
  required: number;
  preventSelfApproval: boolean;
}

/** Whether a command is an approval under a node's policy (`/rerun-from` needs what `/approve-rerun` needs). */
export function isApproval(kind: string): boolean {
  return kind === 'approve' || kind === 'approve-rerun' || kind === 'rerun-from';
}

/**
 * The terms of a person's command, for every face (the comment, the button, the page, the CLI): an approval
 * carries the node's policy (its count and its self-approval rule); any other command the repository's count and
 * no self rule. `repo` is absent where the face has no repository configuration (the CLI).
 */
export function commandTerms(
  kind: string,
  repo: RepoApprovals | undefined,
  node: Pick<GraphNode, 'approvals'> | undefined,
): CommandTerms {
  if (!isApproval(kind)) return { required: repo?.required ?? 1, preventSelfApproval: false };
  const policy = effectivePolicy(repo, node);
  return { required: policy.required, preventSelfApproval: policy.prevent_self_approval };
}

/** The policy in words for the attention comment: "needs 2 approvals from release-team; @alice started …". */
export function policyWords(policy: EffectivePolicy, starter: string | undefined): string {
  const from = policy.levels
    .filter((l) => l.where !== 'repository')
    .map((l) =>
      [
        ...(l.permission ? [`${l.permission} permission`] : []),
        ...l.approvers.map((a) => a.split('/').pop()!),
      ].join(' or '),
    );
  const count = `needs ${policy.required} approval${policy.required === 1 ? '' : 's'}`;
  const who = from.length ? ` from ${from.join(' and from ')}` : '';
  const self =
    policy.prevent_self_approval && starter ? `; @${starter} started this run and cannot approve it` : '';
  return `${count}${who}${self}`;
}
