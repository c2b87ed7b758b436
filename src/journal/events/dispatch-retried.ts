/**
 * The second dispatch of the workflow a person's approval or settlement called for (issues 50 and 45), by the App or
 * a re-run `mode: comment` job: written, through the compare-and-swap, before it dispatches again, when the first
 * dispatch left no workflow run (the process that journaled the command died before dispatching). The write is the
 * claim: of many copies of the command, the one whose write lands dispatches; the others find it and do nothing.
 */
import * as z from 'zod';
import { builtOnce } from '../../graph/built-once.js';
import { EVENT_BASE } from './fields.js';

export const WorkflowDispatchRetried = builtOnce(() =>
  z.strictObject({
    ...EVENT_BASE,
    type: z.literal('WorkflowDispatchRetried'),
    source: z.string().min(1).register(z.globalRegistry, {
      description:
        "The command whose dispatch this retries: an approval's `source`, as its `NodeApproved`, `RerunApproved` or `RerunFromApproved` holds it, or the delivery a person's `NodeRecorded` (`/settle`) names at the end of its evidence (`… (<source>)`).",
    }),
    workflow: z.string().min(1).register(z.globalRegistry, {
      description: 'The workflow file dispatched again (`.github/workflows/<workflow>`).',
    }),
    since: z.string().min(1).register(z.globalRegistry, {
      description:
        'The time from which no workflow run of that workflow was found (the approval, or the last retry): ISO 8601.',
    }),
  }),
);
