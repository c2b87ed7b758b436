/**
 * The serialized mode's journal fields (issue 26): a dispatch that is one node of a chain sent to the agent in
 * one call, and the return of a chain's node to pending when an earlier node of its chain failed.
 */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { EVENT_BASE } from './fields.js';

export const ChainSchema = builtOnce(() =>
  z
    .strictObject({
      session: z
        .string()
        .register(z.globalRegistry, { description: 'The serialized session the chain belongs to.' }),
      first: z.string().register(z.globalRegistry, {
        description: "The chain's first node: the one whose agent call carries the whole chain.",
      }),
      position: z.number().int().positive().register(z.globalRegistry, {
        description: "This node's place in the chain, from 1 (the first node).",
      }),
    })
    .register(z.globalRegistry, {
      description:
        "Set when the dispatch is one node of a serialized session's chain (`sessions.<name>.serialized`): every node of the chain is dispatched in one write, before one agent call does them all in order. A node of the chain may be dispatched while the nodes before it in the same chain (same `first`, same executor) are in flight.",
    }),
);

export type Chain = z.infer<ReturnType<typeof ChainSchema>>;

export const NodeReturned = builtOnce(() =>
  z.strictObject({
    ...EVENT_BASE,
    type: z.literal('NodeReturned'),
    node: z.string().register(z.globalRegistry, { description: 'The node.' }),
    attempt: z
      .number()
      .int()
      .positive()
      .register(z.globalRegistry, { description: 'The chained attempt that is given back, unchecked.' }),
    reason: z.string().register(z.globalRegistry, {
      description: 'Why: the earlier node of its chain that failed.',
    }),
  }),
);
