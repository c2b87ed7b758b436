import * as z from 'zod';
// What an effect never changes unless its node names it (workflows, this file, graphs and skills) is the core's.
import { DEFAULT_PROTECTED_PATHS } from '../protocol/attempt/protected-paths.js';

const OneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const RouteSchema = z
  .strictObject({
    graph: z
      .string()
      .min(1)
      .register(z.globalRegistry, { description: 'Path of the graph file, from the repository root.' }),
    event: OneOrMany.register(z.globalRegistry, {
      description:
        'Event name(s) that trigger this route: issues, pull_request, issue_comment, workflow_dispatch, …',
    }),
    action: OneOrMany.optional().register(z.globalRegistry, {
      description: "The event payload's action(s), e.g. labeled, opened.",
    }),
    label: z.string().min(1).optional().register(z.globalRegistry, {
      description: 'For labeled events, the label added; otherwise a label the subject carries.',
    }),
    command: z
      .string()
      .regex(/^\/[A-Za-z0-9][A-Za-z0-9 _-]*$/)
      .optional()
      .register(z.globalRegistry, {
        description:
          'A slash command that starts the route from a comment, e.g. "/interlock fix": the first line of the comment is the command, or starts with it and a space.',
      }),
  })
  .register(z.globalRegistry, {
    description: 'One routing rule. The first rule that matches picks the graph.',
  });

export const ApprovalsSchema = z
  .strictObject({
    permission: z
      .enum(['admin', 'maintain', 'write', 'triage', 'read'])
      .default('write')
      .register(z.globalRegistry, {
        description:
          'The least repository permission a commenter needs to approve or settle (default `write`).',
      }),
    approvers: z
      .array(z.string().regex(/^[A-Za-z0-9-]+(\/[A-Za-z0-9_.-]+)?$/))
      .default([])
      .register(z.globalRegistry, {
        description: 'People (login) or teams (org/team-slug) who may approve whatever their permission.',
      }),
    required: z.number().int().min(1).max(10).default(1).register(z.globalRegistry, {
      description: 'Distinct people who must approve a rerun before it is dispatched (default `1`).',
    }),
  })
  .register(z.globalRegistry, { description: 'Who may settle held and escalated nodes from a comment.' });

export const RepoBudgetSchema = z
  .strictObject({
    daily_usd: z.number().positive().max(1_000_000).register(z.globalRegistry, {
      description:
        "The repository's daily cost cap in US dollars (UTC days). Before an agent attempt, today's spend of every run counted (other runs' journals and this run's) is checked: at or over the cap, the node waits for a person (`/approve-rerun <node>`, `interlock approve-rerun <node>`), who lets it go on for the rest of the day. Plain `run:` nodes are never held.",
    }),
  })
  .register(z.globalRegistry, {
    description: 'Limits for the whole repository, over all runs (`daily_usd`). Absent: no daily cap.',
  });

const perMillion = (what: string) =>
  z
    .number()
    .nonnegative()
    .max(100_000)
    .register(z.globalRegistry, { description: `US dollars per million ${what}.` });

const ModelPriceSchema = z
  .strictObject({
    input: perMillion('input tokens (uncached)'),
    output: perMillion('output tokens'),
    cache_write: perMillion('input tokens written to the prompt cache (default: the input rate)').optional(),
    cache_read: perMillion('input tokens read from the prompt cache (default: the input rate)').optional(),
  })
  .register(z.globalRegistry, { description: "A model's prices, in US dollars per million tokens." });

export const ConfigSchema = z
  .strictObject({
    $schema: z
      .string()
      .optional()
      .register(z.globalRegistry, { description: 'The JSON Schema, for editors; interlock ignores it.' }),
    routes: z
      .array(RouteSchema)
      .default([])
      .register(z.globalRegistry, { description: 'First match wins; the table is fixed.' }),
    approvals: ApprovalsSchema.default({ permission: 'write', approvers: [], required: 1 }),
    budget: RepoBudgetSchema.optional(),
    model_prices: z
      .record(z.string().min(1).max(200), ModelPriceSchema)
      .optional()
      .register(z.globalRegistry, {
        description:
          "Prices the key proxy counts a model call's cost with, by the start of the model's name (the longest that fits wins), added to and over the documented defaults (docs/agents.md). A model no name fits is counted in tokens only.",
      }),
    protected_paths: z
      .array(z.string().min(1))
      .default([...DEFAULT_PROTECTED_PATHS])
      .register(z.globalRegistry, {
        description:
          "Paths an effect may not change unless its node lists them in allow_protected_paths (`**` any depth, `*` within a name). Default: `.github/**` (workflows, this file, graphs and skills). The run's own graph and its skills are protected wherever they are. Read from the default branch.",
      }),
  })
  .register(z.globalRegistry, {
    title: 'interlock configuration',
    description:
      '.github/interlock.yml: routes, approvals, the daily cost cap, model prices and protected paths.',
  });

export type Config = z.infer<typeof ConfigSchema>;
export type Route = z.infer<typeof RouteSchema>;
export type Approvals = z.infer<typeof ApprovalsSchema>;
