import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONG_FIRST, longFirst } from './long-first.js';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('the order the test files start in', () => {
  const order = (files: string[], known: string[] = [], list = ['c', 'a']) =>
    longFirst(
      files,
      (f) => f,
      (f) => known.includes(f),
      list,
    );

  it('starts the listed files vitest knows nothing of first, in the list’s order; the others keep vitest’s', () => {
    expect(order(['x', 'a', 'y', 'c', 'z'])).toEqual(['c', 'a', 'x', 'y', 'z']);
  });

  it('keeps vitest’s order for a file it has a result for (its own order is by the last durations)', () => {
    expect(order(['x', 'a', 'y', 'c'], ['c'])).toEqual(['a', 'x', 'y', 'c']);
    expect(order(['x', 'a', 'c'], ['x', 'a', 'c'])).toEqual(['x', 'a', 'c']);
  });

  it('names test files that exist, each once', () => {
    for (const path of LONG_FIRST) expect(existsSync(join(ROOT, path)), path).toBe(true);
    expect(new Set(LONG_FIRST).size).toBe(LONG_FIRST.length);
  });
});
