/**
 * The order the test files start in (vitest.config.ts's sequencer). vitest starts the files whose last run took
 * longest first, from its cache of results; on a clean clone (CI's) it has none and starts the largest files
 * first. A short file that waits long (a race of twenty jobs is 40 lines of test) then starts among the last and
 * ends the run alone: the suite's critical path. The files below, measured the longest one at a time
 * (CONTRIBUTING.md, "The suite's time"), start first when vitest knows nothing of them; with a cache of results,
 * vitest's own order stands.
 */

/**
 * The files measured the longest, longest first (paths from the repository's root): the last CI run's figures, and
 * this branch's one file at a time for the files it split (CONTRIBUTING.md, "The suite's time").
 */
export const LONG_FIRST: readonly string[] = [
  'test/reliability/crash-matrix-2.test.ts',
  'test/reliability/crash-matrix.test.ts',
  'test/agents/key-proxy.test.ts',
  'test/reliability/races-for-each.test.ts',
  'test/reliability/races-matrix.test.ts',
  'test/cli/subgraphs.test.ts',
  'test/agents/serialized.test.ts',
  'test/agents/engines.test.ts',
  'test/reliability/races.test.ts',
  'test/agents/key-proxy-cli.test.ts',
  'test/agents/session-cache.test.ts',
  'test/docs/recipes.test.ts',
  'test/reliability/hostile-git.test.ts',
  'test/reliability/hostile-git-modules.test.ts',
  'test/reliability/hostile-deputy.test.ts',
  'test/app/handler.test.ts',
  'test/agents/metering.test.ts',
  'test/reliability/crash-effects.test.ts',
];

/**
 * `files` in vitest's order, with the LONG_FIRST files vitest has no result for moved to the front, in LONG_FIRST's
 * order; the others keep theirs. `path` gives a file's path from the repository's root, `known` whether vitest's
 * cache has its last duration.
 */
export function longFirst<T>(
  files: readonly T[],
  path: (file: T) => string,
  known: (file: T) => boolean,
  list: readonly string[] = LONG_FIRST,
): T[] {
  const rank = (f: T) => (known(f) ? -1 : list.indexOf(path(f)));
  const front = files.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
  return [...front, ...files.filter((f) => rank(f) < 0)];
}
