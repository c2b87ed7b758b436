/**
 * The dispatch half of a step: recovery and the dispatch decision in one read and one write, stored before any
 * work; and the next node's dispatch carried by a result's write (`nextInRecord`). What runs a dispatched attempt
 * and records it is in step.ts; a serialized chain's step (serialized/step.ts) uses this half too.
 */

import { randomUUID } from 'node:crypto';
import { gitHead } from '../evidence/local.js';
import type { NewEvent } from '../journal/events/events.js';
import type { RunnerInfo } from '../journal/events/fields.js';
import { failpoint } from '../os/crash-failpoint.js';
import { sameCredentialsUnder } from '../os/node-user/node-credentials.js';
import type { ChainMember } from '../protocol/chain-dispatch.js';
import { type Decision, decideNext } from '../protocol/decide.js';
import { type NextInRecord, nextInRecordWrite } from '../protocol/record-and-dispatch.js';
import { withEvents } from '../protocol/run.js';
import { afterInterruptionOf, recoveryWords } from '../render/recovery-words.js';
import type { AttemptOptions, AttemptSetup } from './attempt/attempt.js';
import { type DailyCapSource, dailyCapCounted, dailyCapNow } from './daily-cap.js';
import { decisionFailpoint } from './decision-failpoint.js';
import { withEffectMark } from './effects/secret.js';
import { commit, storeFailure } from './journal-io/commit.js';
import { isoNow, type RunSnapshot } from './journal-io/read.js';
import type { OverdueNotice } from './overdue.js';
import { claimPlanned, type PlannedSetup, plannedRead } from './planned-step.js';
import { type RecoverySetup, recoveryFor, stepProbe, withDependencies } from './recovery/recover.js';
import { decisionResult, type StepResult } from './step-result.js';

export interface StepSetup extends RecoverySetup, AttemptSetup {
  /** Progress messages for people. */
  say?: (message: string) => void;
  /** Shows people that an attempt passed a soft bound, once `NodeOverdue` is journaled (the Action: comments). */
  overdueNotice?: (n: OverdueNotice) => Promise<void> | void;
  /** The repository's daily cost cap (`budget.daily_usd`) and how this face counts other runs' spend; absent: none. */
  dailyCap?: DailyCapSource;
  /** A matrix job that may take the dispatch its plan journaled for it (`dispatch: ready`; planned-step.ts). */
  planned?: PlannedSetup;
}

/** A dispatch this process journaled and has not run yet: the attempt, and the executor that runs it. */
export interface Dispatched extends Omit<AttemptOptions, 'dispatchedAt'> {
  runner: RunnerInfo;
  /** A serialized chain's nodes after this one, dispatched in the same write and done in the same call. */
  chain?: ChainMember[];
}

/** What follows a recorded result in `node: all`: a dispatch already journaled, or a result already decided. */
export type Following = { dispatched: Dispatched } | { result: StepResult };

/** The runner of a new attempt: its execution tag, and the commit checked out when it is dispatched. */
export function newExecutor(setup: StepSetup): {
  execTag: string;
  runner: RunnerInfo;
  gitBase: string | undefined;
} {
  const execTag = randomUUID();
  return { execTag, runner: setup.runner(execTag), gitBase: gitHead(setup.cwd) };
}

function withGitBase(runner: RunnerInfo, gitBase: string | undefined): RunnerInfo {
  return { ...runner, ...(gitBase ? { git_head: gitBase } : {}) };
}

/** Whether a decision is journaled (a dispatch, a skip, the run's completion, a failed pre-check, a budget escalation). */
function writes(d: Decision): d is Exclude<Decision, { kind: 'ended' | 'blocked' }> {
  return d.kind !== 'ended' && d.kind !== 'blocked';
}

/** A dispatch of an effect node where no GitHub client is given (the CLI): refused, so no attempt is spent. */
function needsGitHub(setup: StepSetup, decision: Decision): string | undefined {
  return decision.kind === 'dispatch' && decision.node.effect !== undefined && !setup.github
    ? decision.node.id
    : undefined;
}

