/**
 * A serialized chain's step, once its dispatches are journaled (all in one write): the one call, each node's
 * evidence checked in order, and one write that records them (`decideChainResult`): each node recorded up to the
 * first that fails, that one failed, the rest given back; in `node: all` the same write dispatches what follows
 * when every node passed. A crash before that write leaves every node of the chain in flight with one executor:
 * recovery marks each interrupted, and each reruns by its own replay rule.
 */
import { failpoint } from '../../os/crash-failpoint.js';
import { type ChainOutcome, decideChainResult } from '../../protocol/serialized.js';
import { withinAttempt } from '../attempt/attempt.js';
import { recordOrFail, withSoftBounds } from '../attempt/attempt-path.js';
import { unstorableOutcome } from '../attempt/unstorable.js';
import {
  type Dispatched,
  type Following,
  followingDispatch,
  newExecutor,
  nextInRecord,
  type StepSetup,
} from '../dispatch.js';
import { commit } from '../journal-io/commit.js';
import { isoNow } from '../journal-io/read.js';
import { decisionResult, outcomeResult, type StepResult } from '../step-result.js';
import { executeChain } from './run.js';

/** Runs a journaled chain and records its nodes in one write; the last node's result, and those before it. */
export async function runSerialized(
  setup: StepSetup,
  d: Dispatched,
  options: { dispatchNext: boolean },
): Promise<{ result: StepResult; following?: Following; earlier?: StepResult[] }> {
  const { node, attempt, approach, cur } = d;
  const members = d.chain ?? [];
  const all = [{ node: node.id, attempt }, ...members.map((m) => ({ node: m.node.id, attempt: m.attempt }))];
  failpoint('after-dispatch-write', node.id);
  const dispatchedAt = cur.state.nodes.get(node.id)?.dispatch?.at ?? isoNow();
  const say = setup.say ?? (() => {});
  const mark = { node: node.id, attempt, approach: approach.label };
  // The chain's call runs under its first node's soft bounds, as a single node's attempt does (attempt-path.ts).
  const ran = await withSoftBounds(setup, d, (watched) =>
    withinAttempt(watched, mark, () => {
      say(
        `dispatched the serialized chain of session "${node.session?.name}" in one call: ${all.map((c) => `"${c.node}"`).join(', ')}`,
      );
      return executeChain(watched, { ...d, dispatchedAt }, members);
    }),
  );
  failpoint('before-record-write', node.id);
  const nextExecutor = options.dispatchNext ? newExecutor(setup) : undefined;
  const write = (outcomes: ChainOutcome[], alone: boolean) =>
    commit(
      setup,
      d.runner,
      (c) => {
        const chosen = decideChainResult(c, all, outcomes);
        const recordedAll = chosen.recorded === all.length;
        const next =
          nextExecutor && !alone
            ? nextInRecord(setup, c, { events: chosen.events, recordedAll }, nextExecutor)
            : undefined;
        return { ...chosen, next, events: [...chosen.events, ...(next?.events ?? [])] };
      },
      { known: cur },
    );
  // A result the store can never take is recorded as failed, as a single node's is, never left in flight.
  const {
    written: r,
    recorded: outcomes,
    alone,
  } = await recordOrFail(setup, d, ran, {
    write,
    asFailed: (list, why) => list.map((o) => ({ ...o, outcome: unstorableOutcome(o.outcome, why) })),
    unstored: (why) =>
      `the serialized chain ${all.map((c) => `"${c.node}"`).join(', ')} ran, but its results could not be stored (${why}). The journal at ${setup.store.location} is intact and shows each node of the chain in flight, dispatched by this job; the next step's recovery marks each interrupted (each by its own replay rule).`,
  });
  const executor = alone ? undefined : nextExecutor;
  failpoint('after-record-write', node.id);
  const next = r.chosen.next?.decision;
  if (next?.kind === 'dispatch') failpoint('after-chain-write', next.node.id);
  const results = r.chosen.decisions.map((decision, i) =>
    outcomeResult({ ...outcomes[i]!, decision, cur: r.cur }),
  );
  for (const c of all.slice(r.chosen.recorded + 1))
    say(`"${c.node}" goes back to pending: an earlier node of its chain did not pass`);
  const result = results.at(-1)!;
  const earlier = results.slice(0, -1);
  if (!next || !executor) return { result, earlier };
  if (next.kind !== 'dispatch')
    return { result, earlier, following: { result: decisionResult(next, r.cur) } };
  return { result, earlier, following: followingDispatch(next, r.cur, executor) };
}
