/** The shapes journal events share: who ran an attempt, what it used, its evidence and failures, the graph it ran, the escalation report. */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { METERED_USAGE_FIELDS } from './usage-metered.js';

/** Who executes an attempt: a local process, or a GitHub Actions job. Extra fields are kept. */
export const RunnerSchema = z
  .looseObject({
    kind: z.enum(['local', 'actions', 'person']).register(z.globalRegistry, {
      description:
        '`local`: a process on a machine (the CLI); `actions`: a GitHub Actions job; `person`: a command given by a person (the CLI, a comment or the App).',
    }),
    host: z.string().optional().register(z.globalRegistry, {
      description:
        'The machine (local); for a person, where their command came from: `cli:<user>` or `interlock-app`.',
    }),
    pid: z
      .number()
      .int()
      .optional()
      .register(z.globalRegistry, { description: 'The CLI process id (local).' }),
    pid_start: z.string().optional().register(z.globalRegistry, {
      description: 'When that process started, so a reused pid is told apart (local).',
    }),
    exec_tag: z.string().optional().register(z.globalRegistry, {
      description:
        "A random tag set in the attempt's environment (`INTERLOCK_EXEC_TAG`): recovery looks for processes that still carry it.",
    }),
    workflow_run_id: z
      .number()
      .optional()
      .register(z.globalRegistry, { description: 'The workflow run (actions).' }),
    run_attempt: z
      .number()
      .optional()
      .register(z.globalRegistry, { description: 'The workflow run attempt (actions).' }),
    job: z.string().optional().register(z.globalRegistry, { description: 'The job id (actions).' }),
    runner_name: z
      .string()
      .optional()
      .register(z.globalRegistry, { description: 'The runner that ran the job (actions).' }),
  })
  .register(z.globalRegistry, {
    title: 'runner',
    description:
      'Who executes an attempt. Other fields may be present and are kept (e.g. `workflow_ref`, `git_head`).',
  });
export type RunnerInfo = z.infer<typeof RunnerSchema>;

export const UsageSchema = builtOnce(() =>
  z
    .looseObject({
      wall_ms: z
        .number()
        .nonnegative()
        .register(z.globalRegistry, { description: 'Wall-clock milliseconds.' }),
      input_tokens: z.number().int().nonnegative().optional().register(z.globalRegistry, {
        description:
          "Input tokens the agent reported, cached ones included (Claude Code: `usage.input_tokens` plus its `cache_creation_input_tokens` and `cache_read_input_tokens`). From `$INTERLOCK_USAGE` or the agent's JSON result.",
      }),
      output_tokens: z.number().int().nonnegative().optional().register(z.globalRegistry, {
        description: 'Output tokens the agent reported.',
      }),
      cost_usd: z.number().nonnegative().optional().register(z.globalRegistry, {
        description: "Cost in US dollars, as the agent estimated it (Claude Code's `total_cost_usd`).",
      }),
      turns: z.number().int().nonnegative().optional().register(z.globalRegistry, {
        description: "Agent turns (Claude Code's `num_turns`).",
      }),
      model: z.string().optional().register(z.globalRegistry, {
        description:
          'The model or models the agent used (Claude Code: the keys of `modelUsage`, comma-separated; metered: the models the answers named).',
      }),
      ...METERED_USAGE_FIELDS,
    })
    .register(z.globalRegistry, {
      title: 'usage',
      description:
        'What an attempt used: wall time always; tokens, cost, turns and model when the node or its agent reported them. Other fields may be present and are kept.',
    }),
);
export type Usage = z.infer<ReturnType<typeof UsageSchema>>;

/** Where a failed command's output is: a bounded excerpt in the journal, the whole of it in a log. */
const OUTPUT_FIELDS = builtOnce(() => ({
  excerpt: z.string().optional().register(z.globalRegistry, {
    description:
      "A failed command's output, bounded (a few kB): ANSI stripped, the first error lines and the last lines, with `[… N lines cut …]` where lines were left out.",
  }),
  log: z.string().optional().register(z.globalRegistry, {
    description:
      'Where the whole output is kept: a file under `.interlock/` (CLI), or `step log` (the Action: a log group per check).',
  }),
}));

