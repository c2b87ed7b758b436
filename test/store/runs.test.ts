/**
 * Each store lists the runs it holds: the git store's run branches and its journal branch of before (every journal
 * written by the store), a folder of journal files, a commit's check runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type GitHubClient } from '../../src/github/client.js';
import { parseGraph } from '../../src/graph/load/load.js';
import { CheckRunStore } from '../../src/store/check-run.js';
import { CheckRunRuns } from '../../src/store/check-run-runs.js';
import { FileRuns } from '../../src/store/file-runs.js';
import { GitRuns, runsInTree } from '../../src/store/git-runs.js';
import { buildJournal, GRAPH_PATH, GRAPH_TEXT } from '../app/world.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { GIT_LAYOUTS, type GitLayout, gitLayoutOf, seedGitJournal } from '../support/seed-journal.js';

const REPO = { owner: 'acme', repo: 'widgets' };
const TREES = 'GET /repos/{owner}/{repo}/git/trees/{tree_sha}';
const REFS = 'GET /repos/{owner}/{repo}/git/matching-refs/{ref}';
const ids = (runs: Array<{ runId: string }> | null) => runs?.map((r) => r.runId) ?? null;

describe('runsInTree', () => {
  it('takes blobs named runs/<run-id>.json, with their blob sha as the version', () => {
    expect(
      runsInTree([
        { path: 'runs/fix/issue-1.json', type: 'blob', sha: 'b1' },
        { path: 'runs/fix', type: 'tree', sha: 't1' },
        { path: 'runs/notes.txt', type: 'blob', sha: 'b2' },
        { path: 'README.md', type: 'blob', sha: 'b3' },
        { path: 'runs/a.json', type: 'blob', sha: 'b4' },
      ]),
    ).toEqual([
      { runId: 'a', where: 'runs/a.json', version: 'b4' },
      { runId: 'fix/issue-1', where: 'runs/fix/issue-1.json', version: 'b1' },
    ]);
  });
});

describe('GitRuns against the local GitHub', () => {
  let server: GitHubServer;
  let repo: RepoState;
  let octokit: GitHubClient;
  beforeEach(async () => {
    server = await startGitHubServer({
      repos: [
        { owner: 'acme', name: 'widgets' },
        { owner: 'acme', name: 'empty', empty: true },
      ],
    });
    repo = server.state.repo('acme/widgets');
    octokit = createClient({ token: 'test', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
  });
  afterEach(() => server.close());

  /** `n` runs written by the git store in `layout`. */
  const seed = async (n: number, layout: GitLayout) => {
    const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
    for (let i = 0; i < n; i++)
      await seedGitJournal(
        server,
        'acme/widgets',
        buildJournal(graph, { runId: `g${i % 3}/issue-${i}` }),
        layout,
      );
  };

  it.each(GIT_LAYOUTS)(
    'lists the runs kept on the %s in one listing of refs and one tree read',
    async (layout) => {
      await seed(4, layout);
      const mark = server.requests.mark();
      const runs = await new GitRuns(octokit, REPO).listRuns();
      expect(ids(runs)).toEqual(['g0/issue-0', 'g0/issue-3', 'g1/issue-1', 'g2/issue-2']);
      expect(gitLayoutOf(repo, 'g0/issue-3')).toBe(layout);
      expect([REFS, TREES].map((kind) => server.requests.filter({ since: mark, kind }).length)).toEqual([
        1, 1,
      ]);
    },
  );

  it('walks the runs folder when GitHub truncates the recursive tree, and misses no run', async () => {
    await seed(9, 'journal-branch');
    repo.treeEntryLimit = 3;
    const runs = await new GitRuns(octokit, REPO).listRuns();
    expect(runs).toHaveLength(9);
    expect(ids(runs)).toContain('g2/issue-8');
  });

  it('says there is no catalog yet when the branch does not exist (404) or the repository is empty (409)', async () => {
    expect(await new GitRuns(octokit, REPO, 'no-such-branch').listRuns()).toBeNull();
    expect(await new GitRuns(octokit, { owner: 'acme', repo: 'empty' }).listRuns()).toBeNull();
  });
});

describe('FileRuns', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'interlock-runs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lists <run-id>.json files below the folder, nested ids joined by "/", and nothing else', async () => {
    mkdirSync(join(dir, 'fix'));
    writeFileSync(join(dir, 'fix', 'issue-1.json'), '{}');
    writeFileSync(join(dir, 'local.json'), '{}');
    writeFileSync(join(dir, 'local.json.lock'), 'host 1');
    expect(await new FileRuns(dir).listRuns()).toEqual([
      { runId: 'fix/issue-1', where: join(dir, 'fix', 'issue-1.json'), modifiedMs: expect.any(Number) },
      { runId: 'local', where: join(dir, 'local.json'), modifiedMs: expect.any(Number) },
    ]);
  });

  it('says there is no catalog when the folder does not exist', async () => {
    expect(await new FileRuns(join(dir, 'missing')).listRuns()).toBeNull();
  });
});

describe('CheckRunRuns against the local GitHub', () => {
  let server: GitHubServer;
  beforeAll(async () => {
    server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }] });
  });
  afterAll(() => server.close());

  it("lists the journals in one commit's check runs, not other check runs", async () => {
    const octokit = createClient({ token: 'test', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
    const repo = server.state.repo('acme/widgets');
    const sha = repo.resolveCommit('main')!;
    const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
    for (const runId of ['fix/pr-2', 'docs/pr-2']) {
      const store = new CheckRunStore(octokit, REPO, { runId, head: sha });
      const w = await store.write(buildJournal(graph, { runId }), null, 'test');
      expect(w.ok).toBe(true);
    }
    await octokit.rest.checks.create({ ...REPO, name: 'interlock fix/pr-2', head_sha: sha });
    await octokit.rest.checks.create({ ...REPO, name: 'interlock: not-a-journal', head_sha: sha });
    const runs = await new CheckRunRuns(octokit, REPO, sha).listRuns();
    expect(ids(runs)).toEqual(['docs/pr-2', 'fix/pr-2']);
    const read = await new CheckRunStore(octokit, REPO, { runId: 'fix/pr-2', head: sha }).read();
    expect(runs.find((r) => r.runId === 'fix/pr-2')?.version).toBe(read?.version);
  });
});
