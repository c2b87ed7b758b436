/**
 * One step of the protocol: recover and decide in one write, dispatch (journaled before the work; dispatch.ts),
 * run the attempt, record its result. The record may carry the next node's dispatch (see `nextInRecord`), so that
 * in `node: all` one write both ends a node and starts the next.
 */
import { failpoint } from '../os/crash-failpoint.js';
import { type AttemptOutcome, decideResult } from '../protocol/decide.js';
import { executeAttempt, withinAttempt } from './attempt/attempt.js';
import { recordOrFail, withSoftBounds } from './attempt/attempt-path.js';
import { unstorableOutcome } from './attempt/unstorable.js';
import {
  type Dispatched,
  type Following,
  followingDispatch,
  newExecutor,
  nextInRecord,
  type StepSetup,
} from './dispatch.js';
import { commit } from './journal-io/commit.js';
import { isoNow } from './journal-io/read.js';
import { recordLineUpMs } from './planned-step.js';
import { decisionResult, outcomeResult, type StepResult, unstoredResult } from './step-result.js';

/** Runs a journaled dispatch and records its result; with `dispatchNext`, the same write dispatches the next node. */
export async function runDispatched(
  setup: StepSetup,
  d: Dispatched,
  options: { dispatchNext: boolean },
): Promise<{ result: StepResult; following?: Following; earlier?: StepResult[] }> {
  if (d.chain?.length) return (await import('./serialized/step.js')).runSerialized(setup, d, options);
  const { node, attempt, approach, cur } = d;
  failpoint('after-dispatch-write', node.id);
  const dispatchedAt = cur.state.nodes.get(node.id)?.dispatch?.at ?? isoNow();
  const mark = { node: node.id, attempt, approach: approach.label };
  const outcome = await withSoftBounds(setup, d, (watched) =>
    withinAttempt(watched, mark, () => {
      (watched.say ?? (() => {}))(
        `dispatched "${node.id}" attempt ${attempt} (${approach.label}${approach.description ? `: ${approach.description}` : ''})`,
      );
      return executeAttempt(watched, { ...d, dispatchedAt });
    }),
  );
  failpoint('before-record-write', node.id);
  const nextExecutor = options.dispatchNext ? newExecutor(setup) : undefined;
  const {
    written: r,
    recorded,
    alone,
  } = await recordOrFail(setup, d, outcome, {
    write: (o, alone) => recordResult(setup, d, o, alone ? undefined : nextExecutor),
    asFailed: unstorableOutcome,
    unstored: (why) => unstoredResult(setup.store.location, d, outcome, why),
  });
  const executor = alone ? undefined : nextExecutor;
  failpoint('after-record-write', node.id);
  if (r.chosen.next?.decision.kind === 'dispatch')
    failpoint('after-chain-write', r.chosen.next.decision.node.id);
  const result = outcomeResult({
    node: node.id,
    attempt,
    outcome: recorded,
    decision: r.chosen.result,
    cur: r.cur,
  });
  const next = r.chosen.next?.decision;
  if (!next || !executor) return { result };
  if (next.kind !== 'dispatch') return { result, following: { result: decisionResult(next, r.cur) } };
  return { result, following: followingDispatch(next, r.cur, executor) };
}

/**
 * One write for the result: from the state the dispatch write left, re-reading only on a conflict. A node a plan
 * dispatched with its wave first waits for its place in the wave's line-up (planned-step.ts).
 */
async function recordResult(
  setup: StepSetup,
  d: Dispatched,
  outcome: AttemptOutcome,
  executor: ReturnType<typeof newExecutor> | undefined,
) {
  const { node, attempt, cur } = d;
  const place = recordLineUpMs(cur, node.id, setup.lineUpSlotMs);
  if (place > 0) await new Promise((res) => setTimeout(res, place));
  return commit(
    setup,
    d.runner,
    (c) => {
      const result = decideResult(c, { node: node.id, attempt, outcome });
      const recordedAll = result.kind === 'write' && result.recorded === true;
      const next = executor
        ? nextInRecord(setup, c, { events: result.events, recordedAll }, executor)
        : undefined;
      return { result, next, events: [...result.events, ...(next?.events ?? [])] };
    },
    // The state the dispatch left is worth writing on only when no other node was in flight: else the others'
    // jobs have most likely written since (a matrix), and a write on it would be refused (two requests, not one).
    cur.state.checkpoint.active_nodes.every((n) => n === node.id) ? { known: cur } : {},
  );
}