export const EvidenceSchema = builtOnce(() =>
  z
    .looseObject({
      check: z.string().register(z.globalRegistry, {
        description: 'The check in words, e.g. `file repro.log contains /FAILED/`, or `person`.',
      }),
      passed: z.boolean().register(z.globalRegistry, { description: 'Whether the check passed.' }),
      observed: z.string().register(z.globalRegistry, {
        description:
          'What the check saw: a match, an exit code (with the first error line of a failed command), a URL, a sha.',
      }),
      ...OUTPUT_FIELDS(),
    })
    .register(z.globalRegistry, { title: 'evidence', description: 'The result of one evidence check.' }),
);
export type Evidence = z.infer<ReturnType<typeof EvidenceSchema>>;

export const FailureSchema = builtOnce(() =>
  z
    .looseObject({
      check: z.string().register(z.globalRegistry, {
        description:
          'What failed: a check in words, or `exit`, `timeout`, `execute_conditions`, `env <NAME>`, `prompt`, `output <name>`.',
      }),
      message: z.string().register(z.globalRegistry, { description: 'Why, in words.' }),
      ...OUTPUT_FIELDS(),
    })
    .register(z.globalRegistry, { title: 'failure', description: 'One reason an attempt failed.' }),
);
export type Failure = z.infer<ReturnType<typeof FailureSchema>>;

/** One host an attempt's commands asked interlock's egress proxy for (`network:`), and how often. */
export const ConnectionSchema = builtOnce(() =>
  z
    .strictObject({
      host: z.string().register(z.globalRegistry, {
        description:
          "The host the command asked for (a `CONNECT` target or an absolute URI's host), lowercased; an IPv6 address in full form.",
      }),
      port: z
        .number()
        .int()
        .min(0)
        .max(65535)
        .register(z.globalRegistry, { description: 'The port asked for.' }),
      allowed: z.boolean().register(z.globalRegistry, {
        description: "Whether the node's `network.allow` admitted it (`false`: refused with a 403).",
      }),
      count: z.number().int().positive().register(z.globalRegistry, {
        description: 'How many connections (or HTTP requests) the attempt asked for to this host and port.',
      }),
    })
    .register(z.globalRegistry, {
      title: 'connection',
      description:
        "A host and port an attempt's commands and `command` checks asked interlock's egress proxy for, allowed or refused, with a count.",
    }),
);
export type Connection = z.infer<ReturnType<typeof ConnectionSchema>>;

export const GraphRef = z
  .strictObject({
    name: z.string().register(z.globalRegistry, { description: "The graph's name." }),
    hash: z.string().register(z.globalRegistry, {
      description: '`sha256:` of the canonical JSON of the resolved graph (skills merged, defaults applied).',
    }),
    path: z.string().register(z.globalRegistry, {
      description:
        'The graph file, relative to the root of the repository. A release before 2026-12-07 could write an absolute path here after `--allow-graph-change`; it is read as the path `RunStarted` names.',
    }),
  })
  .register(z.globalRegistry, { title: 'graph', description: 'The graph a run is under.' });
export type GraphRef = z.infer<typeof GraphRef>;

const SpentSchema = builtOnce(() =>
  z
    .looseObject({
      cost_usd: z.number().register(z.globalRegistry, { description: 'US dollars.' }),
      tokens: z.number().register(z.globalRegistry, { description: 'Input plus output tokens.' }),
      turns: z.number().register(z.globalRegistry, { description: 'Agent turns.' }),
      wall_minutes: z
        .number()
        .register(z.globalRegistry, { description: 'Minutes of wall time, summed over attempts.' }),
    })
    .register(z.globalRegistry, { title: 'spent', description: 'Usage in the units of a budget.' }),
);

/** One cycle's outcome, as a loop's escalation report lists it (issue 28). */
const CycleOutcome = builtOnce(() =>
  z.looseObject({
    cycle: z.number().register(z.globalRegistry, { description: 'The cycle.' }),
    attempt: z.number().register(z.globalRegistry, { description: 'The attempt that completed it.' }),
    outputs: z
      .record(z.string(), z.string())
      .register(z.globalRegistry, { description: 'The outputs it recorded.' }),
    until: z.string().register(z.globalRegistry, {
      description: '`false`, or why `until` could not be evaluated.',
    }),
  }),
);

