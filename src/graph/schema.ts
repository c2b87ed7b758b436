import * as z from 'zod';
import { graphApprovalFields, nodeApprovalFields } from './approval-schema.js';
import { DEFAULT_TIMEOUT_MINUTES } from './model.js';

/** Node and graph ids: safe in file names, run ids and Mermaid diagrams. */
export const ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const GRAPH_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const REPLAY_WORDS =
  'What happens when an attempt is interrupted (its executor died): `safe` runs it again, `never` holds it until a person approves a rerun or settles it';
const Replay = z.enum(['safe', 'never']).register(z.globalRegistry, { description: `${REPLAY_WORDS}.` });

const FileCheck = z
  .strictObject({
    file: z.string().min(1).register(z.globalRegistry, {
      description: 'Path, relative to the working directory, that must exist.',
    }),
    contains: z.string().optional().register(z.globalRegistry, {
      description: 'A regular expression the file content must match; `^` and `$` match at every line.',
    }),
  })
  .register(z.globalRegistry, { description: 'Passes when the file exists (and matches `contains`).' });

const CommandCheck = z
  .strictObject({
    command: z.string().min(1).register(z.globalRegistry, {
      description:
        "A bash script, run in the working directory with the node's environment; the check passes when it exits 0. Pass values through the node's `env`, never as `${{ }}`.",
    }),
    timeout_minutes: z.number().positive().max(360).optional().register(z.globalRegistry, {
      description: 'Minutes before the check is killed and fails (default `10`).',
    }),
  })
  .register(z.globalRegistry, { description: 'Passes when the command exits 0.' });

const OutputCheck = z
  .strictObject({
    output: z
      .string()
      .regex(ID_PATTERN)
      .register(z.globalRegistry, { description: 'An output name the node must set.' }),
    matches: z
      .string()
      .optional()
      .register(z.globalRegistry, { description: 'A regular expression the value must match.' }),
  })
  .register(z.globalRegistry, { description: 'Passes when the node set this output (matching `matches`).' });

const GitCheck = z
  .strictObject({
    git: z.strictObject({
      branch: z.string().optional().register(z.globalRegistry, {
        description: 'The branch whose new commits count (default the current `HEAD`).',
      }),
      min_commits: z.number().int().min(1).optional().register(z.globalRegistry, {
        description:
          'How many commits made since the attempt was dispatched (matching `message`, if given) are required (default `1`).',
      }),
      message: z.string().optional().register(z.globalRegistry, {
        description: 'A regular expression one of the new commit messages must match.',
      }),
    }),
  })
  .register(z.globalRegistry, {
    description: 'Passes when new commits exist since the node was dispatched.',
  });

const PullRequestCheck = z
  .strictObject({
    pull_request: z.strictObject({
      head: z.string().min(1).register(z.globalRegistry, {
        description: 'The head branch (may use `${{ }}`, e.g. a node output).',
      }),
      base: z.string().min(1).optional().register(z.globalRegistry, { description: 'The base branch.' }),
      state: z
        .enum(['open', 'merged', 'closed', 'open_or_merged'])
        .optional()
        .register(z.globalRegistry, { description: 'Required state (default `open_or_merged`).' }),
      label: z
        .string()
        .min(1)
        .optional()
        .register(z.globalRegistry, { description: 'A label the pull request must carry.' }),
    }),
  })
  .register(z.globalRegistry, {
    description: 'GitHub: a pull request exists for the head branch, in the required state.',
  });

const CheckRunCheck = z
  .strictObject({
    check: z.strictObject({
      ref: z
        .string()
        .min(1)
        .register(z.globalRegistry, { description: 'A branch, tag or commit sha (may use `${{ }}`).' }),
      name: z.string().min(1).register(z.globalRegistry, { description: 'The check run name.' }),
      conclusion: z
        .enum(['success', 'neutral', 'skipped'])
        .optional()
        .register(z.globalRegistry, { description: 'The conclusion required (default `success`).' }),
    }),
  })
  .register(z.globalRegistry, {
    description:
      'GitHub: the latest check run of this name on the ref has completed with the required conclusion.',
  });

