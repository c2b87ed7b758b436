// Crash points, for real: a bounded sample of the crash matrix (every boundary on both faces, rotating the
// replay rule, the node's position, the follow-up and the command's outcome). `npm run reliability` runs all
// of it. Each scenario SIGKILLs the bundled CLI or Action at its boundary, recovers, continues, and checks.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { ALL_BOUNDARIES, crashMatrix, crashSample, type Scenario } from './crash-model.js';
import { runCrashScenarios, type ScenarioResult } from './crash-run.js';

describe('the crash matrix', () => {
  it('holds at least 300 distinct scenarios over every boundary, rule, face, position, follow-up and outcome', () => {
    const all = crashMatrix();
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(300);
    const values = (k: keyof Scenario) => [...new Set(all.map((s) => s[k]))].sort();
    expect(values('boundary')).toEqual([...ALL_BOUNDARIES].sort());
    expect(values('replay')).toEqual(['never', 'safe']);
    expect(values('face')).toEqual(['action', 'cli']);
    expect(values('position')).toEqual([0, 1, 2]);
    expect(values('follow')).toEqual(['approve-rerun', 'recover-then-run', 'run', 'settle']);
    expect(values('outcome')).toEqual(['fail-once', 'pass']);
  });
});

describe('a sample of crash scenarios, run for real', () => {
  const sample = crashSample();
  let results: ScenarioResult[] = [];
  beforeAll(async () => {
    requireBundle();
    results = await runCrashScenarios(sample);
  }, 600_000);

  it('covers every boundary on each face that has it, and every value of every other dimension', () => {
    expect(new Set(sample.map((s) => s.boundary)).size).toBe(ALL_BOUNDARIES.length);
    for (const k of ['replay', 'position', 'follow', 'outcome'] as const)
      expect(new Set(sample.map((s) => s[k])).size).toBe(new Set(crashMatrix().map((s) => s[k])).size);
  });

  it.each(sample.map((s) => [s.id] as const))('%s', (id) => {
    const r = results.find((x) => x.id === id);
    expect(r, 'the scenario did not run').toBeDefined();
    expect(r!.problems).toEqual([]);
  });
});