/** Why a node was escalated at the run's budget, in its report. */
export const BudgetReportSchema = builtOnce(() =>
  z
    .looseObject({
      limit: z.record(z.string(), z.number()).register(z.globalRegistry, {
        description:
          "The budget in force: the run's (the graph's `budget`), or `{ daily_usd }`, the repository's daily cost cap (`.github/interlock.yml`).",
      }),
      spent: SpentSchema().register(z.globalRegistry, {
        description:
          "What the run spent since its budget was last raised (or since it started); at the daily cap, what the repository's runs spent that UTC day, as far as they were counted.",
      }),
      by_node: z.record(z.string(), SpentSchema()).register(z.globalRegistry, {
        description: 'The same, per node that spent anything.',
      }),
    })
    .register(z.globalRegistry, {
      title: 'budget report',
      description:
        'Set when the node was escalated because the run was at its budget (or the repository at its daily cost cap), not because attempts failed.',
    }),
);
export type BudgetReport = z.infer<ReturnType<typeof BudgetReportSchema>>;

export const EscalationReportSchema = builtOnce(() =>
  z
    .looseObject({
      attempted: z
        .array(
          z.looseObject({
            attempt: z.number().register(z.globalRegistry, { description: 'The attempt number.' }),
            approach: z
              .string()
              .register(z.globalRegistry, { description: '`default`, `retry[0]` or `retry[1]`.' }),
            work: z.string().register(z.globalRegistry, {
              description: 'What it ran: the first line of `run`, or the agent it prompted.',
            }),
          }),
        )
        .register(z.globalRegistry, { description: 'What was attempted, one entry per attempt.' }),
      failed: z
        .array(
          z.looseObject({
            attempt: z.number().register(z.globalRegistry, { description: 'The attempt number.' }),
            failures: z.array(FailureSchema()).register(z.globalRegistry, { description: 'Why it failed.' }),
          }),
        )
        .register(z.globalRegistry, { description: 'What failed and why, one entry per attempt.' }),
      approaches_tried: z
        .array(z.string())
        .register(z.globalRegistry, { description: 'The approaches used, in order.' }),
      needed: z
        .string()
        .register(z.globalRegistry, { description: 'What a person must do for the run to go on.' }),
      budget: BudgetReportSchema().optional(),
      setup: z.string().optional().register(z.globalRegistry, {
        description:
          'Set when the last attempt failed in a way no retry can change: the agent command could not work as set up (not found, or its CLI refused its arguments), or a repository setting refused an effect (GitHub refusing the workflow token a pull request). What it said, or the setting. The node is escalated at once, with attempts left: the same setup would fail them the same way.',
      }),
      cycles: z.array(CycleOutcome()).optional().register(z.globalRegistry, {
        description:
          "Set when a loop (`repeat:`) ran its last cycle and `until` was still false: each cycle's outcome, in order.",
      }),
    })
    .register(z.globalRegistry, { title: 'report', description: 'The escalation report shown to people.' }),
);
export type EscalationReport = z.infer<ReturnType<typeof EscalationReportSchema>>;

/** The fields every event has: its place in the journal and when it was written. */
export const EVENT_BASE = {
  seq: z.number().int().positive().register(z.globalRegistry, {
    description: 'The position in the journal: 1 for the first event, then each next number.',
  }),
  at: z
    .string()
    .min(1)
    // A journal whose times are not times was edited by hand: refused like any other malformed event.
    .refine(
      (t) => /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(t) && !Number.isNaN(Date.parse(t)),
      'not an ISO 8601 time',
    )
    .register(z.globalRegistry, { description: 'When the event was written (ISO 8601, UTC).' }),
};

/** Who approved and where: the same two fields on every approval event (`RerunApproved`, `NodeApproved`). */
export const APPROVER_FIELDS = builtOnce(() => ({
  approved_by: z
    .string()
    .min(1)
    .register(z.globalRegistry, { description: 'The person who approved (a login, or `--by NAME`).' }),
  source: z.string().register(z.globalRegistry, {
    description:
      'Where the approval came from: a comment URL (which approves once per run), or `cli:<user>`.',
  }),
}));
