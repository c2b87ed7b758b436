// Crash points, for real: a bounded sample of the crash matrix (every boundary on every face and store that has
// it, rotating the feature, the replay rule, the node's position, the follow-up and the command's outcome).
// `npm run reliability` runs all of it. Each scenario SIGKILLs the bundled CLI, the Action or the App server at
// its boundary, carries the run on as people would, and checks what it left.
import { describe, expect, it } from 'vitest';
import { writeLost } from './crash-expect.js';
import { ALL_BOUNDARIES, crashMatrix, crashSample, type Scenario } from './crash-model.js';
import { stepFailpoint } from './crash-play.js';
import { describeSamplePart, SAMPLE_PARTS, samplePart } from './crash-sample.js';

const values = (list: Scenario[], k: keyof Scenario) => [...new Set(list.map((s) => s[k]))].sort();

describe('the crash matrix', () => {
  it('holds at least 1,000 distinct scenarios over every boundary, face, store, feature, rule, position, follow-up and outcome', () => {
    const all = crashMatrix();
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(1000);
    expect(values(all, 'boundary')).toEqual([...ALL_BOUNDARIES].sort());
    expect(values(all, 'face')).toEqual(['action', 'app', 'cli']);
    expect(values(all, 'store')).toEqual(['check-run', 'file', 'git']);
    expect(values(all, 'feature')).toEqual([
      'budget',
      'for_each',
      'gate',
      'guidance',
      'loop',
      'plain',
      'rerun',
      'serialized',
      'session',
      'stop',
      'subgraph',
    ]);
    expect(values(all, 'replay')).toEqual(['never', 'safe']);
    expect(values(all, 'position')).toEqual([0, 1, 2]);
    expect(values(all, 'outcome')).toEqual(['fail-once', 'pass']);
  });

  it('runs no path twice: a chained write is never also a plain dispatch, a create only at the first write', () => {
    const all = crashMatrix();
    expect(
      all.filter(
        // An instance's or a sub-graph node's dispatch is never chained (its node's expansion is no record), so
        // for_each and subgraph have them all.
        (s) =>
          s.boundary.endsWith('dispatch-write') &&
          !s.boundary.startsWith('gate:') &&
          s.feature !== 'for_each' &&
          s.feature !== 'subgraph' &&
          s.position > 0,
      ),
    ).toEqual([]);
    expect(all.filter((s) => s.boundary.startsWith('chain:') && s.position === 0)).toEqual([]);
    expect(all.filter((s) => s.boundary.includes('-create') && s.position !== 0)).toEqual([]);
    expect(all.filter((s) => s.follow === 'fail-run' && s.outcome === 'fail-once')).toEqual([]);
  });

  it('kills the check-run store at the write that dispatches the target, counted from the run’s first', () => {
    const at = (boundary: string, position: 0 | 1 | 2) => stepFailpoint({ boundary, position } as Scenario);
    expect(at('check-run:before-create', 0)).toBe('check-run:before-create#1');
    expect(at('check-run:after-update', 2)).toBe('check-run:after-update#2');
    expect(at('check-run:after-read-back', 1)).toBe('check-run:after-read-back#2');
    expect(writeLost({ boundary: 'check-run:before-read' } as Scenario)).toBe(true);
    expect(writeLost({ boundary: 'check-run:after-create' } as Scenario)).toBe(false);
  });
});

describe('a sample of crash scenarios', () => {
  const sample = crashSample();
  it('covers every boundary, face, store and feature, and every value of every other dimension', () => {
    const all = crashMatrix();
    expect(new Set(sample.map((s) => s.boundary)).size).toBe(ALL_BOUNDARIES.length);
    for (const k of ['face', 'store', 'feature', 'replay', 'position', 'follow', 'outcome'] as const)
      expect(values(sample, k)).toEqual(values(all, k));
  });

  it(`is run for real in ${SAMPLE_PARTS} parts that together run each of its scenarios once`, () => {
    const parts = Array.from({ length: SAMPLE_PARTS }, (_, i) => samplePart(i).map((s) => s.id));
    expect(parts.flat().sort()).toEqual(sample.map((s) => s.id).sort());
    for (const part of parts) expect(part.length).toBeGreaterThan(0);
  });
});

// The sample's first part; crash-matrix-2.test.ts runs the second (two files, so that no one holds the suite's
// critical path).
describeSamplePart(0);
