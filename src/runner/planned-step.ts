/**
 * A matrix job's side of a plan's wave (issue 35, protocol/plan-wave.ts): the job takes the dispatch the plan
 * journaled for it, so its one write is its record; and that record is paced by the place the plan gave it.
 */

import { gitHead } from '../evidence/local.js';
import type { Journal, NewEvent } from '../journal/events/events.js';
import type { RunnerInfo } from '../journal/events/fields.js';
import type { Isolation } from '../os/isolation.js';
import { sameCredentialsUnder } from '../os/node-user/node-credentials.js';
import type { Decision } from '../protocol/decide.js';
import { lastDispatchAt, plannedDecision, type WaveRun } from '../protocol/plan-wave.js';
import { lineUpWait, plannedWave } from './journal-io/pacing.js';
import type { ReadFold, RunSnapshot } from './journal-io/read.js';

/** What a step needs to take a plan's dispatch: given by the Action to `node: <id>` steps. */
export interface PlannedSetup {
  /** The commit of the plan's write (the `journal-sha` input): the step's first read is exact there. */
  at?: string;
  /** This job's workflow run attempt: only a plan of the same attempt dispatched for it. */
  run: WaveRun;
  /**
   * Takes the dispatch of `node`'s `attempt` for this job, once: false when an earlier step of this job took it
   * (that step's work may have begun, so it is never begun again here: recovery decides).
   */
  claim: (node: string, attempt: number) => boolean;
}

/**
 * How a `node: <id>` step under a plan reads: first at the plan's write (exact), and keeping on the way the state
 * of the journal before the node's dispatch, which `plannedDecision` decides again on (no second fold of it).
 */
export function plannedRead(
  planned: PlannedSetup | undefined,
  only: string | undefined,
): { at?: string; fold?: ReadFold } {
  if (!planned || only === undefined) return {};
  const fold = { prefixAt: (j: Journal) => lastDispatchAt(j, only) };
  return planned.at ? { at: planned.at, fold } : { fold };
}

/** The dispatch a plan journaled for this job, taken: the decision to run, and the executor the journal names. */
export function claimPlanned(
  planned: PlannedSetup | undefined,
  setup: { cwd: string; isolation: Isolation },
  cur: RunSnapshot,
  only: string | undefined,
):
  | {
      decision: Extract<Decision, { kind: 'dispatch' }>;
      executor: { execTag: string; runner: RunnerInfo; gitBase: string | undefined };
    }
  | undefined {
  if (!planned || only === undefined || cur.version === null) return undefined;
  const sameCredentials = sameCredentialsUnder(setup.isolation.credentials);
  const prefix = cur.prefix ? { prefix: cur.prefix } : {};
  const decision = plannedDecision(cur, { node: only, wave: planned.run, sameCredentials, ...prefix });
  const runner = cur.state.nodes.get(only)?.dispatch?.runner;
  if (!decision || !runner || !planned.claim(only, decision.attempt)) return undefined;
  const execTag = typeof runner.exec_tag === 'string' ? runner.exec_tag : `planned-${only}`;
  return { decision, executor: { execTag, runner, gitBase: gitHead(setup.cwd) } };
}

/**
 * How long a record waits for its place in the plan's line-up (pacing.ts), counted before it reads: the wave's
 * records spread over the line-up's cycle instead of twenty arriving at once. 0 for a node no plan placed.
 */
export function recordLineUpMs(
  cur: RunSnapshot,
  node: string,
  slotMs: number | undefined,
  now = Date.now(),
): number {
  const events = [{ type: 'NodeRecorded', node } as unknown as NewEvent];
  return plannedWave(cur.state, events) ? lineUpWait(cur, events, { roundTripMs: 0, slotMs }, now) : 0;
}
