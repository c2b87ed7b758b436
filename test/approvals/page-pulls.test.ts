// The maintainers' page finds runs in every store (issues 37 and 45): the git store (a run's own branch, what the
// bundled action writes today, and the journal branch of before) and the check runs on an open pull request (the
// check-run store), each once. Every journal here is written by the store's own writer.
import { afterEach, describe, expect, it } from 'vitest';
import { readRepoRuns } from '../../src/approvals/page/repo-runs.js';
import { createClient } from '../../src/github/client.js';
import { waitingRows } from '../../src/render/page/waiting-model.js';
import { CheckRunStore } from '../../src/store/check-run.js';
import { DEFAULT_JOURNAL_BRANCH } from '../../src/store/git.js';
import { buildJournal, GRAPH_PATH, OWNER, REPO, startWorld, type World } from '../app/world.js';
import { handlerDeps } from '../support/handler-deps.js';
import { GIT_LAYOUTS, gitLayoutOf, seedGitJournal } from '../support/seed-journal.js';

let world: World;
afterEach(async () => world?.close());

const readAll = () =>
  readRepoRuns(
    handlerDeps({
      octokit: createClient({ token: 'test', baseUrl: world.server.url, retries: 0, writeIntervalMs: 0 }),
      repo: { owner: OWNER, repo: REPO },
      journalBranch: DEFAULT_JOURNAL_BRANCH,
      webUrl: 'https://github.com',
    }),
  );

describe.each(GIT_LAYOUTS)("the page's runs of a repository, git runs kept on the %s", (layout) => {
  it('reads the git store and the check-run store of open pull requests', async () => {
    world = await startWorld({ layout });
    await world.seedRun();
    expect(gitLayoutOf(world.repo, 'fix/issue-1')).toBe(layout);
    world.repo.addPull({ number: 30, head: 'feat-z', base: 'main', title: 'Deploy <it>' });
    const head = world.repo.pullHeadSha(world.repo.issue(30)!);
    const actions = createClient({ token: 'ghs_actions_token', baseUrl: world.server.url });
    const store = new CheckRunStore(actions, { owner: OWNER, repo: REPO }, { runId: 'fix/pr-30', head });
    expect(
      await store.write(buildJournal(world.graph, { runId: 'fix/pr-30', subject: 'pr-30' }), null, 'seed'),
    ).toMatchObject({ ok: true });
    const read = await readAll();
    expect(read.problems).toEqual([]);
    expect(read.runs.map((r) => r.journal.run_id)).toEqual(['fix/issue-1', 'fix/pr-30']);
    const rows = waitingRows(read.runs);
    expect(rows.map((r) => [r.runId, r.node, r.kind, r.title])).toEqual([
      ['fix/issue-1', 'deploy', 'held', 'Fix the add() bug'],
      ['fix/pr-30', 'deploy', 'held', 'Deploy <it>'],
    ]);
  });
});

describe.each(GIT_LAYOUTS)(
  'a run whose journal names its graph in a way the page did not expect, kept on the %s (issue 45)',
  (layout) => {
    /** The escalated run, its header naming the graph by `path`, written by the git store in this layout. */
    const seedWithPath = async (path: string) => {
      const j = buildJournal(world.graph, { runId: 'fix/issue-1', shape: 'escalated' });
      await seedGitJournal(world.server, `${OWNER}/${REPO}`, { ...j, graph: { ...j.graph, path } }, layout);
      expect(gitLayoutOf(world.repo, 'fix/issue-1')).toBe(layout);
    };

    it('an absolute path an older CLI wrote is read as the path the run started with', async () => {
      world = await startWorld();
      await seedWithPath(`/home/runner/work/${REPO}/${REPO}/${GRAPH_PATH}`);
      const read = await readAll();
      expect(read.problems).toEqual([]);
      expect(waitingRows(read.runs).map((r) => [r.runId, r.node, r.kind])).toEqual([
        ['fix/issue-1', 'deploy', 'escalated'],
      ]);
    });

    it('a graph file that is gone: the problem line still says what waits in the run', async () => {
      world = await startWorld();
      await seedWithPath('.interlock/gone.yml');
      const read = await readAll();
      expect(read.runs).toEqual([]);
      expect(read.problems).toEqual([
        expect.stringMatching(
          /^run fix\/issue-1: waits for a person: deploy \(escalated\); .*no graph file at \.interlock\/gone\.yml/,
        ),
      ]);
    });
  },
);

describe.each(GIT_LAYOUTS)('the folded state of a pinned journal is kept, on the %s (issue 50)', (layout) => {
  it('a second read (another person, a later page) takes the kept state; a journal written since is folded again', async () => {
    world = await startWorld({ layout });
    await world.seedRun();
    const first = await readAll();
    const second = await readAll();
    expect(first.runs).toHaveLength(1);
    // The same pin under the same graph: the state is the one folded for the first read, not a new fold.
    expect(second.runs[0]!.state).toBe(first.runs[0]!.state);
    // One run's rows are made once for every page that shows it, and they are the rows a fresh read makes.
    expect(waitingRows(second.runs)[0]).toBe(waitingRows(second.runs)[0]);
    expect(waitingRows(second.runs)).toEqual(waitingRows(first.runs));
    expect(waitingRows(second.runs).map((r) => r.kind)).toEqual(['held']);
    // The run goes on (its journal is written again: a new pin): the page shows it as it now is.
    await world.seedRun({ shape: 'escalated' });
    const third = await readAll();
    expect(third.runs[0]!.state).not.toBe(first.runs[0]!.state);
    expect(waitingRows(third.runs).map((r) => r.kind)).toEqual(['escalated']);
  });
});
