// The crash matrix's scenarios of graphs that grow (issue 28), a bounded sample run for real in `npm test`: for a
// `for_each` target and for a sub-graph target (`graph:`), the write of `NodeExpanded` (before and after), then
// the instance's (or the child node's) own dispatch, command and record, and the join's write, each boundary
// once, alternating the CLI and the Action and rotating the replay rule, position, follow-up and outcome.
// `npm run reliability` runs every one of them with the rest of the matrix.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { crashMatrix, EXPAND_BOUNDARIES, JOIN_BOUNDARIES, STEP_BOUNDARIES } from './crash-model.js';
import { runCrashScenarios, type ScenarioResult } from './crash-run.js';

const BOUNDARIES = [...EXPAND_BOUNDARIES, ...STEP_BOUNDARIES, ...JOIN_BOUNDARIES];

describe.each(['for_each', 'subgraph'] as const)('%s crash scenarios, run for real', (feature) => {
  const all = crashMatrix().filter((s) => s.feature === feature);
  const sample = BOUNDARIES.map((b, k) => {
    const face = k % 2 ? 'action' : 'cli';
    const candidates = all.filter((s) => s.boundary === b && s.face === face);
    return candidates[(k * 7) % candidates.length]!;
  });
  let results: ScenarioResult[] = [];
  beforeAll(async () => {
    requireBundle();
    results = await runCrashScenarios(sample);
  }, 600_000);

  it(`the matrix has every ${feature} boundary on both faces, and the sample each boundary once`, () => {
    for (const face of ['cli', 'action'])
      expect(new Set(all.filter((s) => s.face === face).map((s) => s.boundary)).size).toBe(BOUNDARIES.length);
    expect(new Set(sample.map((s) => s.boundary)).size).toBe(BOUNDARIES.length);
  });

  it.each(sample.map((s) => [s.id] as const))('%s', (id) => {
    const r = results.find((x) => x.id === id);
    expect(r, 'the scenario did not run').toBeDefined();
    expect(r!.problems).toEqual([]);
  });
});
