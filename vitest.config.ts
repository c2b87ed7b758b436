import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * GitHub's workflow parser ships `.js.map` files that name `../src/*.ts`, which the package leaves out; inlined,
 * each of its files made vite print "Sourcemap for … points to missing source files" (a line for each of its
 * files, in each test file that loads it). Its files are loaded here without the `sourceMappingURL` comment: nothing else changes.
 */
const WORKFLOW_PARSER = /\/node_modules\/@actions\/workflow-parser\/dist\/.*\.js$/;
const withoutSourcemaps: Plugin = {
  name: 'workflow-parser-without-sourcemaps',
  enforce: 'pre',
  load(id) {
    if (!WORKFLOW_PARSER.test(id)) return null;
    return { code: readFileSync(id, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, ''), map: null };
  },
};

export default defineConfig({
  plugins: [withoutSourcemaps],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most test files wait (on child processes, the local GitHub's 300 ms writes, stale-read windows) more than
    // they compute: a worker more than the cores (vitest's default is one less, a single worker on 2 cores).
    maxWorkers: availableParallelism() + 1,
    // One temporary folder a run, removed at its end (INTERLOCK_KEEP_TEST_TMP=1 keeps it to look into).
    globalSetup: ['test/support/temp-root.ts'],
    // GitHub's workflow parser imports JSON without import attributes; inlined, vite handles that.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
