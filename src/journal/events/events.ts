/**
 * The journal's events and header as zod schemas: the public surface tools and people read. The rules the fold
 * holds them to are listed, with the file that decides each, in docs/ARCHITECTURE.md.
 */
import * as z from 'zod';
import { WorkflowDispatchRetried } from './dispatch-retried.js';
import { EXPANSION_EVENTS } from './expansion.js';
import {
  APPROVER_FIELDS,
  ConnectionSchema,
  EscalationReportSchema,
  EVENT_BASE,
  EvidenceSchema,
  FailureSchema,
  GraphRef,
  RunnerSchema,
  UsageSchema,
} from './fields.js';
import { GATE_EVENTS, GuidanceText, StartedBy } from './gates.js';
import { ForkedFrom, LOOP_AND_RERUN_EVENTS } from './loops-and-reruns.js';
import { OUTPUT_NAME_PATTERN, OUTPUT_NAME_RULE } from './output-name.js';
import { NodeOverdue } from './overdue.js';
import { ChainSchema, NodeReturned } from './serialized.js';

export const JOURNAL_FORMAT = 'interlock.journal/1';

const base = EVENT_BASE;
const nodeId = (d = 'The node.') => z.string().register(z.globalRegistry, { description: d });
const attemptNo = (d: string) => z.number().int().positive().register(z.globalRegistry, { description: d });

const RunStarted = z.strictObject({
  ...base,
  type: z.literal('RunStarted'),
  graph: GraphRef,
  intent: z.string().register(z.globalRegistry, {
    description:
      'What started the run: `cli` (`cli (<action>)` with `--event`), or the event, its action and the route that matched, e.g. `issues.labeled label=agent:fix`.',
  }),
  subject: z.string().register(z.globalRegistry, {
    description: 'What the run is about: `issue-<n>`, `pr-<n>`, a ref, or `local`.',
  }),
  runner: RunnerSchema,
  inputs: z.record(z.string(), z.string()).optional().register(z.globalRegistry, {
    description: 'The `inputs` expression context: `--input k=v`, or the workflow_dispatch inputs.',
  }),
  github: z.unknown().optional().register(z.globalRegistry, {
    description:
      'The `github` expression context, kept for every later attempt: `{ event: <payload> }` and more.',
  }),
  started_by: StartedBy.optional(),
  forked_from: ForkedFrom.optional(),
});
const NodeDispatched = z.strictObject({
  ...base,
  type: z.literal('NodeDispatched'),
  node: nodeId(),
  attempt: attemptNo('The attempt number: 1, 2, 3, and one more for each approved rerun.'),
  replay: z.enum(['safe', 'never']).register(z.globalRegistry, {
    description:
      "The node's replay rule at dispatch; an interrupted attempt reruns by itself only when this and the current graph both say `safe`.",
  }),
  approach: z.string().register(z.globalRegistry, {
    description: 'Which approach the attempt uses: `default`, `retry[0]` or `retry[1]`.',
  }),
  runner: RunnerSchema,
  chain: ChainSchema.optional(),
  effect_mark: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .register(z.globalRegistry, {
      description:
        "An effect node's attempt: SHA-256 of its idempotency key and the value its mark carries (src/protocol/attempt/effect-marks.ts). The value is made from a secret only the dispatching process holds; a mark on GitHub is interlock's own only when it hashes to this. Absent on other nodes and on journals written before effect marks carried a value.",
    }),
});
/** What an engine's agent said about its attempt (absent for plain commands). */
const AGENT_FIELDS = {
  engine: z.enum(['claude-code', 'codex', 'copilot', 'gemini']).optional().register(z.globalRegistry, {
    description: "The agent CLI whose output was read (the node's `engine`).",
  }),
  session_id: z.string().optional().register(z.globalRegistry, {
    description:
      'The agent session the attempt made or continued: Claude Code `session_id`, Codex `thread_id`, Copilot CLI `sessionId`, Gemini CLI `session_id`.',
  }),
  resumed_session: z.string().optional().register(z.globalRegistry, {
    description:
      'The session the attempt continued (`session:`): the one the last completed node of that session left. Claude Code forks it, so `session_id` differs; Codex continues the thread, so they are equal.',
  }),
  transcripts_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .register(z.globalRegistry, {
      description:
        "SHA-256 of the session's transcripts folder as this attempt's agent left it (isolated nodes with `session:`): the session's next node resumes the folder only while it still hashes to this.",
    }),
  final_message: z.string().optional().register(z.globalRegistry, {
    description: "The agent's last message (Claude Code `result`, Codex's last `agent_message`), bounded.",
  }),
};
/** What an attempt of a node with `network:` connected to (absent for nodes with the open network). */
const NETWORK_FIELDS = {
  connections: z.array(ConnectionSchema).optional().register(z.globalRegistry, {
    description:
      "Every host and port the attempt's commands and `command` checks asked the egress proxy for, allowed or refused, with a count (a node with `network:`; empty when it asked for none).",
  }),
};

