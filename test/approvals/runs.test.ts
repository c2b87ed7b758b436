/** Run lookup: which run a command means, from the run ids the git store lists (on either of its layouts). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pickRuns } from '../../src/approvals/lookup/pick-runs.js';
import { createClient } from '../../src/github/client.js';
import { runIsAbout } from '../../src/journal/run-id.js';
import { DEFAULT_JOURNAL_BRANCH } from '../../src/store/git.js';
import { GitRuns } from '../../src/store/git-runs.js';
import { startWorld, type World } from '../app/world.js';
import { startGitHubServer } from '../support/github-server.js';
import { GIT_LAYOUTS, gitLayoutOf } from '../support/seed-journal.js';

const ISSUE_1 = { kind: 'issue', number: 1 } as const;
/** Runs as lookup finds them: each about the subject its id's last part names, unless given. */
const runs = (...ids: string[]) =>
  ids.map((runId) => ({ runId, subject: runId.split('/').at(-1), ended: false }));
const approve = (runId?: string) => ({
  kind: 'approve-rerun' as const,
  node: 'deploy',
  ...(runId ? { runId } : {}),
});

describe('runIsAbout', () => {
  it('takes the runs whose last part is the label, not ones that merely end with its digits', () => {
    const ids = ['fix/issue-1', 'issue-1', 'fix/issue-11', 'b/pr-1', 'a/issue-1'];
    expect(ids.filter((id) => runIsAbout(id, 'issue-1')).sort()).toEqual([
      'a/issue-1',
      'fix/issue-1',
      'issue-1',
    ]);
  });
});

describe('pickRuns', () => {
  it("takes the subject's only run when the command names none", () => {
    expect(pickRuns(approve(), ISSUE_1, runs('fix/issue-1', 'fix/issue-2'))).toEqual({
      kind: 'runs',
      runIds: ['fix/issue-1'],
      mine: ['fix/issue-1'],
    });
  });

  it('asks which run when the subject has several and the command names none', () => {
    expect(pickRuns(approve(), ISSUE_1, runs('fix/issue-1', 'docs/issue-1'))).toEqual({
      kind: 'which',
      runIds: ['docs/issue-1', 'fix/issue-1'],
    });
  });

  it('shows at most ten runs for a status command without a run id', () => {
    const all = Array.from({ length: 12 }, (_, i) => `g${String(i).padStart(2, '0')}/issue-1`);
    const pick = pickRuns({ kind: 'status' }, ISSUE_1, runs(...all));
    expect(pick.kind === 'runs' && pick.runIds).toEqual(all.slice(0, 10));
  });

  it('refuses a named run of another subject and says which subject it is about', () => {
    expect(pickRuns(approve('fix/pr-7'), ISSUE_1, runs('fix/issue-1', 'fix/pr-7'))).toEqual({
      kind: 'refused',
      why: 'run `fix/pr-7` is about pull request #7, not issue #1: comment there',
    });
  });

  it("refuses a named run that does not exist and lists the subject's runs", () => {
    expect(pickRuns(approve('fix/issue-9'), ISSUE_1, runs('fix/issue-1'))).toEqual({
      kind: 'refused',
      why: 'there is no run `fix/issue-9` on issue #1 (its runs: `fix/issue-1`)',
    });
  });

  it('matches a run to its subject by the subject its journal records, not by its id', () => {
    const afresh = [
      { runId: 'fix/issue-80', subject: 'issue-80', ended: true },
      { runId: 'fix/issue-80-2', subject: 'issue-80', ended: false },
    ];
    const issue80 = { kind: 'issue', number: 80 } as const;
    expect(pickRuns(approve('fix/issue-80-2'), issue80, afresh)).toMatchObject({
      kind: 'runs',
      runIds: ['fix/issue-80-2'],
    });
    // With no run named, the one that has not ended is meant: the run started afresh, not the old, ended one.
    expect(pickRuns(approve(), issue80, afresh)).toMatchObject({ kind: 'runs', runIds: ['fix/issue-80-2'] });
    // An id that looks like this subject's is still another subject's run when its journal says so.
    const lookalike = [{ runId: 'fix/issue-80', subject: 'issue-81', ended: false }];
    expect(pickRuns(approve('fix/issue-80'), issue80, lookalike)).toEqual({
      kind: 'refused',
      why: 'run `fix/issue-80` is about issue #81, not issue #80: comment there',
    });
  });

  it('refuses when the subject has no run at all', () => {
    expect(pickRuns(approve(), { kind: 'pr', number: 3 }, runs('fix/issue-1'))).toEqual({
      kind: 'refused',
      why: 'there is no interlock run on pull request #3',
    });
  });
});

/** Every run id the git store lists (its catalogue, which every face lists runs through). */
async function listRunIds(deps: {
  octokit: ReturnType<typeof createClient>;
  repo: { owner: string; repo: string };
  journalBranch: string;
}): Promise<string[]> {
  const runs = await new GitRuns(deps.octokit, deps.repo, deps.journalBranch).listRuns();
  return (runs ?? []).map((r) => r.runId);
}

describe.each(GIT_LAYOUTS)('listRunIds against the local GitHub, runs kept on the %s', (layout) => {
  let world: World;
  beforeEach(async () => {
    world = await startWorld({ layout });
  });
  afterEach(() => world.close());

  const deps = (w: World, journalBranch = DEFAULT_JOURNAL_BRANCH) => ({
    octokit: createClient({ token: 'test', baseUrl: w.server.url, retries: 0, writeIntervalMs: 0 }),
    repo: { owner: 'acme', repo: 'widgets' },
    journalBranch,
    webUrl: 'https://github.com',
  });

  it('lists every run the git store wrote, nested run ids included', async () => {
    await world.seedRun({ runId: 'fix/issue-1' });
    await world.seedRun({ runId: 'a/b/pr-2', subject: 'pr-2' });
    expect([gitLayoutOf(world.repo, 'fix/issue-1'), gitLayoutOf(world.repo, 'a/b/pr-2')]).toEqual([
      layout,
      layout,
    ]);
    // Each branch the store makes also holds a README.md beside runs/: not a run.
    expect(await listRunIds(deps(world))).toEqual(['a/b/pr-2', 'fix/issue-1']);
  });

  it('lists none under a journal branch that holds no run (another name than the runs were written under)', async () => {
    await world.seedRun({ runId: 'fix/issue-1' });
    expect(await listRunIds(deps(world, 'no-such-branch'))).toEqual([]);
  });
});

describe('listRunIds in an empty repository', () => {
  it('lists none where the git data API answers 409', async () => {
    const server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'empty', empty: true }] });
    try {
      const octokit = createClient({ token: 'test', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
      const deps = {
        octokit,
        repo: { owner: 'acme', repo: 'empty' },
        journalBranch: DEFAULT_JOURNAL_BRANCH,
        webUrl: '',
      };
      expect(await listRunIds(deps)).toEqual([]);
      expect(
        server.requests.filter({ kind: 'GET /repos/{owner}/{repo}/git/trees/{tree_sha}' })[0]?.status,
      ).toBe(409);
    } finally {
      await server.close();
    }
  });
});
