// Whether a person may approve one node under its graph's and its own `approvals:` (over the repository's, which
// `execute.ts` already checked): the facts per level, then the pure level rule; and the count the node needs.
import type { Config } from '../../config/schema.js';
import { type Graph, nodeById } from '../../graph/model.js';
import { type EffectivePolicy, effectivePolicy, type PolicyLevel } from '../../protocol/policy.js';
import type { HandlerDeps } from '../deps.js';
import { type Authorization, authorize, type Permission } from './authorize.js';
import { gatherAuthFacts } from './permission.js';

/** A level as `authorize` reads it: without a permission of its own, only its approvers satisfy it. */
function asApprovals(level: PolicyLevel): Config['approvals'] {
  return {
    permission: (level.permission ?? 'admin') as Permission & Config['approvals']['permission'],
    approvers: level.approvers,
    required: 1,
  };
}

/** May `login` approve `node` under every graph and node level? Pure. */
function authorizeLevel(level: PolicyLevel, facts: Parameters<typeof authorize>[2]): Authorization {
  // A level that names only approvers is satisfied by a listing, never by permission alone.
  const seen = level.permission === undefined ? { ...facts, permission: 'none' as const } : facts;
  const r = authorize(asApprovals(level), 'command', seen);
  if (r.ok || level.permission !== undefined) return r;
  return {
    ok: false,
    reason: `@${facts.login} is not among this node's approvers (${level.approvers.join(', ')})`,
  };
}

type NodePolicyCheck = { ok: true; policy: EffectivePolicy } | { ok: false; reason: string };

/** The node's policy, and whether the person satisfies each level the graph and the node add. */
export async function checkNodePolicy(
  deps: Pick<HandlerDeps, 'octokit' | 'repo'>,
  t: { config: Config; graph: Graph; node: string; login: string },
): Promise<NodePolicyCheck> {
  const policy = effectivePolicy(t.config.approvals, nodeById(t.graph, t.node));
  for (const level of policy.levels.filter((l) => l.where !== 'repository')) {
    const facts = await gatherAuthFacts(deps, asApprovals(level), 'command', t.login, {
      permissionSatisfies: level.permission !== undefined,
    });
    const r = authorizeLevel(level, facts);
    if (!r.ok)
      return { ok: false, reason: `${r.reason} (the graph's or node's \`approvals:\` for "${t.node}")` };
  }
  return { ok: true, policy };
}
