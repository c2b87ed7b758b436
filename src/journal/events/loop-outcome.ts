/** One cycle's outcome, as a loop's escalation report lists it (issue 28). */
import * as z from 'zod';
import { builtOnce } from './built-once.js';

export const CycleOutcome = builtOnce(() =>
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
