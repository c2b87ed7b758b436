// A for_each fan-out raced for real (races-matrix.ts): 20 instance jobs of one workflow run at once, each the
// bundled Action. Split from races.test.ts so that no one file holds the suite's critical path.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { matrixRace } from './races-matrix.js';

beforeAll(() => requireBundle());

describe('a for_each fan-out: 20 instance jobs of one workflow run at once (node: w[wK] each, the bundled Action)', () => {
  // On the order clock (test/support/clock.ts): the race is about order, not time.
  it('no lost event, no instance dispatched twice or taken for interrupted; the join runs once', async () => {
    const r = await matrixRace(20, { forEach: true, likeGitHub: { secondaryLimit: false, ...ORDER_CLOCK } });
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ lost: 0, doubleDispatched: 0, failedSteps: 0 });
    expect(r.conflicts, 'no 409/422 from the contents API: the jobs never raced').toBeGreaterThan(0);
    console.info(
      `for_each matrix of ${r.jobs} instance jobs: ${r.events} events, ${r.conflicts} conflicts, ${r.requests} requests (${(r.requests / r.jobs).toFixed(1)} a job)`,
    );
  }, 300_000);
});