const IssueCheck = z
  .strictObject({
    issue: z.strictObject({
      number: z
        .union([z.number().int().positive(), z.string().min(1)])
        .optional()
        .register(z.globalRegistry, {
          description: "The issue or pull request number; may use `${{ }}` (default the run's subject).",
        }),
      state: z
        .enum(['open', 'closed'])
        .optional()
        .register(z.globalRegistry, { description: 'The state it must be in.' }),
      label: z
        .string()
        .min(1)
        .optional()
        .register(z.globalRegistry, { description: 'A label it must carry.' }),
      comment: z
        .string()
        .min(1)
        .optional()
        .register(z.globalRegistry, { description: 'A regular expression a comment must match.' }),
    }),
  })
  .register(z.globalRegistry, {
    description: 'GitHub: the issue has the state, label or a matching comment.',
  });

const BranchCheck = z
  .strictObject({
    branch: z
      .string()
      .min(1)
      .register(z.globalRegistry, { description: 'The branch name (may use `${{ }}`).' }),
  })
  .register(z.globalRegistry, { description: 'GitHub: the branch exists.' });
const TagCheck = z
  .strictObject({
    tag: z.string().min(1).register(z.globalRegistry, { description: 'The tag name (may use `${{ }}`).' }),
  })
  .register(z.globalRegistry, { description: 'GitHub: the tag exists.' });
const ReleaseCheck = z
  .strictObject({
    release: z
      .string()
      .min(1)
      .register(z.globalRegistry, { description: 'The release tag name (may use `${{ }}`).' }),
  })
  .register(z.globalRegistry, { description: 'GitHub: a release for the tag exists.' });

/** The check kinds answered through the GitHub API. */
export const GITHUB_CHECK_KINDS = ['pull_request', 'check', 'issue', 'branch', 'tag', 'release'] as const;

/** One evidence check; each item names exactly one kind. */
export const CheckSchema = z.union([
  FileCheck,
  CommandCheck,
  OutputCheck,
  GitCheck,
  PullRequestCheck,
  CheckRunCheck,
  IssueCheck,
  BranchCheck,
  TagCheck,
  ReleaseCheck,
]);

const Env = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.string(), z.number(), z.boolean()]))
  .register(z.globalRegistry, {
    description: 'Environment variables for the command; values may hold `${{ }}` expressions.',
  });

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
  skill: z.string().regex(ID_PATTERN).optional().register(z.globalRegistry, {
    description:
      "A reusable node template in `skills/<name>.yml` beside the graph; the node's own fields override it.",
  }),
  env: Env.optional(),
  timeout_minutes: z
    .number()
    .positive()
    .max(360)
    .optional()
    .register(z.globalRegistry, {
      description: `Minutes before the attempt's process group is killed and the attempt fails (default \`defaults.timeout_minutes\`, else \`${DEFAULT_TIMEOUT_MINUTES}\`).`,
    }),
};

/** Overrides for a retry attempt: `retry[0]` for attempt 2, `retry[1]` for attempt 3. */
export const ApproachSchema = z.strictObject(approachFields);

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
  // The gate and approval policy (issue 15): approval-schema.ts.
  ...nodeApprovalFields,
});

/** A skill file: a node template without identity or edges. */
export const SkillSchema = NodeSchema.omit({ id: true, depends_on: true, skill: true });

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
        timeout_minutes: z
          .number()
          .positive()
          .max(360)
          .optional()
          .register(z.globalRegistry, {
            description: `Minutes an attempt may run before its process group is killed and the attempt fails (default \`${DEFAULT_TIMEOUT_MINUTES}\`).`,
          }),
        agent: z.string().min(1).optional().register(z.globalRegistry, {
          description: "The command that receives a prompt node's prompt on stdin, e.g. `claude -p`.",
        }),
      })
      .optional()
      .register(z.globalRegistry, { description: 'Values every node gets unless it sets its own.' }),
    // The approval policy of every node (issue 15): approval-schema.ts.
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
export type SkillFile = z.infer<typeof SkillSchema>;
export type Check = z.infer<typeof CheckSchema>;
export type Replay = z.infer<typeof Replay>;
