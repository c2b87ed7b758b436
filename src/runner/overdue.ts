/**
 * Soft bounds while an attempt runs: when it passes one, `NodeOverdue` is journaled (a compare-and-swap write of
 * its own; nothing is written if the attempt is no longer in flight) and the face is told, so people hear of it
 * (the CLI prints it; the Action updates the progress comment, comments and labels). The attempt goes on.
 */
import type { NewEvent } from '../journal/events/events.js';
import { attemptInFlight } from '../journal/state.js';
import type { Overdue } from './attempt/soft-timer.js';
import type { Dispatched, StepSetup } from './dispatch.js';
import { commit } from './journal-io/commit.js';
import type { RunSnapshot } from './journal-io/read.js';

/** What a face is told about an overdue attempt. */
export interface OverdueNotice {
  cur: RunSnapshot;
  node: string;
  attempt: number;
  message: string;
}

/** The notice in words. */
function overdueWords(d: Pick<Dispatched, 'node' | 'attempt' | 'approach'>, o: Overdue): string {
  const used = o.bound === 'soft_turns' ? `${o.observed} turns` : `${o.observed} minutes`;
  return `"${d.node.id}" attempt ${d.attempt} is overdue: ${used}, past its ${o.bound} of ${o.limit}. It goes on until its hard limits (timeout_minutes ${d.approach.timeout_minutes}${d.node.budget ? ', its budget' : ''}); a person may /fail-run the run, or wait.`;
}

/** The `overdue` hook of one attempt, and the promise of its writes (awaited before the attempt's result). */
export function overdueWriter(
  setup: StepSetup,
  d: Dispatched,
): { overdue: (o: Overdue) => void; done: () => Promise<void> } {
  let writes: Promise<void> = Promise.resolve();
  const say = setup.say ?? (() => {});
  const write = async (o: Overdue) => {
    const event: NewEvent = { type: 'NodeOverdue', node: d.node.id, attempt: d.attempt, ...o };
    const r = await commit(setup, d.runner, (cur) => {
      const p = cur.state.nodes.get(d.node.id);
      const live = attemptInFlight(p, d.attempt) && !cur.state.checkpoint.ended;
      return { events: live ? [event] : [] };
    });
    if (!r.chosen.events.length) return;
    const message = overdueWords(d, o);
    say(message);
    await setup.overdueNotice?.({ cur: r.cur, node: d.node.id, attempt: d.attempt, message });
  };
  return {
    overdue: (o) => {
      writes = writes
        .then(() => write(o))
        .catch((e: unknown) =>
          say(`"${d.node.id}" is overdue, but that could not be journaled: ${(e as Error).message}`),
        );
    },
    done: () => writes,
  };
}
