/**
 * The journal's events and fields of the gate before a node and of guidance (issue 15): `NodeAwaitingApproval`,
 * `NodeApproved`, the `guidance` an approval carries and the `started_by` of `RunStarted`.
 */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { APPROVER_FIELDS, EVENT_BASE } from './fields.js';

/** The most characters of guidance one approval carries; longer guidance is refused, never cut. */
export const MAX_GUIDANCE_CHARS = 4_000;

const base = EVENT_BASE;

/** One person's guidance: what they told later attempts, as data (`$INTERLOCK_CONTEXT` `guidance`). */
export interface Guidance {
  by: string;
  text: string;
}

/** The guidance an approval carries; who gave it is the event's `approved_by`. */
export const GuidanceText = builtOnce(() =>
  z
    .string()
    .min(1)
    .max(MAX_GUIDANCE_CHARS)
    .register(z.globalRegistry, {
      description: `Guidance given with the approval (the comment's lines after the command, or \`--guidance\`), at most ${MAX_GUIDANCE_CHARS} characters: later attempts of the node get it as data (\`$INTERLOCK_CONTEXT\` \`guidance\`, appended to a prompt), never as code.`,
    }),
);

export const StartedBy = builtOnce(() =>
  z.string().min(1).register(z.globalRegistry, {
    description:
      'Who started the run: the labeler, the commenter, the dispatcher (the event sender), or the CLI user. Absent in journals written before it was recorded.',
  }),
);

const NodeAwaitingApproval = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeAwaitingApproval'),
    node: z.string().register(z.globalRegistry, { description: 'The node with `approval: before`.' }),
    graph_hash: z.string().register(z.globalRegistry, {
      description: 'The graph hash the approvers are asked under; an approval under another is refused.',
    }),
  }),
);

const NodeApproved = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeApproved'),
    node: z.string().register(z.globalRegistry, { description: 'The node awaiting approval.' }),
    ...APPROVER_FIELDS(),
    graph_hash: z.string().register(z.globalRegistry, { description: 'The graph hash the approver saw.' }),
    required: z.number().int().min(1).register(z.globalRegistry, {
      description:
        'Distinct people who must approve before the node runs: the largest `required` of the repository, graph and node.',
    }),
    guidance: GuidanceText().optional(),
  }),
);

/** The gate's events, by type: the journal's events (events.ts) take them in. */
export const GATE_EVENTS = { NodeAwaitingApproval, NodeApproved };
