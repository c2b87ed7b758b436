/**
 * The events that end an attempt, `NodeRecorded` and `NodeFailed`, with what an agent and the egress proxy add to
 * them. Taken in by the journal's events (events.ts) by type.
 */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { ConnectionSchema, EVENT_BASE, EvidenceSchema, FailureSchema, UsageSchema } from './fields.js';
import { OUTPUT_NAME_PATTERN, OUTPUT_NAME_RULE } from './output-name.js';

const base = EVENT_BASE;
const nodeId = (d = 'The node.') => z.string().register(z.globalRegistry, { description: d });
const attemptNo = (d: string) => z.number().int().positive().register(z.globalRegistry, { description: d });

/** What an engine's agent said about its attempt (absent for plain commands). */
const AGENT_FIELDS = builtOnce(() => ({
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
}));
/** What an attempt of a node with `network:` connected to (absent for nodes with the open network). */
const NETWORK_FIELDS = builtOnce(() => ({
  connections: z.array(ConnectionSchema()).optional().register(z.globalRegistry, {
    description:
      "Every host and port the attempt's commands and `command` checks asked the egress proxy for, allowed or refused, with a count (a node with `network:`; empty when it asked for none).",
  }),
}));

const NodeRecorded = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeRecorded'),
    node: nodeId(),
    attempt: z.number().int().nonnegative().register(z.globalRegistry, {
      description: 'The attempt recorded; for a settlement, the attempt that was held or escalated.',
    }),
    evidence: z
      .array(EvidenceSchema())
      .register(z.globalRegistry, { description: 'Every check and what it observed.' }),
    outputs: z
      .record(z.string().regex(OUTPUT_NAME_PATTERN, OUTPUT_NAME_RULE), z.string())
      .register(z.globalRegistry, { description: 'The outputs the command set in `$INTERLOCK_OUTPUT`.' }),
    usage: UsageSchema(),
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
    ...AGENT_FIELDS(),
    ...NETWORK_FIELDS(),
  }),
);
const NodeFailed = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeFailed'),
    node: nodeId(),
    attempt: attemptNo('The attempt that failed.'),
    failures: z
      .array(FailureSchema())
      .register(z.globalRegistry, { description: 'Every reason the attempt failed.' }),
    usage: UsageSchema(),
    evidence: z.array(EvidenceSchema()).optional().register(z.globalRegistry, {
      description: 'Every check that ran and what it observed, passed or not.',
    }),
    output_tail: z
      .string()
      .optional()
      .register(z.globalRegistry, { description: "The end of the command's output." }),
    ...AGENT_FIELDS(),
    ...NETWORK_FIELDS(),
  }),
);

/** The events of this file, by type. */
export const ATTEMPT_END_EVENTS = { NodeRecorded, NodeFailed };
