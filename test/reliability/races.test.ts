// Races with real processes on one journal: CLI processes on the file store, Action steps on the git store.
// Bounded here; `npm run reliability` runs 32 writers on each.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { fileStoreRace, gitStoreRace } from './races.js';
import { checkRunStoreRace } from './races-check-run.js';
import { matrixRace } from './races-matrix.js';

const WRITERS = 12;

beforeAll(() => requireBundle());

describe(`${WRITERS} writers on one journal`, () => {
  it('file store (CLI processes): no lost event, no node dispatched twice; conflicts are counted', async () => {
    const r = await fileStoreRace(WRITERS);
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ lost: 0, doubleDispatched: 0, failedWriters: 0 });
    // A race that met no conflict proved nothing: some write must have found the journal moved on.
    expect(r.conflicts, 'no compare-and-swap conflict: the writers never raced').toBeGreaterThan(0);
    console.info(
      `file store, ${r.writers} CLI processes: ${r.events} events, ${r.writes} writes, ${r.conflicts} compare-and-swap conflicts, ${r.lockWaits} lock waits, ${r.ms} ms`,
    );
  }, 300_000);

  it('git store (Action steps): no lost event, no node dispatched twice; conflicts are counted', async () => {
    const r = await gitStoreRace(WRITERS);
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ lost: 0, doubleDispatched: 0, failedWriters: 0 });
    expect(r.conflicts, 'no 409/422 from the contents API: the steps never raced').toBeGreaterThan(0);
    console.info(
      `git store, ${r.writers} Action steps: ${r.events} events, ${r.writes} writes, ${r.conflicts} conflicts (409/422), ${r.reads} reads, ${r.ms} ms`,
    );
  }, 300_000);
});

describe('a matrix fan-out: 20 node jobs of one workflow run at once (node: <name> each, the bundled Action)', () => {
  // Under the like-GitHub model's stale reads and raced writes (the world's default). Its secondary limit is off
  // here: one run's jobs refused past 80 content-creating requests a minute is the pacing of issue 35, measured
  // by INTERLOCK_RACE_LIMIT=1 below and by `npm run bench`.
  it('no lost event, no node dispatched twice or taken for interrupted; one listing of the jobs per step at most', async () => {
    const r = await matrixRace(20);
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ lost: 0, doubleDispatched: 0, failedSteps: 0 });
    expect(r.conflicts, 'no 409/422 from the contents API: the jobs never raced').toBeGreaterThan(0);
    // Every job sees the others in flight: recovery lists the run attempt's jobs once a step, not per node per retry.
    expect(r.jobListings).toBeLessThanOrEqual(r.jobs);
    console.info(
      `matrix of ${r.jobs} jobs: ${r.events} events, ${r.conflicts} conflicts, ${r.jobListings} listings of the jobs, ${r.requests} requests (${(r.requests / r.jobs).toFixed(1)} a job), ${r.writes} content-creating; like-GitHub model: ${r.model.staleAnswers} stale answers, ${r.model.racedWrites} raced writes, ${r.model.limited} refused by a secondary limit; ${r.ms} ms`,
    );
  }, 300_000);
});

// The whole model, the secondary limit with it (jobs wait retry-after as GitHub asks: a minute and more): not in CI.
// Today some jobs exhaust their retries and fail, saying so; the expectation is that nothing is lost silently.
describe.runIf(process.env.INTERLOCK_RACE_LIMIT === '1')(
  'the same matrix under the secondary limit too',
  () => {
    it('nothing is lost or run twice without a job saying so; the jobs the limit stopped are counted', async () => {
      const r = await matrixRace(20, { likeGitHub: {} });
      console.info(
        `matrix of ${r.jobs} jobs under the whole model: ${r.jobs - r.failedSteps} of ${r.jobs} completed, ${r.requests} requests (${(r.requests / r.jobs).toFixed(1)} a job), ${r.writes} content-creating, ${r.model.limited} refused by the secondary limit, ${r.model.staleAnswers} stale answers, ${r.ms} ms`,
      );
      // A job the limit stopped said so and exited; its node is then in flight, and the join's recovery marks it
      // interrupted (its job is gone) and leaves the run waiting for a person.
      const explained =
        /exited 1: .*secondary rate limit|dispatched 0 times|ran 0 times|side effects for|RunCompleted|lack their NodeRecorded|the join ended|taken for interrupted/;
      expect(r.problems.filter((p) => !explained.test(p))).toEqual([]);
      expect(r.doubleDispatched).toBe(0);
    }, 600_000);
  },
);

describe('a for_each fan-out: 20 instance jobs of one workflow run at once (node: w[wK] each, the bundled Action)', () => {
  it('no lost event, no instance dispatched twice or taken for interrupted; the join runs once', async () => {
    const r = await matrixRace(20, { forEach: true });
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ lost: 0, doubleDispatched: 0, failedSteps: 0 });
    expect(r.conflicts, 'no 409/422 from the contents API: the jobs never raced').toBeGreaterThan(0);
    console.info(
      `for_each matrix of ${r.jobs} instance jobs: ${r.events} events, ${r.conflicts} conflicts, ${r.requests} requests (${(r.requests / r.jobs).toFixed(1)} a job)`,
    );
  }, 300_000);
});

describe('the check-run store, which has no compare-and-swap: 4 Action steps on one run of one pull request', () => {
  it('a lost update is never silent: whatever was lost or run twice, a step failed saying so; the run can be finished', async () => {
    const r = await checkRunStoreRace(4);
    expect(r.problems).toEqual([]);
    expect(r.otherFailures).toBe(0);
    console.info(
      `check-run store, ${r.writers} Action steps: ${r.events} events, ${r.ranTwice} ran twice, ${r.lostDispatches} dispatches lost, ${r.unrecorded} unrecorded, ${r.detected} steps reported a lost update, finished ${r.finishedAs}, ${r.ms} ms`,
    );
  }, 300_000);
});
