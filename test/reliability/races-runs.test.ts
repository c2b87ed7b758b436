// Runs started at once under the like-GitHub model (issue 35): three, then ten, each one job (`node: all`, three
// nodes) of the bundled Action. Each run writes its own branch, so no run's write is refused by another's.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { runsAtOnce } from './races-runs.js';

beforeAll(() => requireBundle());

describe('runs started at once, under the like-GitHub model', () => {
  for (const n of [3, 10])
    it(`${n} runs: every one completes, each node recorded once and run once`, async () => {
      const r = await runsAtOnce(n);
      expect(r.problems).toEqual([]);
      expect(r).toMatchObject({ completed: n, failedSteps: 0, lost: 0, doubleDispatched: 0 });
      console.info(
        `${n} runs at once: ${r.requests} requests (${(r.requests / n).toFixed(1)} a run), ${r.creating} content-creating, ${r.conflicts} journal writes refused, ${r.staleAnswers} stale answers, ${(r.ms / 1000).toFixed(1)} s`,
      );
    }, 180_000);
});
