/**
 * Every step says what happened, whatever happened: a `status` output and a job summary, even when a mode
 * returned without them or the step threw. Wraps the step's `ActionIO` to see what was already reported.
 */
import type { ActionIO, ActionResult } from '../context/context.js';
import type { AnyActionStatus } from './status.js';

interface StepReport {
  io: ActionIO;
  /** Sets `status` and writes a summary if the step did not, from its result or the error that ended it. */
  finish(outcome: { result: ActionResult } | { error: Error }): Promise<void>;
}

/**
 * Writes a step's outputs: the one place the Action sets any, in every mode (the `status` values are
 * ACTION_STATUSES in status.ts). Returns them, for the step's result.
 */
export function writeOutputs(io: ActionIO, outputs: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(outputs)) io.setOutput(name, value);
  return outputs;
}

/** A short job summary for a step that ended without one of its own. */
export function fallbackSummary(status: string, message: string | undefined): string {
  return ['### interlock', '', `status: \`${status}\``, ...(message ? ['', message] : [])].join('\n');
}

export function reportingIO(io: ActionIO): StepReport {
  let status: string | undefined;
  let summarized = false;
  const tracked: ActionIO = {
    ...io,
    setOutput: (name, value) => {
      if (name === 'status') status = value;
      io.setOutput(name, value);
    },
    summary: async (md) => {
      summarized = true;
      await io.summary(md);
    },
  };
  return {
    io: tracked,
    async finish(outcome) {
      const failed: AnyActionStatus = 'failed';
      const message = 'error' in outcome ? `interlock: ${outcome.error.message}` : outcome.result.failed;
      if (status === undefined) {
        const given = 'result' in outcome ? outcome.result.outputs.status : undefined;
        status = given ?? failed;
        writeOutputs(io, { status });
      }
      if (!summarized) await io.summary(fallbackSummary(status, message));
    },
  };
}
