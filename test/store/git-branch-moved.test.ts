/**
 * Writes that meet on a branch under the like-GitHub model, in both of the git store's layouts. A contents write
 * that another write beat to its branch is refused 409 `is at … but expected …`: the git store says the branch
 * moved (not the journal), and the commit sends the same write again, which lands when the journal is still as
 * read and is refused as a conflict when it is not. On the journal branch of before, where the runs started before
 * run branches go on, two runs meet so; on their own branches (the layout the bundled action writes today) two runs
 * never meet, and only one run's own writes race for its file. Every journal here is written by the git store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type GitHubClient } from '../../src/github/client.js';
import { JOURNAL_FORMAT, type Journal } from '../../src/journal/events/events.js';
import { appendEvents } from '../../src/journal/parse.js';
import { DEFAULT_JOURNAL_BRANCH, GitStore } from '../../src/store/git.js';
import { runBranch, runPath } from '../../src/store/git-layout.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { GIT_LAYOUTS, type GitLayout, gitLayoutOf, seedGitJournal } from '../support/seed-journal.js';

const REPO = { owner: 'acme', repo: 'widgets' };
let server: GitHubServer;
let octokit: GitHubClient;
beforeAll(async () => {
  server = await startGitHubServer({
    likeGitHub: { contentsWriteMs: 150, staleProbability: 0 },
    repos: [{ owner: 'acme', name: 'widgets' }],
  });
  octokit = createClient({ token: 't', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
});
afterAll(async () => server?.close());

const journalOf = (runId: string, note?: string): Journal =>
  appendEvents(
    {
      format: JOURNAL_FORMAT,
      run_id: runId,
      graph: { name: 'g', hash: 'sha256:0', path: 'g.yml' },
      events: [],
    },
    [
      {
        type: 'RunStarted',
        graph: { name: 'g', hash: 'sha256:0', path: 'g.yml' },
        intent: 'cli',
        subject: note ?? 'local',
        runner: { kind: 'local', host: 'h', pid: 1 },
      },
    ],
    '2026-01-01T00:00:00.000Z',
  );

const place = (layout: GitLayout) => (layout === 'run-branch' ? 'run' : 'legacy');
const store = (runId: string, layout: GitLayout) =>
  new GitStore(octokit, REPO, runId, DEFAULT_JOURNAL_BRANCH, place(layout));
const later = (ms: number) => new Promise((res) => setTimeout(res, ms));
const raced = () => server.model.stats.racedWrites;
const branchOf = (runId: string, layout: GitLayout) =>
  layout === 'run-branch' ? runBranch(DEFAULT_JOURNAL_BRANCH, runId) : DEFAULT_JOURNAL_BRANCH;

describe.each(GIT_LAYOUTS)('on the %s', (layout) => {
  it('two writes of one run from the same read: the first lands; the second is refused, and again when sent again', async () => {
    const runId = `${layout}/same`;
    await seedGitJournal(server, 'acme/widgets', journalOf(runId), layout);
    expect(gitLayoutOf(server.state.repo('acme/widgets'), runId)).toBe(layout);
    const read = await store(runId, layout).read();
    const before = raced();
    const [a, b] = await Promise.all([
      store(runId, layout).write(journalOf(runId, 'a'), read!.version, 'a'),
      later(30).then(() => store(runId, layout).write(journalOf(runId, 'b'), read!.version, 'b')),
    ]);
    expect(a.ok).toBe(true);
    expect(b).toMatchObject({ ok: false, branchMoved: true });
    expect(raced() - before).toBe(1);
    // Sent again as it was: the journal is no longer the version it names, so it is a conflict now.
    const again = await store(runId, layout).write(journalOf(runId, 'b'), read!.version, 'b');
    expect(again.ok).toBe(false);
    expect(again).not.toHaveProperty('branchMoved');
    const repo = server.state.repo('acme/widgets');
    expect(repo.readText(runPath(runId), branchOf(runId, layout))).toContain('"subject":"a"');
  });
});

describe('on the journal branch of before: a write beaten to the branch by another run’s', () => {
  it('is refused as branchMoved, and goes through when sent again as it was', async () => {
    const one = store('run/one', 'journal-branch');
    const two = store('run/two', 'journal-branch');
    // The branch exists first, so both writes below are plain creates of their own files.
    await seedGitJournal(server, 'acme/widgets', journalOf('run/zero'), 'journal-branch');
    const before = raced();
    const [a, b] = await Promise.all([
      one.write(journalOf('run/one'), null, 'one'),
      later(30).then(() => two.write(journalOf('run/two'), null, 'two')),
    ]);
    expect(a.ok).toBe(true);
    // The refusal names the branch's head, where the journal can be read exactly rather than by branch name.
    expect(b).toMatchObject({
      ok: false,
      branchMoved: true,
      head: server.state.repo('acme/widgets').branchSha(DEFAULT_JOURNAL_BRANCH),
    });
    expect((await two.write(journalOf('run/two'), null, 'two')).ok).toBe(true);
    expect(raced() - before).toBe(1);
  });
});

describe('on their own branches: two runs never meet', () => {
  it("writes of two runs at the same moment both land the first time, started or going on, and race nobody's", async () => {
    for (const id of ['own/three', 'own/four'])
      await seedGitJournal(server, 'acme/widgets', journalOf(id), 'run-branch');
    const [three, four] = [store('own/three', 'run-branch'), store('own/four', 'run-branch')];
    const [v3, v4] = [(await three.read())!.version, (await four.read())!.version];
    const before = raced();
    const [a, b] = await Promise.all([
      three.write(journalOf('own/three', 'next'), v3, 'three'),
      later(30).then(() => four.write(journalOf('own/four', 'next'), v4, 'four')),
    ]);
    const [c, d] = await Promise.all([
      store('own/five', 'run-branch').write(journalOf('own/five'), null, 'five'),
      store('own/six', 'run-branch').write(journalOf('own/six'), null, 'six'),
    ]);
    expect([a.ok, b.ok, c.ok, d.ok]).toEqual([true, true, true, true]);
    expect(raced() - before).toBe(0);
    const repo = server.state.repo('acme/widgets');
    for (const id of ['own/three', 'own/four', 'own/five', 'own/six'])
      expect(gitLayoutOf(repo, id)).toBe('run-branch');
  });
});
