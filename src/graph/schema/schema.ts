import * as z from 'zod';
import { builtOnce } from '../built-once.js';
import { DEFAULT_TIMEOUT_MINUTES } from '../model.js';
import { graphApprovalFields, nodeApprovalFields } from './approval.js';
import { NodeBudgetField, RunBudgetField } from './budget.js';
import { CheckSchema, ID_PATTERN } from './check.js';
import { EffectSchema } from './effect.js';
import { forEachFields } from './for-each.js';
import { RepeatSchema } from './loop.js';
import { NetworkSchema } from './network.js';
import { subgraphFields } from './subgraph.js';

const GRAPH_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const REPLAY_WORDS =
  'What happens when an attempt is interrupted (its executor died): `safe` runs it again, `never` holds it until a person approves a rerun or settles it';
const Replay = z.enum(['safe', 'never']).register(z.globalRegistry, { description: `${REPLAY_WORDS}.` });

const Env = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.string(), z.number(), z.boolean()]))
  .register(z.globalRegistry, {
    description: 'Environment variables for the command; values may hold `${{ }}` expressions.',
  });

/** Minutes an attempt may run (a node's own, or the graph's default): at most six hours, GitHub's job limit. */
const timeoutMinutes = (description: string) =>
  z.number().positive().max(360).optional().register(z.globalRegistry, { description });
const ENGINE_WORDS =
  "The agent CLI behind a prompt node's `agent` command: `claude-code`, `codex`, `copilot` or `gemini`. interlock adds the flags the engine needs to report (see docs/agents.md), reads its usage, session id and end state from its own output, and stops it at its budget; absent, the agent is a plain command";
const Engine = z
  .enum(['claude-code', 'codex', 'copilot', 'gemini'])
  .register(z.globalRegistry, { description: `${ENGINE_WORDS}.` });

const approachFields = {
  description: z.string().optional().register(z.globalRegistry, {
    description: 'What the node (or this retry approach) does, for people; shown at dispatch.',
  }),
  run: z
    .string()
    .min(1)
    .optional()
    .register(z.globalRegistry, { description: 'A bash script. Never put `${{ }}` here: use `env`.' }),
  prompt: z.string().min(1).optional().register(z.globalRegistry, {
    description: 'Text given on stdin to the agent command; may hold `${{ }}` expressions.',
  }),
  agent: z.string().min(1).optional().register(z.globalRegistry, {
    description: 'The agent command that receives `prompt` on stdin (default `defaults.agent`).',
  }),
  engine: Engine.optional().register(z.globalRegistry, {
    description: `${ENGINE_WORDS} (default \`defaults.engine\`).`,
  }),
  skill: z.string().regex(ID_PATTERN).optional().register(z.globalRegistry, {
    description:
      "A reusable node template in `skills/<name>.yml` beside the graph; the node's own fields override it.",
  }),
  env: Env.optional(),
  timeout_minutes: timeoutMinutes(
    `Minutes before the attempt's process group is killed and the attempt fails (default \`defaults.timeout_minutes\`, else \`${DEFAULT_TIMEOUT_MINUTES}\`).`,
  ),
};

/** Overrides for a retry attempt: `retry[0]` for attempt 2, `retry[1]` for attempt 3. */
const ApproachSchema = z.strictObject(approachFields);

export const NodeSchema = z.strictObject({
  id: z
    .string()
    .regex(ID_PATTERN)
    .register(z.globalRegistry, { description: 'Unique node id: letters, digits, `_` and `-`.' }),
  ...approachFields,
  depends_on: z
    .array(z.string())
    .optional()
    .register(z.globalRegistry, { description: 'Nodes that must be completed or skipped first.' }),
  execute_conditions: z.array(z.string().min(1)).optional().register(z.globalRegistry, {
    description: 'Expressions; at least one must be true or the node is skipped. None means always.',
  }),
  validates: z
    .array(CheckSchema)
    .optional()
    .register(z.globalRegistry, { description: 'Evidence checks run after the command.' }),
  replay: Replay.optional().register(z.globalRegistry, {
    description: `${REPLAY_WORDS} (default \`defaults.replay\`, else \`never\`).`,
  }),
  retry: z.array(ApproachSchema).max(2).optional().register(z.globalRegistry, {
    description: 'At most 2: retry[0] overrides attempt 2; retry[1] is a different approach for attempt 3.',
  }),
  outputs: z.array(z.string().regex(ID_PATTERN)).optional().register(z.globalRegistry, {
    description: 'Output names the node promises to set in $INTERLOCK_OUTPUT.',
  }),
  budget: NodeBudgetField,
  effect: EffectSchema.optional(),
  allow_protected_paths: z.array(z.string().min(1)).optional().register(z.globalRegistry, {
    description:
      "Protected paths (patterns of `.github/interlock.yml`'s `protected_paths`) this effect node may change, named one by one.",
  }),
  soft_timeout_minutes: z.number().positive().max(360).optional().register(z.globalRegistry, {
    description:
      'A soft bound: past this many minutes an attempt is journaled as overdue (`NodeOverdue`), people are told (the progress comment, a comment, the needs-human label; the CLI prints it), and it goes on until its hard limits (`timeout_minutes`, `budget`). No rerun, no kill.',
  }),
  soft_turns: z.number().int().positive().optional().register(z.globalRegistry, {
    description:
      "A soft bound on an engine's agent turns, read from its streamed output while it runs: past it, the attempt is overdue as with `soft_timeout_minutes`.",
  }),
  session: z.string().regex(ID_PATTERN).optional().register(z.globalRegistry, {
    description:
      "An agent session this prompt node continues: nodes that name the same session continue one conversation in dependency order (Claude Code `--resume`, Codex `exec resume`, Copilot CLI and Gemini CLI `--resume`), each starting from the session the last completed one left. Needs an `engine`. Options in the graph's `sessions`.",
  }),
  // The gate and approval policy (issue 15): approval.ts.
  ...nodeApprovalFields,
  // The egress allowlist (issue 27): network.ts.
  network: NetworkSchema.optional(),
  // One instance per item of a list (issue 28): for-each.ts.
  ...forEachFields,
  // Bounded loops (issue 28): loop.ts.
  repeat: RepeatSchema.optional(),
  // Sub-graphs (issue 28): subgraph.ts.
  ...subgraphFields,
});

