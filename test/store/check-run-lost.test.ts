// Lost updates on the check-run store, which has no compare-and-swap: a write another writer overwrites after this
// writer read it back is reported by this writer (LostUpdate, naming the events lost) at its next write and when
// its step confirms, against the local GitHub; a later writer that extended the journal is no loss.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/github/client.js';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { appendEvents } from '../../src/journal/parse.js';
import { CheckRunStore, confirmWrites, encodeJournal } from '../../src/store/check-run.js';
import { LostUpdate, lostEvents } from '../../src/store/check-run-lost.js';
import { buildJournal, GRAPH_PATH, GRAPH_TEXT } from '../app/world.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';

const REPO = { owner: 'acme', repo: 'widgets' };
const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
const start = () => buildJournal(graph, { runId: 'fix/pr-3', shape: 'in-flight' });
const skip = (j: Journal, node: string) =>
  appendEvents(j, [{ type: 'NodeSkipped', node, reason: 'test' }], '2025-01-02T00:00:00.000Z');

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }] });
});
afterAll(() => server.close());

/** Another writer that read the journal before this one wrote replaces the check run's output with its own. */
async function overwrite(sha: string, journal: Journal): Promise<void> {
  const octokit = createClient({ token: 'test', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
  const run = [...server.state.repo('acme/widgets').checkRuns.values()].find(
    (c) => c.name === 'interlock: fix/pr-3',
  );
  await octokit.rest.checks.update({
    ...REPO,
    check_run_id: run!.id,
    output: { title: 'other', summary: 'other', text: encodeJournal(journal) },
  });
  expect(sha).toBe(run?.head_sha);
}

describe('CheckRunStore, when another writer overwrites a write it already read back', () => {
  it('reports a lost update naming the events lost, at its next write and when its step confirms', async () => {
    const octokit = createClient({ token: 'test', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
    const sha = server.state.repo('acme/widgets').resolveCommit('main')!;
    const store = new CheckRunStore(octokit, REPO, { runId: 'fix/pr-3', head: sha });
    const first = start();
    const created = await store.write(first, null, 'start');
    expect(created.ok).toBe(true);
    const mine = skip(first, 'mine');
    const w = await store.write(mine, created.ok ? created.version : null, 'mine');
    expect(w.ok).toBe(true);
    await overwrite(sha, skip(first, 'theirs'));

    const said = await confirmWrites(store, () => undefined);
    expect(said).toContain('another writer overwrote');
    expect(said).toContain(`NodeSkipped mine (seq ${mine.events.length})`);
    await expect(store.write(skip(mine, 'next'), w.ok ? w.version : null, 'next')).rejects.toThrow(
      LostUpdate,
    );
  });

  it('a writer that read this one’s write and extended it lost nothing', () => {
    const first = start();
    const mine = skip(first, 'mine');
    expect(lostEvents(mine, skip(mine, 'theirs'))).toEqual([]);
    expect(lostEvents(mine, skip(first, 'theirs')).map((e) => e.seq)).toEqual([mine.events.length]);
  });
});
