// A copy of an approval whose dispatch was lost (issue 50) decides "no dispatch is owed" only from a read that holds
// the approval it found. GitHub answers a read by branch name from the past now and then: the copy's compare-and-swap
// found the approval (through the head its refused write named), and the retry's next read by name, a second later,
// may lack it. Seen in CI: two App replicas, the copies all ignored as "no dispatch is owed", the workflow never run.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { retryOwedDispatch } from '../../src/approvals/applying/retry-dispatch.js';
import { createClient } from '../../src/github/client.js';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { appendEvents } from '../../src/journal/parse.js';
import type { RunSetup } from '../../src/runner/journal-io/read.js';
import { DEFAULT_JOURNAL_BRANCH } from '../../src/store/git.js';
import type { JournalStore, StoredJournal } from '../../src/store/types.js';
import { buildJournal, GRAPH_PATH, GRAPH_TEXT, OWNER, REPO, WORKFLOW } from '../app/world.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { handlerDeps } from '../support/handler-deps.js';

const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
const SOURCE = 'https://github.com/acme/widgets/issues/1#issuecomment-501';
const PERSON = { kind: 'person' as const, host: 'interlock-app' };

/** A store whose first `staleReads` reads by name answer the journal as it was before the approval. */
function storeAnsweringFromThePast(before: Journal, now: Journal, staleReads: number) {
  let current: StoredJournal = { journal: now, version: 'v2' };
  const old: StoredJournal = { journal: before, version: 'v1' };
  let reads = 0;
  const store: JournalStore = {
    location: 'test-store',
    read: async () => (reads++ < staleReads ? old : current),
    write: async (journal, expected) => {
      if (expected !== current.version) return { ok: false, conflict: `changed since ${expected}` };
      current = { journal, version: `v${journal.events.length}` };
      return { ok: true, version: current.version };
    },
  };
  return { store, reads: () => reads, journal: () => current.journal };
}

describe('a copy retrying the dispatch of a journaled approval', () => {
  let server: GitHubServer;
  beforeEach(async () => {
    server = await startGitHubServer({
      repos: [{ owner: OWNER, name: REPO, workflows: [{ file: WORKFLOW, inputs: ['run-id'] }] }],
    });
  });
  afterEach(async () => {
    await server.close();
  });

  // The held run (deploy interrupted) and, a day later, bob's approval of its rerun: its dispatch never made.
  const before = buildJournal(graph, {});
  const approved = appendEvents(
    before,
    [
      {
        type: 'RerunApproved',
        node: 'deploy',
        attempt: 1,
        approved_by: 'bob',
        source: SOURCE,
        graph_hash: graph.hash,
        required: 1,
      },
    ],
    '2025-01-02T00:00:00.000Z',
  );

  const retry = (store: JournalStore, known: Journal) => {
    const octokit = createClient({ token: 't', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
    const deps = handlerDeps({
      octokit,
      repo: { owner: OWNER, repo: REPO },
      journalBranch: DEFAULT_JOURNAL_BRANCH,
      webUrl: 'https://github.com',
      dispatchLeaseMs: 1000,
    });
    const setup: RunSetup = {
      graph,
      store,
      runId: 'fix/issue-1',
      start: { intent: 'comment', subject: 'issue-1', inputs: {}, github: null },
    };
    return retryOwedDispatch(deps, setup, PERSON, { source: SOURCE, defaultBranch: 'main', known });
  };
  const dispatches = () => server.state.repo(`${OWNER}/${REPO}`).dispatches;

  it('reads again until a read holds the approval it was given, then claims and dispatches once', async () => {
    const s = storeAnsweringFromThePast(before, approved, 2);
    const r = await retry(s.store, approved);
    expect(r).toMatchObject({ dispatched: { file: WORKFLOW } });
    expect(s.reads()).toBeGreaterThan(2);
    expect(dispatches()).toHaveLength(1);
    expect(dispatches()[0]!.inputs).toEqual({ 'run-id': 'fix/issue-1' });
    expect(s.journal().events.at(-1)).toMatchObject({ type: 'WorkflowDispatchRetried', source: SOURCE });
  });

  it('told nothing newer than the old answer, the same store reads as "no dispatch is owed" (what CI saw)', async () => {
    const s = storeAnsweringFromThePast(before, approved, 2);
    const r = await retry(s.store, before);
    expect(r).toEqual({ why: 'no dispatch is owed (a step took it, or the command released nothing)' });
    expect(dispatches()).toHaveLength(0);
    expect(s.journal()).toBe(approved);
  });
});