const NodeRecorded = z.strictObject({
  ...base,
  type: z.literal('NodeRecorded'),
  node: nodeId(),
  attempt: z.number().int().nonnegative().register(z.globalRegistry, {
    description: 'The attempt recorded; for a settlement, the attempt that was held or escalated.',
  }),
  evidence: z
    .array(EvidenceSchema)
    .register(z.globalRegistry, { description: 'Every check and what it observed.' }),
  outputs: z
    .record(z.string().regex(OUTPUT_NAME_PATTERN, OUTPUT_NAME_RULE), z.string())
    .register(z.globalRegistry, { description: 'The outputs the command set in `$INTERLOCK_OUTPUT`.' }),
  usage: UsageSchema,
  recorded_by: z.string().optional().register(z.globalRegistry, {
    description: 'Set when a person settled the node (`settle`, `/settle`): who.',
  }),
  note: z
    .string()
    .optional()
    .register(z.globalRegistry, { description: 'What the person checked, when a person settled it.' }),
  output_tail: z
    .string()
    .optional()
    .register(z.globalRegistry, { description: "The end of the command's output." }),
  ...AGENT_FIELDS,
  ...NETWORK_FIELDS,
});
const NodeFailed = z.strictObject({
  ...base,
  type: z.literal('NodeFailed'),
  node: nodeId(),
  attempt: attemptNo('The attempt that failed.'),
  failures: z
    .array(FailureSchema)
    .register(z.globalRegistry, { description: 'Every reason the attempt failed.' }),
  usage: UsageSchema,
  evidence: z
    .array(EvidenceSchema)
    .optional()
    .register(z.globalRegistry, { description: 'Every check that ran and what it observed, passed or not.' }),
  output_tail: z
    .string()
    .optional()
    .register(z.globalRegistry, { description: "The end of the command's output." }),
  ...AGENT_FIELDS,
  ...NETWORK_FIELDS,
});
const NodeSkipped = z.strictObject({
  ...base,
  type: z.literal('NodeSkipped'),
  node: nodeId(),
  reason: z.string().register(z.globalRegistry, { description: 'Why, e.g. the conditions that were false.' }),
});
const NodeInterrupted = z.strictObject({
  ...base,
  type: z.literal('NodeInterrupted'),
  node: nodeId(),
  attempt: attemptNo('The attempt whose executor is gone.'),
  observed_usage: UsageSchema,
  by: z.string().optional().register(z.globalRegistry, {
    description:
      'What recovered it: `interlock recover (<user>)`, or the workflow run (or its post step) that did.',
  }),
});
const RerunApproved = z.strictObject({
  ...base,
  type: z.literal('RerunApproved'),
  node: nodeId(),
  attempt: z.number().int().nonnegative().register(z.globalRegistry, {
    description:
      'The held or escalated attempt this approval answers; `0` for a looping sub-graph node, which makes no attempt of its own.',
  }),
  ...APPROVER_FIELDS,
  graph_hash: z
    .string()
    .optional()
    .register(z.globalRegistry, { description: 'The graph hash the approver saw.' }),
  reason: z.string().optional().register(z.globalRegistry, { description: 'Why, in words.' }),
  /** Distinct people who must approve this attempt before the node leaves its hold (default 1). */
  required: z.number().int().min(1).optional().register(z.globalRegistry, {
    description:
      'Distinct people who must approve this attempt before the node leaves its hold, from `approvals.required` (default `1`).',
  }),
  guidance: GuidanceText.optional(),
});
const NodeEscalated = z.strictObject({
  ...base,
  type: z.literal('NodeEscalated'),
  node: nodeId(),
  report: EscalationReportSchema,
});
const RunFailed = z.strictObject({
  ...base,
  type: z.literal('RunFailed'),
  reason: z.string().register(z.globalRegistry, { description: 'Why the run ends.' }),
  by: z.string().register(z.globalRegistry, { description: 'Who ended it.' }),
});
const RunCompleted = z.strictObject({
  ...base,
  type: z.literal('RunCompleted'),
  reason: z.string().register(z.globalRegistry, { description: '`every node completed or skipped`.' }),
  by: z.string().register(z.globalRegistry, { description: '`interlock`.' }),
});
const GraphChangeAllowed = z.strictObject({
  ...base,
  type: z.literal('GraphChangeAllowed'),
  from: z.string().register(z.globalRegistry, { description: 'The graph hash the run was under.' }),
  to: z.string().register(z.globalRegistry, { description: 'The graph hash it goes on under.' }),
  by: z
    .string()
    .min(1)
    .register(z.globalRegistry, { description: 'Who allowed it (`--by`, the user, or the workflow actor).' }),
});

export const EventSchema = z.discriminatedUnion('type', [
  RunStarted,
  NodeDispatched,
  NodeRecorded,
  NodeFailed,
  NodeSkipped,
  NodeInterrupted,
  RerunApproved,
  NodeEscalated,
  RunFailed,
  RunCompleted,
  GraphChangeAllowed,
  ...GATE_EVENTS,
  NodeOverdue,
  ...EXPANSION_EVENTS,
  ...LOOP_AND_RERUN_EVENTS,
  NodeReturned,
  WorkflowDispatchRetried,
]);

export type JournalEvent = z.infer<typeof EventSchema>;
export type EventType = JournalEvent['type'];
export type EventOf<T extends EventType> = Extract<JournalEvent, { type: T }>;
/** An event before the journal gives it its `seq` and `at`. */
export type NewEvent = JournalEvent extends infer E
  ? E extends JournalEvent
    ? Omit<E, 'seq' | 'at'>
    : never
  : never;

export const JournalHeaderSchema = z.strictObject({
  format: z
    .literal(JOURNAL_FORMAT)
    .register(z.globalRegistry, { description: 'The journal format; readers refuse any other.' }),
  run_id: z
    .string()
    .min(1)
    .register(z.globalRegistry, { description: 'The run id, e.g. `fix-bug/issue-42`.' }),
  graph: GraphRef,
  /** The subject's progress comment, once the Action has made one: updated in place by id. */
  progress_comment_id: z.number().int().positive().optional().register(z.globalRegistry, {
    description:
      "The subject's progress comment, once the Action made one: it is updated in place by this id.",
  }),
  events: z.array(z.unknown()).register(z.globalRegistry, { description: 'The events, in order.' }),
});

export interface Journal {
  format: typeof JOURNAL_FORMAT;
  run_id: string;
  graph: GraphRef;
  progress_comment_id?: number;
  events: JournalEvent[];
}
