/**
 * The journal's events of `for_each` and sub-graphs (issue 28): `NodeExpanded` (the list, evaluated once, with
 * each item's key; or a sub-graph node's child graph),
 * `NodeExpansionFailed` (a list that cannot be used: the node escalates with the reason) and `NodeJoined` (every
 * instance ended: the node completes, naming the escalated instances it tolerated).
 */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { EVENT_BASE, FailureSchema } from './fields.js';

const node = builtOnce(() => z.string().register(z.globalRegistry, { description: 'The `for_each` node.' }));

const NodeExpanded = builtOnce(() =>
  z.strictObject({
    ...EVENT_BASE,
    type: z.literal('NodeExpanded'),
    node: node(),
    items: z
      .array(
        z.strictObject({
          key: z.string().register(z.globalRegistry, {
            description: 'The instance key: the instance is named `<node>[<key>]`.',
          }),
          value: z.unknown().register(z.globalRegistry, {
            description: "The item, as plain JSON data: the instance's `item` (text in it stays text).",
          }),
        }),
      )
      .min(1)
      .optional()
      .register(z.globalRegistry, {
        description:
          "The list `for_each` gave when the node was ready, in order; written before any instance runs and never evaluated again. The item's position is its `index`. Absent for a sub-graph node without `for_each`.",
      }),
    graph: z
      .strictObject({
        path: z.string().register(z.globalRegistry, {
          description: "The sub-graph's file, relative to the run's graph file's folder.",
        }),
        hash: z.string().register(z.globalRegistry, {
          description: "The sub-graph's own hash (`sha256:`) as the run's graph holds it.",
        }),
      })
      .optional()
      .register(z.globalRegistry, {
        description:
          "Set when the node is a sub-graph node (`graph:`): the graph its nodes come from. Without `for_each` the node's child nodes (`<node>/<child>`) exist from this event on; with it, each instance is a sub-graph node expanded in its turn.",
      }),
  }),
);

const NodeExpansionFailed = builtOnce(() =>
  z.strictObject({
    ...EVENT_BASE,
    type: z.literal('NodeExpansionFailed'),
    node: node(),
    attempt: z.number().int().positive().register(z.globalRegistry, {
      description: 'Counts as an attempt of the node: 1, then one more for each approved rerun.',
    }),
    failures: z.array(FailureSchema()).min(1).register(z.globalRegistry, {
      description:
        'Why the list cannot be used (`check: for_each`): not a list, empty, over `max_items`, a key that is not allowed or that two items share. The node is escalated at once: the same list would fail again.',
    }),
  }),
);

const NodeJoined = builtOnce(() =>
  z.strictObject({
    ...EVENT_BASE,
    type: z.literal('NodeJoined'),
    node: node(),
    completed: z.array(z.string()).register(z.globalRegistry, {
      description: 'The instances that completed or were skipped, in item order.',
    }),
    tolerated: z.array(z.string()).register(z.globalRegistry, {
      description:
        "The instances that ended escalated and were let through under `tolerated_failures`; dependents see them as `null` in the node's outputs list.",
    }),
  }),
);

/** The events of this block, by type: the journal's events (events.ts) take them in. */
export const EXPANSION_EVENTS = { NodeExpanded, NodeExpansionFailed, NodeJoined };
