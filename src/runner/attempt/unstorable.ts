/**
 * A result the store refuses for a reason that will not go away (a journal over the check run's size limit):
 * the attempt is recorded as failed with that reason and without what made it too big, never left in flight,
 * so no later step recovers it as interrupted and runs it again.
 */
import type { AttemptOutcome } from '../../protocol/decide.js';
import { JournalTooLarge } from '../../store/check-run.js';

/** Whether writing again can never succeed with the same events (and so the result must shrink). */
export function isPermanentWriteError(e: unknown): e is Error {
  return e instanceof JournalTooLarge;
}

/** The outcome to record instead: failed, saying why, with its outputs, evidence details and log tail dropped. */
export function unstorableOutcome(outcome: AttemptOutcome, why: string): AttemptOutcome {
  const dropped = Object.keys(outcome.outputs);
  const lost = dropped.length ? `; its outputs (${dropped.join(', ')}) were dropped` : '';
  return {
    failures: [
      { check: 'journal', message: `the attempt's result could not be stored: ${why}${lost}` },
      ...outcome.failures.map((f) => ({ check: f.check, message: f.message.slice(0, 500) })),
    ],
    evidence: [],
    outputs: {},
    usage: outcome.usage,
  };
}
