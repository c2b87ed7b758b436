/**
 * The git store's layout: a branch per run (`interlock-journal-runs/<run-id>`), and the journal branch of before
 * (`interlock-journal`), where a run that started there goes on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type GitHubClient } from '../../src/github/client.js';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { appendEvents, serializeJournal } from '../../src/journal/parse.js';
import { blobSha, GitStore } from '../../src/store/git.js';
import { branchableRunId, runBranch, runIdOfBranch } from '../../src/store/git-layout.js';
import { GitRuns } from '../../src/store/git-runs.js';
import { buildJournal, GRAPH_PATH, GRAPH_TEXT } from '../app/world.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { seedGitJournal } from '../support/seed-journal.js';

const REPO = { owner: 'acme', repo: 'widgets' };
const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
const approved = (j: Journal): Journal =>
  appendEvents(j, [{ type: 'GraphChangeAllowed', by: 'octocat', from: 'a', to: 'b' }], j.events[0]!.at);

describe('run branch names', () => {
  it('put the run id under the journal branch name and "-runs/", and read it back from a ref', () => {
    expect(runBranch('interlock-journal', 'fix/issue-42')).toBe('interlock-journal-runs/fix/issue-42');
    expect(runIdOfBranch('interlock-journal', 'refs/heads/interlock-journal-runs/fix/issue-42')).toBe(
      'fix/issue-42',
    );
    expect(runIdOfBranch('interlock-journal', 'refs/heads/interlock-journal')).toBeUndefined();
    expect(runIdOfBranch('interlock-journal', 'refs/heads/other-runs/fix/issue-42')).toBeUndefined();
  });

  it('leave on the journal branch a run id git refuses in a ref', () => {
    expect(branchableRunId('fix/issue-42')).toBe(true);
    expect(branchableRunId('fix/.hidden')).toBe(false);
    expect(branchableRunId('fix.lock/issue-1')).toBe(false);
  });
});

describe('GitStore against the local GitHub', () => {
  let server: GitHubServer;
  let repo: RepoState;
  let octokit: GitHubClient;
  beforeEach(async () => {
    // The store's own answers, read right after each write: the like-GitHub model's stale reads are the
    // FreshStore's to absorb (store/fresh.ts), and the races of many runs are races-runs.test.ts's, under the model.
    server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }], likeGitHub: false });
    repo = server.state.repo('acme/widgets');
    octokit = createClient({ token: 'test', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
  });
  afterEach(() => server.close());

  it('starts a run on a branch of its own, and a second start of the same run is a conflict, not a write', async () => {
    const j = buildJournal(graph, { runId: 'fix/issue-1' });
    const first = new GitStore(octokit, REPO, 'fix/issue-1');
    const w = await first.write(j, null, 'start');
    // The commit the write made is named: a read at it (`readAt`) is exact, as a read by branch may not be.
    const head = repo.branchSha('interlock-journal-runs/fix/issue-1');
    expect(w).toEqual({ ok: true, version: blobSha(serializeJournal(j)), commit: head });
    expect((await first.readAt(head!))?.journal).toEqual(j);
    expect(repo.readText('runs/fix/issue-1.json', 'interlock-journal-runs/fix/issue-1')).toBe(
      serializeJournal(j),
    );
    expect(repo.branchSha('interlock-journal')).toBeUndefined();
    const again = await new GitStore(octokit, REPO, 'fix/issue-1').write(approved(j), null, 'start');
    expect(again.ok).toBe(false);
    // The version the first write returned is the one GitHub holds: the next write names it and lands.
    const next = await first.write(approved(j), w.ok ? w.version : '', 'next');
    expect(next.ok).toBe(true);
    expect((await new GitStore(octokit, REPO, 'fix/issue-1').read())?.version).toBe(next.ok && next.version);
  });

  it('writes of two runs at once both land: they are on different branches', async () => {
    const runs = ['fix/issue-1', 'fix/issue-2', 'docs/issue-3'];
    const stores = runs.map((id) => new GitStore(octokit, REPO, id));
    const made = await Promise.all(
      stores.map((s, i) => s.write(buildJournal(graph, { runId: runs[i] }), null, 'x')),
    );
    expect(made.every((w) => w.ok)).toBe(true);
    const more = await Promise.all(
      stores.map((s, i) =>
        s.write(
          approved(buildJournal(graph, { runId: runs[i] })),
          made[i]!.ok ? (made[i] as { version: string }).version : '',
          'y',
        ),
      ),
    );
    expect(more.map((w) => w.ok)).toEqual([true, true, true]);
  });

  it('goes on with a run whose journal is on the journal branch of before, there, and makes no run branch', async () => {
    const j = buildJournal(graph, { runId: 'fix/issue-7' });
    await seedGitJournal(server, 'acme/widgets', j, 'journal-branch');
    const store = new GitStore(octokit, REPO, 'fix/issue-7');
    const read = await store.read();
    expect(read?.journal.events).toHaveLength(j.events.length);
    expect(store.location).toBe('acme/widgets@interlock-journal:runs/fix/issue-7.json');
    const w = await store.write(approved(j), read!.version, 'next');
    expect(w.ok).toBe(true);
    expect(repo.readText('runs/fix/issue-7.json', 'interlock-journal')).toBe(serializeJournal(approved(j)));
    expect(repo.branchSha('interlock-journal-runs/fix/issue-7')).toBeUndefined();
    // Compare-and-swap there too: a write naming the version before is refused.
    const stale = await new GitStore(octokit, REPO, 'fix/issue-7').write(approved(j), read!.version, 'stale');
    expect(stale.ok).toBe(false);
  });

  it('keeps a run on the journal branch when git cannot hold its branch (a ref below another run)', async () => {
    expect(
      (await new GitStore(octokit, REPO, 'a/b').write(buildJournal(graph, { runId: 'a/b' }), null, 'x')).ok,
    ).toBe(true);
    const nested = new GitStore(octokit, REPO, 'a/b/c');
    const w = await nested.write(buildJournal(graph, { runId: 'a/b/c' }), null, 'x');
    expect(w.ok).toBe(true);
    expect(repo.readText('runs/a/b/c.json', 'interlock-journal')).toBeDefined();
    expect((await new GitStore(octokit, REPO, 'a/b/c').read())?.version).toBe(w.ok && w.version);
  });

  it('lists runs of both layouts, a run on both once (at its own branch)', async () => {
    for (const id of ['old/issue-1', 'fix/issue-2'])
      await seedGitJournal(server, 'acme/widgets', buildJournal(graph, { runId: id }), 'journal-branch');
    for (const id of ['fix/issue-2', 'fix/issue-3'])
      await new GitStore(octokit, REPO, id).write(buildJournal(graph, { runId: id }), null, 'x');
    const runs = await new GitRuns(octokit, REPO).listRuns();
    expect(runs?.map((r) => [r.runId, r.where])).toEqual([
      ['fix/issue-2', 'interlock-journal-runs/fix/issue-2:runs/fix/issue-2.json'],
      ['fix/issue-3', 'interlock-journal-runs/fix/issue-3:runs/fix/issue-3.json'],
      ['old/issue-1', 'runs/old/issue-1.json'],
    ]);
  });
});
