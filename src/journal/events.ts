import { z } from 'zod';

export const JOURNAL_FORMAT = 'interlock.journal/1';

/** Who executes an attempt: a local process, or a GitHub Actions job. Extra fields are kept. */
export const RunnerSchema = z.looseObject({
  kind: z.enum(['local', 'actions', 'person']),
  host: z.string().optional(),
  pid: z.number().int().optional(),
  pid_start: z.string().optional(),
  exec_tag: z.string().optional(),
  workflow_run_id: z.number().optional(),
  run_attempt: z.number().optional(),
  job: z.string().optional(),
  runner_name: z.string().optional(),
});
export type RunnerInfo = z.infer<typeof RunnerSchema>;

export const UsageSchema = z.looseObject({ wall_ms: z.number().nonnegative() });
export type Usage = z.infer<typeof UsageSchema>;

export const EvidenceSchema = z.looseObject({
  check: z.string(),
  passed: z.boolean(),
  observed: z.string(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const FailureSchema = z.looseObject({ check: z.string(), message: z.string() });
export type Failure = z.infer<typeof FailureSchema>;

const GraphRef = z.strictObject({ name: z.string(), hash: z.string(), path: z.string() });
export type GraphRef = z.infer<typeof GraphRef>;

const base = { seq: z.number().int().positive(), at: z.string().min(1) };

const RunStarted = z.strictObject({
  ...base,
  type: z.literal('RunStarted'),
  graph: GraphRef,
  intent: z.string(),
  subject: z.string(),
  runner: RunnerSchema,
  inputs: z.record(z.string(), z.string()).optional(),
  github: z.unknown().optional(),
});
const NodeDispatched = z.strictObject({
  ...base,
  type: z.literal('NodeDispatched'),
  node: z.string(),
  attempt: z.number().int().positive(),
  replay: z.enum(['safe', 'never']),
  approach: z.string(),
  runner: RunnerSchema,
});
const NodeRecorded = z.strictObject({
  ...base,
  type: z.literal('NodeRecorded'),
  node: z.string(),
  attempt: z.number().int().nonnegative(),
  evidence: z.array(EvidenceSchema),
  outputs: z.record(z.string(), z.string()),
  usage: UsageSchema,
  recorded_by: z.string().optional(),
  note: z.string().optional(),
  output_tail: z.string().optional(),
});
const NodeFailed = z.strictObject({
  ...base,
  type: z.literal('NodeFailed'),
  node: z.string(),
  attempt: z.number().int().positive(),
  failures: z.array(FailureSchema),
  usage: UsageSchema,
  evidence: z.array(EvidenceSchema).optional(),
  output_tail: z.string().optional(),
});
const NodeSkipped = z.strictObject({
  ...base,
  type: z.literal('NodeSkipped'),
  node: z.string(),
  reason: z.string(),
});
const NodeInterrupted = z.strictObject({
  ...base,
  type: z.literal('NodeInterrupted'),
  node: z.string(),
  attempt: z.number().int().positive(),
  observed_usage: UsageSchema,
  by: z.string().optional(),
});
const RerunApproved = z.strictObject({
  ...base,
  type: z.literal('RerunApproved'),
  node: z.string(),
  attempt: z.number().int().positive(),
  approved_by: z.string().min(1),
  source: z.string(),
  graph_hash: z.string().optional(),
  reason: z.string().optional(),
  /** Distinct people who must approve this attempt before the node leaves its hold (default 1). */
  required: z.number().int().min(1).optional(),
});
export const EscalationReportSchema = z.looseObject({
  attempted: z.array(z.looseObject({ attempt: z.number(), approach: z.string(), work: z.string() })),
  failed: z.array(z.looseObject({ attempt: z.number(), failures: z.array(FailureSchema) })),
  approaches_tried: z.array(z.string()),
  needed: z.string(),
});
export type EscalationReport = z.infer<typeof EscalationReportSchema>;
const NodeEscalated = z.strictObject({
  ...base,
  type: z.literal('NodeEscalated'),
  node: z.string(),
  report: EscalationReportSchema,
});
const RunFailed = z.strictObject({
  ...base,
  type: z.literal('RunFailed'),
  reason: z.string(),
  by: z.string(),
});
const RunCompleted = z.strictObject({
  ...base,
  type: z.literal('RunCompleted'),
  reason: z.string(),
  by: z.string(),
});
const GraphChangeAllowed = z.strictObject({
  ...base,
  type: z.literal('GraphChangeAllowed'),
  from: z.string(),
  to: z.string(),
  by: z.string().min(1),
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
  format: z.literal(JOURNAL_FORMAT),
  run_id: z.string().min(1),
  graph: GraphRef,
  /** The subject's progress comment, once the Action has made one: updated in place by id. */
  progress_comment_id: z.number().int().positive().optional(),
  events: z.array(z.unknown()),
});

export interface Journal {
  format: typeof JOURNAL_FORMAT;
  run_id: string;
  graph: GraphRef;
  progress_comment_id?: number;
  events: JournalEvent[];
}
