import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { longFirst } from './test/support/long-first.js';

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

/**
 * vitest's order, except on a run with no cache of results (a clean clone, as CI's): the files measured the longest
 * start first (test/support/long-first.ts), so that none of them starts last and ends the run alone.
 */
class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const path = (f: TestSpecification) => relative(root, f.moduleId);
    const known = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${path(f)}`) !== undefined;
    return longFirst(sorted, path, known);
  }
}

export default defineConfig({
  plugins: [withoutSourcemaps],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most test files wait (on child processes, the local GitHub's writes, stale-read windows) more than they
    // compute: a worker more than the cores (vitest's default is one less, a single worker on 2 cores). The files
    // measured the longest start first on a clean clone (CONTRIBUTING.md, "The suite's time").
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongFirstSequencer },
    // One temporary folder a run, removed at its end (INTERLOCK_KEEP_TEST_TMP=1 keeps it to look into).
    globalSetup: ['test/support/temp-root.ts'],
    // GitHub's workflow parser imports JSON without import attributes; inlined, vite handles that.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
