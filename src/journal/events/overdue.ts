/** The soft-bound event (issue 26): an attempt past a soft bound of its node, which goes on until its hard limits. */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { EVENT_BASE } from './fields.js';

export const NodeOverdue = builtOnce(() =>
  z.strictObject({
    ...EVENT_BASE,
    type: z.literal('NodeOverdue'),
    node: z.string().register(z.globalRegistry, { description: 'The node.' }),
    attempt: z
      .number()
      .int()
      .positive()
      .register(z.globalRegistry, { description: 'The attempt in flight that passed the bound.' }),
    bound: z.enum(['soft_timeout_minutes', 'soft_turns']).register(z.globalRegistry, {
      description: 'Which soft bound it passed.',
    }),
    limit: z.number().register(z.globalRegistry, { description: "The bound's value in the graph." }),
    observed: z.number().register(z.globalRegistry, {
      description: 'What the attempt had used when it passed it: minutes, or agent turns.',
    }),
  }),
);
