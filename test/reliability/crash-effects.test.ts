// The crash matrix at an effect's requests (test/reliability/crash-effects.ts): the step killed before each
// request of each effect kind, after each answer, and after the whole effect; the next workflow run goes on and
// every effect happened exactly once, with no person asked.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { EFFECT_KINDS, type EffectCrashResult, runEffectCrashes } from './crash-effects.js';

describe('the crash matrix at effect requests', () => {
  let results: EffectCrashResult[] = [];
  beforeAll(async () => {
    requireBundle();
    results = await runEffectCrashes();
  }, 900_000);

  it('kills every effect kind before and after each of its requests, and after the effect', () => {
    for (const kind of EFFECT_KINDS) {
      const mine = results.filter((r) => r.kind === kind);
      // Each point was killed at least at its first request, and its chain ran past the last one.
      for (const point of ['effect:before-request', 'effect:after-request'])
        expect(
          mine.filter((r) => r.failpoint.startsWith(`${point}#`) && r.killed).length,
          `${kind} ${point}`,
        ).toBeGreaterThan(0);
      expect(mine.filter((r) => r.failpoint === 'after-command' && r.killed)).toHaveLength(1);
    }
    const killed = results.filter((r) => r.killed).length;
    console.log(
      `effect crash matrix: ${results.length} scenarios, ${killed} killed at a request or after the effect`,
    );
  });

  it('leaves exactly one commit, pull request, comment and label set, with no person asked', () => {
    const broken = results.filter((r) => r.problems.length).map((r) => `${r.id}: ${r.problems.join('; ')}`);
    expect(broken).toEqual([]);
  });
});
