// The check-run store raced for real (races-check-run.ts): 4 bundled Action steps on one run of one pull request.
// Split from races.test.ts so that no one file holds the suite's critical path; `npm run reliability` runs 2, 4
// and 8 writers on the default clock.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { checkRunStoreRace } from './races-check-run.js';

beforeAll(() => requireBundle());

describe('the check-run store, which has no compare-and-swap: 4 Action steps on one run of one pull request', () => {
  // On the order clock (test/support/clock.ts): the race is about order, not time.
  it('a lost update is never silent: whatever was lost or run twice, a step failed saying so; the run can be finished', async () => {
    const r = await checkRunStoreRace(4, 4, { secondaryLimit: false, ...ORDER_CLOCK });
    expect(r.problems).toEqual([]);
    expect(r.otherFailures).toBe(0);
    console.info(
      `check-run store, ${r.writers} Action steps: ${r.events} events, ${r.ranTwice} ran twice, ${r.lostDispatches} dispatches lost, ${r.unrecorded} unrecorded, ${r.detected} steps reported a lost update, finished ${r.finishedAs}, ${r.ms} ms`,
    );
  }, 300_000);
});
