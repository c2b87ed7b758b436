// The maintainers' page (issue 37): 20 repositories with 200 runs waiting for people, read through the local
// GitHub with the App's own code (GitHubBackend, PageServer). Cold: every read made. Warm: a reload within the
// cache's life makes no request. Expired: every read asked again with If-None-Match; each 304 reuses what was kept.

import { ConditionalCache } from '../src/approvals/page/conditional.js';
import { GitHubBackend } from '../src/approvals/page/github-backend.js';
import { PageServer } from '../src/approvals/page/serve.js';
import { createClient } from '../src/github/client.js';
import { parseGraph } from '../src/graph/load/load.js';
import { serializeJournal } from '../src/journal/parse.js';
import { buildJournal, CONFIG, DEFAULT_APPROVALS, GRAPH_PATH, GRAPH_TEXT } from '../test/app/world.js';
import { startGitHubServer } from '../test/support/github-server.js';

export interface PageFigures {
  repos: number;
  runs: number;
  rows: number;
  cold: { ms: number; requests: number };
  warm: { ms: number; requests: number };
  expired: { ms: number; requests: number; notModified: number };
}

export async function pageFigures(repos: number, runsPerRepo: number): Promise<PageFigures> {
  const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
  const github = await startGitHubServer({ tokens: { 'bob-token': 'bob' } });
  try {
    for (let r = 0; r < repos; r++) {
      const repo = github.state.addRepo({
        owner: 'acme',
        name: `repo-${String(r).padStart(2, '0')}`,
        files: { [GRAPH_PATH]: GRAPH_TEXT, '.github/interlock.yml': CONFIG(DEFAULT_APPROVALS) },
        collaborators: { bob: 'write' },
        issues: Array.from({ length: runsPerRepo }, (_, i) => ({ number: i + 1, title: `Issue ${i + 1}` })),
      });
      const files: Record<string, string> = {};
      for (let i = 1; i <= runsPerRepo; i++) {
        const runId = `fix/issue-${i}`;
        files[`runs/${runId}.json`] = serializeJournal(buildJournal(graph, { runId, subject: `issue-${i}` }));
      }
      repo.commitFiles('interlock-journal', files, {}, { orphan: true });
    }
    let now = 0;
    const client = (token: string) =>
      createClient({ token, baseUrl: github.url, retries: 0, writeIntervalMs: 0 });
    const conditional = new ConditionalCache();
    const backend = new GitHubBackend({
      webUrl: 'https://github.com',
      journalBranch: 'interlock-journal',
      userClient: client,
      installationClient: async () => client('installation-token'),
      conditional,
      ttlMs: 30_000,
      clock: () => now,
    });
    const page = new PageServer({
      base: '/interlock',
      origin: 'https://interlock.example',
      backend,
      viewer: () => undefined,
      anonymous: () => {},
    });
    const viewer = { login: 'bob', csrf: 'c', session: { login: 'bob', token: 'bob-token' } };
    const render = async () => {
      const mark = github.requests.mark();
      const t0 = performance.now();
      const html = await page.list(viewer, new URLSearchParams());
      return { ms: performance.now() - t0, requests: github.requests.stats(mark).total, html };
    };
    const cold = await render();
    const warm = await render();
    now += 31_000;
    const before = conditional.notModified;
    const expired = await render();
    const rows = (cold.html.match(/<article class="row"/g) ?? []).length;
    return {
      repos,
      runs: repos * runsPerRepo,
      rows,
      cold: { ms: cold.ms, requests: cold.requests },
      warm: { ms: warm.ms, requests: warm.requests },
      expired: { ms: expired.ms, requests: expired.requests, notModified: conditional.notModified - before },
    };
  } finally {
    await github.close();
  }
}

/** The section of docs/BENCHMARKS.md. */
export function pageSection(f: PageFigures): string[] {
  const ms = (x: number) => x.toFixed(0);
  return [
    "## The maintainers' page: waiting nodes across repositories",
    '',
    `"Waiting for people" for one person who can see ${f.repos} repositories with ${f.runs} runs (${f.rows} waiting nodes), ` +
      "made by the App's own code (`GitHubBackend`, `PageServer`) against the local GitHub. Target: under 2 s from a " +
      "warm cache, and no request on a reload within the cache's life (30 s).",
    '',
    '| render | wall time (ms) | GitHub requests | answered 304 |',
    '| ------ | ------------- | --------------- | ------------ |',
    `| cold (nothing kept) | ${ms(f.cold.ms)} | ${f.cold.requests} | 0 |`,
    `| reload within the cache's life | ${ms(f.warm.ms)} | ${f.warm.requests} | 0 |`,
    `| reload after it (every read conditional) | ${ms(f.expired.ms)} | ${f.expired.requests} | ${f.expired.notModified} |`,
    '',
  ];
}