/** Recovery and the dispatch decision in one read and one write; the dispatch is stored before any work. */
export async function dispatchStep(setup: StepSetup, only?: string): Promise<Following> {
  const say = setup.say ?? (() => {});
  let executor: ReturnType<typeof newExecutor> | undefined;
  const execTag = randomUUID();
  const runner = setup.runner(execTag);
  failpoint('before-dispatch-write');
  let planned: { node: string; attempt: number; replay: string } | undefined;
  // One probe for every try of this commit: a conflict re-reads and decides again without asking GitHub again.
  const probe = stepProbe(setup);
  // A step for one node (a matrix job) recovers only that node and what it depends on: its siblings' jobs are
  // not its to ask about (the plan before the next batch, or a `node: next` or `all` step, recovers them).
  const scope = only ? withDependencies(setup.graph, only) : undefined;
  // Counted before the write (it may read the store), once per step and day; no cap configured, nothing read.
  const dailyCap = await dailyCapNow(setup);
  const d = await commit(
    setup,
    runner,
    async (cur) => {
      // A plan's dispatch for this job (`dispatch: ready`): taken as it stands, nothing written before the work.
      const mine = claimPlanned(setup.planned, setup, cur, only);
      if (mine) {
        executor = mine.executor;
        return { decision: mine.decision as Decision, recovered: [], left: [], events: [], exact: true };
      }
      const rec = await recoveryFor(setup, cur, probe, scope);
      // Recovery's events are folded onto the state read; the decision is taken on the run they leave.
      const run = withEvents(cur, rec.events, (setup.now ?? isoNow)());
      executor ??= { execTag, runner, gitBase: gitHead(setup.cwd) };
      const decision = withEffectMark(
        decideNext(run, {
          runner: withGitBase(runner, executor.gitBase),
          only,
          sameCredentials: sameCredentialsUnder(setup.isolation.credentials),
          dailyCap,
        }),
      );
      // An effect acts through GitHub's API: where there is none (the CLI), it is refused before its dispatch.
      if (needsGitHub(setup, decision))
        return { decision, recovered: rec.events, left: rec.left, events: rec.events };
      planned =
        decision.kind === 'dispatch'
          ? { node: decision.node.id, attempt: decision.attempt, replay: decision.node.replay }
          : undefined;
      if (decision.kind === 'dispatch') failpoint('before-dispatch-write', decision.node.id);
      decisionFailpoint('before', decision);
      const events = [...rec.events, ...(writes(decision) ? decision.events : [])];
      return { decision, recovered: rec.events, left: rec.left, events };
    },
    // A step for one node is most likely a matrix job, started with its siblings: it lines up with them.
    { create: true, lineUp: only !== undefined, ...plannedRead(setup.planned, only) },
  ).catch((e: unknown) => {
    throw storeFailure(
      e,
      (why) =>
        `${setup.store.location}: this step could not read the journal, recover, or store its dispatch (${why}), so no node ran in it. The journal is intact (every write is a whole compare-and-swap)${planned ? `: as it was, or, if the last write landed although its answer was lost, with "${planned.node}" attempt ${planned.attempt} dispatched by this job, which the next step's recovery marks interrupted (${afterInterruptionOf(planned.replay)})` : ''}. Run the step again when GitHub answers.`,
    );
  });
  decisionFailpoint('after', d.chosen.decision);
  for (const l of d.chosen.left) say(`"${l.node}" is in flight and left alone: ${l.why}`);
  for (const e of d.chosen.recovered) {
    if (e.type !== 'NodeInterrupted') continue;
    say(`recovered: ${recoveryWords(d.cur.state, e.node, { attempt: e.attempt })}`);
  }
  return following(setup, d.cur, d.chosen.decision, executor);
}

/** What the step does after its dispatch write: the dispatched attempt, or what the decision says instead. */
async function following(
  setup: StepSetup,
  cur: RunSnapshot,
  decision: Decision,
  executor: ReturnType<typeof newExecutor> | undefined,
): Promise<Following> {
  const effect = needsGitHub(setup, decision);
  // The effects and the serialized chain are loaded when a step enters them (docs/ARCHITECTURE.md, "Loading").
  if (effect)
    return {
      result: {
        kind: 'blocked',
        cur,
        message: (await import('./effects/effect.js')).effectNeedsGitHub(effect),
      },
    };
  if (decision.kind !== 'dispatch') return { result: decisionResult(decision, cur) };
  return followingDispatch(decision, cur, executor!);
}

/**
 * The next node's dispatch (or the run's completion) for the result's own write, as `nextInRecordWrite` in
 * src/protocol/record-and-dispatch.ts decides it; the crash tests' failpoints mark the write it joins.
 */
export function nextInRecord(
  setup: StepSetup,
  cur: RunSnapshot,
  result: { events: NewEvent[]; recordedAll: boolean },
  executor: ReturnType<typeof newExecutor>,
): NextInRecord | undefined {
  const dailyCap = dailyCapCounted(setup);
  if (dailyCap === 'recount') return undefined;
  const runner = withGitBase(executor.runner, executor.gitBase);
  const at = (setup.now ?? isoNow)();
  const sameCredentials = sameCredentialsUnder(setup.isolation.credentials);
  const next = nextInRecordWrite(cur, { result, at, runner, sameCredentials, dailyCap });
  if (!next) return undefined;
  const decision = withEffectMark(next.decision);
  // Left to a whole step, which refuses it (dispatchStep).
  if (needsGitHub(setup, decision) || (decision.kind !== 'dispatch' && decision.kind !== 'complete'))
    return undefined;
  if (decision.kind === 'dispatch') {
    failpoint('before-dispatch-write', decision.node.id);
    failpoint('before-chain-write', decision.node.id);
  }
  return { decision, events: decision.events };
}

/** The dispatch a result's write carried (the record-and-dispatch write), ready to run. */
export function followingDispatch(
  next: Extract<Decision, { kind: 'dispatch' }>,
  cur: RunSnapshot,
  executor: ReturnType<typeof newExecutor>,
): Following {
  const { node, attempt, approach, context, chain } = next;
  return { dispatched: { cur, node, attempt, approach, context, ...executor, ...(chain ? { chain } : {}) } };
}