const SessionOptions = z
  .strictObject({
    resume_failed: z.boolean().optional().register(z.globalRegistry, {
      description:
        "A retry continues the failed attempt's own session (default `false`: it starts again from the session the last completed node left, or a fresh one).",
    }),
    serialized: z.boolean().optional().register(z.globalRegistry, {
      description:
        "The ready chain of this session's nodes goes to the agent in one call, each node's task and checks in order (default `false`: one node a call). Every node of the chain is dispatched before the call, in one write; after it each node's evidence is checked in order, and the first that fails, and those after it, go on one node a call. See docs/agents.md.",
    }),
  })
  .register(z.globalRegistry, { description: 'Options of one session.' });

/** A skill file: a node template without identity or edges (built when a graph first names a skill). */
export const SkillSchema = builtOnce(() =>
  NodeSchema.omit({
    id: true,
    depends_on: true,
    skill: true,
    repeat: true,
    graph: true,
  }),
);

export const GraphSchema = z
  .strictObject({
    $schema: z
      .string()
      .optional()
      .register(z.globalRegistry, { description: 'The JSON Schema, for editors; interlock ignores it.' }),
    interlock: z
      .literal(1)
      .register(z.globalRegistry, { description: 'The graph format version. Always 1.' }),
    name: z.string().regex(GRAPH_NAME_PATTERN).register(z.globalRegistry, {
      description: 'Graph name: lowercase letters, digits, `.`, `_` and `-`. Starts run ids.',
    }),
    description: z
      .string()
      .optional()
      .register(z.globalRegistry, { description: 'What the graph does, for people.' }),
    defaults: z
      .strictObject({
        replay: Replay.optional().register(z.globalRegistry, {
          description: `${REPLAY_WORDS} (default \`never\`).`,
        }),
        timeout_minutes: timeoutMinutes(
          `Minutes an attempt may run before its process group is killed and the attempt fails (default \`${DEFAULT_TIMEOUT_MINUTES}\`).`,
        ),
        agent: z.string().min(1).optional().register(z.globalRegistry, {
          description:
            "The command that receives a prompt node's prompt on stdin, e.g. `claude -p` (with an engine, default: `claude -p`, `codex exec`, `copilot` or `gemini`).",
        }),
        engine: Engine.optional().register(z.globalRegistry, { description: `${ENGINE_WORDS}.` }),
        network: NetworkSchema.optional(),
      })
      .optional()
      .register(z.globalRegistry, { description: 'Values every node gets unless it sets its own.' }),
    budget: RunBudgetField,
    sessions: z.record(z.string().regex(ID_PATTERN), SessionOptions).optional().register(z.globalRegistry, {
      description: 'Options of the sessions nodes name with `session`, by name.',
    }),
    // The approval policy of every node (issue 15): approval.ts.
    ...graphApprovalFields,
    nodes: z
      .array(NodeSchema)
      .min(1)
      .register(z.globalRegistry, { description: 'The nodes, in declaration order.' }),
  })
  .register(z.globalRegistry, {
    title: 'interlock graph',
    description: 'A workflow graph run by interlock.',
  });

export type GraphFile = z.infer<typeof GraphSchema>;
export type NodeFile = z.infer<typeof NodeSchema>;
export type SkillFile = z.infer<ReturnType<typeof SkillSchema>>;
export type Replay = z.infer<typeof Replay>;
