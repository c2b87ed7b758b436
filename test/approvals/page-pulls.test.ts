// The maintainers' page finds runs in both stores (issue 37): the journal branch, and the check runs on an open pull
// request (the check-run store), each once.
import { afterEach, describe, expect, it } from 'vitest';
import { readRepoRuns } from '../../src/approvals/page/repo-runs.js';
import { createClient } from '../../src/github/client.js';
import { waitingRows } from '../../src/render/page/waiting-model.js';
import { CheckRunStore } from '../../src/store/check-run.js';
import { buildJournal, OWNER, REPO, startWorld, type World } from '../app/world.js';

let world: World;
afterEach(async () => world?.close());

describe("the page's runs of a repository", () => {
  it('reads the journal branch and the check-run store of open pull requests', async () => {
    world = await startWorld();
    world.seedRun();
    world.repo.addPull({ number: 30, head: 'feat-z', base: 'main', title: 'Deploy <it>' });
    const head = world.repo.pullHeadSha(world.repo.issue(30)!);
    const actions = createClient({ token: 'ghs_actions_token', baseUrl: world.server.url });
    const store = new CheckRunStore(actions, { owner: OWNER, repo: REPO }, { runId: 'fix/pr-30', head });
    expect(
      await store.write(buildJournal(world.graph, { runId: 'fix/pr-30', subject: 'pr-30' }), null, 'seed'),
    ).toMatchObject({ ok: true });
    const read = await readRepoRuns({
      octokit: createClient({ token: 'test', baseUrl: world.server.url, retries: 0, writeIntervalMs: 0 }),
      repo: { owner: OWNER, repo: REPO },
      journalBranch: 'interlock-journal',
      webUrl: 'https://github.com',
    });
    expect(read.problems).toEqual([]);
    expect(read.runs.map((r) => r.journal.run_id)).toEqual(['fix/issue-1', 'fix/pr-30']);
    const rows = waitingRows(read.runs);
    expect(rows.map((r) => [r.runId, r.node, r.kind, r.title])).toEqual([
      ['fix/issue-1', 'deploy', 'held', 'Fix the add() bug'],
      ['fix/pr-30', 'deploy', 'held', 'Deploy <it>'],
    ]);
  });
});
