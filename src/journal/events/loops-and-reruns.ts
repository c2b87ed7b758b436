/**
 * The journal's events of bounded loops and of rerunning from a node (issue 28): `NodeCycleStarted` (a loop's
 * next cycle), `RerunFromApproved` (a person marks a node and its dependents to run again), `NodeCarriedOver`
 * (a forked run starts with a node's record from the run it forked from) and `RunStarted.forked_from`.
 */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { APPROVER_FIELDS, EVENT_BASE } from './fields.js';
import { GuidanceText } from './gates.js';
import { OUTPUT_NAME_PATTERN, OUTPUT_NAME_RULE } from './output-name.js';

const base = EVENT_BASE;
const node = (description = 'The node.') => z.string().register(z.globalRegistry, { description });

const NodeCycleStarted = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeCycleStarted'),
    node: node('The node with `repeat:`.'),
    cycle: z.number().int().min(2).register(z.globalRegistry, {
      description: 'The cycle that starts: 2 for the first repeat, at most `repeat.max`.',
    }),
    until: z.string().register(z.globalRegistry, {
      description: "The node's `repeat.until` expression, as the graph had it.",
    }),
    value: z.literal(false).register(z.globalRegistry, {
      description:
        'What `until` evaluated to over the outputs of the cycle that ended (always `false`: a true value ends the loop).',
    }),
    after_attempt: z.number().int().nonnegative().register(z.globalRegistry, {
      description:
        'The attempt whose record ended the previous cycle (its outputs stay in that `NodeRecorded`); `0` for a sub-graph node, which makes no attempt of its own (its cycle ended with its `NodeJoined`).',
    }),
  }),
);

const RerunFromApproved = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('RerunFromApproved'),
    node: node('The node named in `/rerun-from` (`interlock rerun-from`).'),
    nodes: z.array(z.string()).min(1).register(z.globalRegistry, {
      description:
        'The named node and every node that depends on it, transitively, in declaration order: each runs again as new attempts.',
    }),
    ...APPROVER_FIELDS(),
    graph_hash: z
      .string()
      .register(z.globalRegistry, { description: 'The graph hash the person acted under.' }),
    guidance: GuidanceText().optional(),
  }),
);

const NodeCarriedOver = builtOnce(() =>
  z.strictObject({
    ...base,
    type: z.literal('NodeCarriedOver'),
    node: node(),
    from_seq: z.number().int().positive().register(z.globalRegistry, {
      description:
        'The event of the forked-from run (`RunStarted.forked_from.run_id`) that resolved the node: its `NodeRecorded` or `NodeSkipped`.',
    }),
    state: z.enum(['completed', 'skipped']).register(z.globalRegistry, {
      description: 'How the node ended in that run; this run starts with it so.',
    }),
    outputs: z
      .record(z.string().regex(OUTPUT_NAME_PATTERN, OUTPUT_NAME_RULE), z.string())
      .register(z.globalRegistry, { description: 'The outputs it recorded there.' }),
    instances: z
      .array(
        z.strictObject({
          key: z.string().register(z.globalRegistry, { description: 'The instance key.' }),
          value: z.unknown().register(z.globalRegistry, { description: 'Its item, as journaled.' }),
          state: z.enum(['completed', 'skipped', 'tolerated']).register(z.globalRegistry, {
            description: 'How the instance ended for its join.',
          }),
          outputs: z
            .record(z.string().regex(OUTPUT_NAME_PATTERN, OUTPUT_NAME_RULE), z.string())
            .register(z.globalRegistry, {
              description: "The instance's outputs (a sub-graph's: its nodes').",
            }),
        }),
      )
      .optional()
      .register(z.globalRegistry, {
        description:
          "Set for a `for_each` node: its instances as its join found them, in item order, so the fork's dependents see the same `nodes.<id>.outputs` list. A sub-graph's nodes are not carried over: its outputs are.",
      }),
  }),
);

/** By type: the journal's events (events.ts) take them in. */
export const LOOP_AND_RERUN_EVENTS = { NodeCycleStarted, RerunFromApproved, NodeCarriedOver };

/** `RunStarted.forked_from`: the run a fork was made from, and the last event of it the fork saw. */
export const ForkedFrom = builtOnce(() =>
  z
    .strictObject({
      run_id: z.string().min(1).register(z.globalRegistry, { description: 'The ended run.' }),
      seq: z.number().int().positive().register(z.globalRegistry, {
        description: 'The last event of that run when it was forked (its end).',
      }),
      node: z.string().register(z.globalRegistry, { description: 'The node the rerun starts from.' }),
      source: z.string().register(z.globalRegistry, {
        description:
          'Where the command came from: a comment URL (which forks once: a redelivery finds this fork) or `cli:<user>`.',
      }),
    })
    .register(z.globalRegistry, {
      description:
        'Set when `/rerun-from` (`interlock rerun-from`) forked this run from an ended one: it starts with the records of every node outside the rerun (`NodeCarriedOver`).',
    }),
);
