/**
 * The crash matrix's bounded sample (`crashSample`), run for real in parts: each part a test file of its own
 * (crash-matrix.test.ts, crash-matrix-2.test.ts), so that the sample does not hold the suite's critical path in one
 * file. Each part runs its scenarios `concurrency()` at a time against a local GitHub of its own.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { crashSample, type Scenario } from './crash-model.js';
import { runCrashScenarios, type ScenarioResult } from './crash-run.js';

/** How many files the sample is run in. */
export const SAMPLE_PARTS = 2;

/** The sample's scenarios that part `part` runs: every SAMPLE_PARTS-th, from the part's index. */
export function samplePart(part: number): Scenario[] {
  return crashSample().filter((_, i) => i % SAMPLE_PARTS === part);
}

/** Runs part `part` of the sample for real: one test for each of its scenarios, named by its id. */
export function describeSamplePart(part: number): void {
  describe(`a sample of crash scenarios, run for real (part ${part + 1} of ${SAMPLE_PARTS})`, () => {
    const scenarios = samplePart(part);
    let results: ScenarioResult[] = [];
    beforeAll(async () => {
      requireBundle();
      results = await runCrashScenarios(scenarios);
    }, 900_000);

    it.each(scenarios.map((s) => [s.id] as const))('%s', (id) => {
      const r = results.find((x) => x.id === id);
      expect(r, 'the scenario did not run').toBeDefined();
      expect(r!.problems).toEqual([]);
    });
  });
}
