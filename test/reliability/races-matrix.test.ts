// A matrix fan-out raced for real (races-matrix.ts): 20 node jobs of one workflow run at once, each the bundled
// Action with a checkout of its own. Split from races.test.ts so that no one file holds the suite's critical path.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { matrixRace } from './races-matrix.js';

beforeAll(() => requireBundle());

describe('a matrix fan-out: 20 node jobs of one workflow run at once (node: <name> each, the bundled Action)', () => {
  // Under the like-GitHub model's stale reads and raced writes, on the order clock (test/support/clock.ts): the race
  // is about order, and every write still races, every stale read still answers from the past. Its secondary limit
  // is off here: one run's jobs refused past 80 content-creating requests a minute is the pacing of issue 35,
  // measured by INTERLOCK_RACE_LIMIT=1 below and by `npm run bench`.
  it('no lost event, no node dispatched twice or taken for interrupted; one listing of the jobs per step at most', async () => {
    const r = await matrixRace(20, { likeGitHub: { secondaryLimit: false, ...ORDER_CLOCK } });
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

// The whole model on the default clock, the secondary limit with it (jobs wait retry-after as GitHub asks: a minute
// and more): not in CI. Today some jobs exhaust their retries and fail, saying so; the expectation is that nothing is
// lost silently.
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
