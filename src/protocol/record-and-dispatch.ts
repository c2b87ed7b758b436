/**
 * `node: all`'s record-and-dispatch write: the write that records a result may also dispatch the next node (or
 * complete the run), so that one write both ends a node and starts the next, the next node's start still
 * journaled before its work. Whether it may is decided here, from the state the result leaves: only after a
 * result that recorded every node it names (a failure is written alone, so a crash right after it leaves the
 * retry ready, not in flight and held), only when no attempt is in flight (recovery, which a whole step runs
 * first, would have nothing to probe), and only while the run goes on. Pure.
 */
import type { NewEvent } from '../journal/events/events.js';
import type { RunnerInfo } from '../journal/events/fields.js';
import type { SameCredentials } from './chain-dispatch.js';
import type { DailyCap } from './daily-cap.js';
import { type Decision, decideNext } from './decide.js';
import { type Run, withEvents } from './run.js';

/** What the record write carries besides the result: the next dispatch or the run's completion. */
export interface NextInRecord {
  decision: Extract<Decision, { kind: 'dispatch' | 'complete' }>;
  events: NewEvent[];
}

/**
 * The next node's dispatch (or the run's completion) to go into the result's own write, or undefined when the
 * result is written alone and a whole step decides what follows.
 */
export function nextInRecordWrite(
  run: Run,
  write: {
    /** The result's events, and whether they record every node the result names. */
    result: { events: NewEvent[]; recordedAll: boolean };
    /** When the write is made: the time the result's events are folded at. */
    at: string;
    /** The runner the next dispatch is journaled for. */
    runner: RunnerInfo;
    sameCredentials?: SameCredentials;
    dailyCap?: DailyCap | undefined;
  },
): NextInRecord | undefined {
  const { result, at, runner, ...opts } = write;
  if (!result.recordedAll) return undefined;
  const after = withEvents(run, result.events, at);
  const cp = after.state.checkpoint;
  if (cp.ended || cp.active_nodes.length) return undefined;
  const decision = decideNext(after, { runner, ...opts });
  return decision.kind === 'dispatch' || decision.kind === 'complete'
    ? { decision, events: decision.events }
    : undefined;
}
