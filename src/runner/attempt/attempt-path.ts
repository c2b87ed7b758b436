/**
 * What a single node's attempt and a serialized chain's call share around the work and its record (issue 36:
 * they had drifted): the soft bounds watched while the work runs (passing one journals the node overdue and tells
 * people; nothing is stopped), and a result the store can never take (a journal over the check run's size
 * limit) recorded as failed, saying why, never left in flight for recovery to run again. A chain's call runs
 * under its first node's bounds, as it runs under its first node's env and network.
 */

import type { Dispatched, StepSetup } from '../dispatch.js';
import { storeFailure } from '../journal-io/commit.js';
import { overdueWriter } from '../overdue.js';
import { isPermanentWriteError } from './unstorable.js';

/** Runs the work with the dispatched node's soft bounds watched (its `overdue` in the setup the work gets). */
export async function withSoftBounds<T>(
  setup: StepSetup,
  d: Dispatched,
  work: (setup: StepSetup) => Promise<T>,
): Promise<T> {
  const soft = d.node.soft ? overdueWriter(setup, d) : undefined;
  const out = await work(soft ? { ...setup, overdue: soft.overdue } : setup);
  await soft?.done();
  return out;
}

/** How one result is written, and what it becomes when the store can never take it. */
interface ResultWrite<O, R> {
  /** Writes the result; `alone`: the write carries nothing else (no next dispatch). */
  write: (outcome: O, alone: boolean) => Promise<R>;
  /** The result recorded instead: failed, saying why, without what made it too big. */
  asFailed: (outcome: O, why: string) => O;
  /** What people are told when the result is not stored at all (the node stays in flight). */
  unstored: (why: string) => string;
}

/** Writes the result; one the store can never take is written again as failed, alone. */
export async function recordOrFail<O, R>(
  setup: StepSetup,
  d: Dispatched,
  outcome: O,
  how: ResultWrite<O, R>,
): Promise<{ written: R; recorded: O; alone: boolean }> {
  try {
    return { written: await how.write(outcome, false), recorded: outcome, alone: false };
  } catch (e) {
    if (!isPermanentWriteError(e)) throw storeFailure(e, how.unstored);
    (setup.say ?? (() => {}))(`"${d.node.id}" attempt ${d.attempt}: ${e.message}; recording it as failed`);
    const failed = how.asFailed(outcome, e.message);
    const written = await how.write(failed, true).catch((e2: unknown) => {
      throw storeFailure(e2, how.unstored);
    });
    return { written, recorded: failed, alone: true };
  }
}
