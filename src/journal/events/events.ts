/**
 * The journal's events and header as zod schemas: the public surface tools and people read. The rules the fold
 * holds them to are listed, with the file that decides each, in docs/ARCHITECTURE.md.
 */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { ATTEMPT_END_EVENTS } from './attempt-ends.js';
import { WorkflowDispatchRetried } from './dispatch-retried.js';
import { EXPANSION_EVENTS } from './expansion.js';
import {
  APPROVER_FIELDS,
  EscalationReportSchema,
  EVENT_BASE,
  GraphRef,
  RunnerSchema,
  UsageSchema,
} from './fields.js';
import { GATE_EVENTS, GuidanceText, StartedBy } from './gates.js';
import { ForkedFrom, LOOP_AND_RERUN_EVENTS } from './loops-and-reruns.js';
import { NodeOverdue } from './overdue.js';
import { ChainSchema, NodeReturned } from './serialized.js';

export const JOURNAL_FORMAT = 'interlock.journal/1';

const base = EVENT_BASE;
const nodeId = (d = 'The node.') => z.string().register(z.globalRegistry, { description: d });
const attemptNo = (d: string) => z.number().int().positive().register(z.globalRegistry, { description: d });

const RunStarted = builtOnce(() =>
  z.strictObject({
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
    started_by: StartedBy().optional(),
    forked_from: ForkedFrom().optional(),
  }),
);
const NodeDispatched = builtOnce(() =>
  z.strictObject({
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
    chain: ChainSchema().optional(),
    effect_mark: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .register(z.globalRegistry, {
        description:
          "An effect node's attempt: SHA-256 of its idempotency key and the value its mark carries (src/protocol/attempt/effect-marks.ts). The value is made from a secret only the dispatching process holds; a mark on GitHub is interlock's own only when it hashes to this. Absent on other nodes and on journals written before effect marks carried a value.",
      }),
  }),
);
const NodeSkipped = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeSkipped'),
    node: nodeId(),
    reason: z
      .string()
      .register(z.globalRegistry, { description: 'Why, e.g. the conditions that were false.' }),
  }),
);
const NodeInterrupted = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeInterrupted'),
    node: nodeId(),
    attempt: attemptNo('The attempt whose executor is gone.'),
    observed_usage: UsageSchema(),
    by: z.string().optional().register(z.globalRegistry, {
      description:
        'What recovered it: `interlock recover (<user>)`, or the workflow run (or its post step) that did.',
    }),
  }),
);
const RerunApproved = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('RerunApproved'),
    node: nodeId(),
    attempt: z.number().int().nonnegative().register(z.globalRegistry, {
      description:
        'The held or escalated attempt this approval answers; `0` for a looping sub-graph node, which makes no attempt of its own.',
    }),
    ...APPROVER_FIELDS(),
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
    guidance: GuidanceText().optional(),
  }),
);
const NodeEscalated = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeEscalated'),
    node: nodeId(),
    report: EscalationReportSchema(),
  }),
);
const RunFailed = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('RunFailed'),
    reason: z.string().register(z.globalRegistry, { description: 'Why the run ends.' }),
    by: z.string().register(z.globalRegistry, { description: 'Who ended it.' }),
  }),
);
const RunCompleted = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('RunCompleted'),
    reason: z.string().register(z.globalRegistry, { description: '`every node completed or skipped`.' }),
    by: z.string().register(z.globalRegistry, { description: '`interlock`.' }),
  }),
);
const GraphChangeAllowed = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('GraphChangeAllowed'),
    from: z.string().register(z.globalRegistry, { description: 'The graph hash the run was under.' }),
    to: z.string().register(z.globalRegistry, { description: 'The graph hash it goes on under.' }),
    by: z.string().min(1).register(z.globalRegistry, {
      description: 'Who allowed it (`--by`, the user, or the workflow actor).',
    }),
  }),
);

/**
 * Each event's schema by its `type`, in the union's order: a schema is built the first time an event of its type
 * is checked (builtOnce), so a step builds the few its journal holds rather than all of them.
 */
const EVENTS = {
  RunStarted,
  NodeDispatched,
  ...ATTEMPT_END_EVENTS,
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
};
type EventMember = ReturnType<(typeof EVENTS)[keyof typeof EVENTS]>;

/** Every event, as one discriminated union on `type` (for the JSON schema and the docs; built on first use). */
export const EventSchema = builtOnce(() =>
  z.discriminatedUnion(
    'type',
    Object.values(EVENTS).map((member) => member()) as [EventMember, ...EventMember[]],
  ),
);

export type JournalEvent = {
  [T in keyof typeof EVENTS]: z.infer<ReturnType<(typeof EVENTS)[T]>>;
}[keyof typeof EVENTS];

/**
 * Checks one event as EventSchema does, building only its type's schema: for an event of a known `type` the union
 * runs that member's check and nothing else. Anything else (not an object, no `type` or an unknown one) goes to the
 * union itself, for its own issue.
 */
export function checkEvent(ev: unknown): z.ZodSafeParseResult<JournalEvent> {
  const type =
    ev !== null && typeof ev === 'object' && !Array.isArray(ev) ? (ev as { type?: unknown }).type : undefined;
  const member =
    typeof type === 'string' && Object.hasOwn(EVENTS, type) ? EVENTS[type as keyof typeof EVENTS] : undefined;
  return (member ? member() : EventSchema()).safeParse(ev) as z.ZodSafeParseResult<JournalEvent>;
}

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
