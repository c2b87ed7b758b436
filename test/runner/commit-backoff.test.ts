// The wait after a compare-and-swap conflict: random within a window that grows with the writers and the conflicts.
import { describe, expect, it } from 'vitest';
import { conflictBackoffMs } from '../../src/runner/journal-io/pacing.js';

const top = () => 1 - Number.EPSILON;
const window = (conflicts: number, writers: number, roundTripMs: number) =>
  Math.round(conflictBackoffMs(conflicts, writers, roundTripMs, top));

describe('conflictBackoffMs', () => {
  it('spreads the writers that may be racing over a round trip each, doubled with each conflict', () => {
    expect(window(1, 20, 50)).toBe(1_000);
    expect(window(2, 20, 50)).toBe(2_000);
    expect(window(3, 20, 50)).toBe(4_000);
    expect(window(1, 5, 50)).toBe(250);
  });

  it('is full jitter: anywhere from nothing to the window', () => {
    expect(conflictBackoffMs(1, 20, 50, () => 0)).toBe(0);
    expect(conflictBackoffMs(1, 20, 50, () => 0.5)).toBe(500);
  });

  it('counts at least one writer and a 20 ms round trip, and never waits more than 15 s', () => {
    expect(window(1, 0, 0)).toBe(20);
    expect(window(30, 200, 1_000)).toBe(15_000);
  });
});

describe('conflictBackoffMs with a place in line', () => {
  it('at the first conflict waits as many round trips as writers stand before it, and part of one more', () => {
    expect(conflictBackoffMs(1, 20, 50, () => 0, 0)).toBe(0);
    expect(conflictBackoffMs(1, 20, 50, () => 0, 3)).toBe(150);
    expect(Math.round(conflictBackoffMs(1, 20, 50, top, 3))).toBe(200);
  });

  it('from the second conflict on, or without a place, is full jitter over the window again', () => {
    expect(Math.round(conflictBackoffMs(2, 20, 50, top, 3))).toBe(2_000);
    expect(Math.round(conflictBackoffMs(1, 20, 50, top, -1))).toBe(1_000);
  });
});
