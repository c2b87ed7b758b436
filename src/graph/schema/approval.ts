/**
 * The gate and approval policy of a graph and its nodes (issue 15): `approval: before` on a node, and
 * `approvals:` on the graph and on a node, which tighten the repository's `.github/interlock.yml` approvals for
 * those nodes. Kept apart from schema.ts so other additions to the schema stay separate blocks.
 */
import * as z from 'zod';

/** People (login) or teams (org/team-slug), as the repository configuration names them. */
const APPROVER_PATTERN = /^[A-Za-z0-9-]+(\/[A-Za-z0-9_.-]+)?$/;

/** The approval policy a graph or a node sets; every field optional (unset fields leave the rule to others). */
const ApprovalPolicySchema = z
  .strictObject({
    required: z.number().int().min(1).max(10).optional().register(z.globalRegistry, {
      description:
        'Distinct people who must approve (`/approve`, `/approve-rerun`) before the node goes on; the largest of the repository, graph and node values applies.',
    }),
    approvers: z.array(z.string().regex(APPROVER_PATTERN)).min(1).optional().register(z.globalRegistry, {
      description:
        'People (login) or teams (org/team-slug) who may approve these nodes. When set, an approver must also be listed here (or hold `permission`, when this level sets one).',
    }),
    permission: z
      .enum(['admin', 'maintain', 'write', 'triage', 'read'])
      .optional()
      .register(z.globalRegistry, {
        description:
          'The least repository permission an approver needs at this level; the strictest of the repository, graph and node values applies.',
      }),
    prevent_self_approval: z.boolean().optional().register(z.globalRegistry, {
      description:
        'When `true`, the person who started the run (the labeler, the commenter, the dispatcher, recorded in `RunStarted.started_by`) cannot approve it.',
    }),
  })
  .register(z.globalRegistry, {
    description:
      'Who may approve these nodes; tightens `.github/interlock.yml` `approvals` (the strictest rule applies where both set one).',
  });

export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** `approval: before`: people approve before the node's first attempt. */
const ApprovalGateSchema = z.literal('before').register(z.globalRegistry, {
  description:
    '`before`: the node waits for people (`/approve <node>`, `interlock approve <node>`) before its first attempt; the step ends with `status=awaiting-approval`.',
});

/** The node fields of this block, spread into NodeSchema. */
export const nodeApprovalFields = {
  approval: ApprovalGateSchema.optional(),
  approvals: ApprovalPolicySchema.optional(),
};

/** The graph fields of this block, spread into GraphSchema. */
export const graphApprovalFields = {
  approvals: ApprovalPolicySchema.optional(),
};
