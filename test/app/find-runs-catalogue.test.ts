// The comment commands' run lookup reads runs through each store's run catalogue (issue 45): `findRuns`, which
// `mode: comment` and the App both call, lists the runs (the run branches and the journal branch of before; a pull
// request's check runs) and reads each where its listing saw it (`RunCatalog.readText`): a run branch at the
// commit its ref named, a run of before by its blob, a check run from the listing of its commit. Before, it read
// each run by name through a `GitStore` (the contents API by branch name, which GitHub may answer from the past)
// and a `CheckRunStore` (a listing filtered by the check run's name): a second way of finding runs beside the
// catalogue. Through the bundled action (`mode: comment`) against the local GitHub, on the three stores: the
// reply to `/interlock status` names the node that waits, the command settles it, and the request log shows no
// journal read by name.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/github/client.js';
import { serializeJournal } from '../../src/journal/parse.js';
import { CheckRunStore, decodeJournal } from '../../src/store/check-run.js';
import { requireBundle } from '../crash/harness.js';
import {
  buildJournal,
  commentEvent,
  modeCommentStep,
  OWNER,
  observe,
  PEOPLE,
  REPO,
  startWorld,
  type World,
} from './world.js';

let world: World;
afterEach(async () => world?.close());

type Store = 'run-branch' | 'journal-branch' | 'check-run';

/** A run of issue 2 (pull request 30 on check runs) whose `deploy` is held, kept where `store` keeps it. */
async function seed(store: Store): Promise<{ runId: string; subject: number; journal: () => string }> {
  if (store === 'check-run') {
    world.repo.addPull({ number: 30, head: 'feat-z', base: 'main', title: 'Deploy it' });
    const head = world.repo.pullHeadSha(world.repo.issue(30)!);
    const octokit = createClient({ token: 'ghs_actions_token', baseUrl: world.server.url });
    const runId = 'fix/pr-30';
    const s = new CheckRunStore(octokit, { owner: OWNER, repo: REPO }, { runId, head });
    expect(await s.write(buildJournal(world.graph, { runId, subject: 'pr-30' }), null, 'seed')).toMatchObject(
      {
        ok: true,
      },
    );
    const journal = () => {
      const c = [...world.repo.checkRuns.values()].find((r) => r.name === `interlock: ${runId}`);
      return serializeJournal(decodeJournal(c?.output.text ?? '', runId));
    };
    return { runId, subject: 30, journal };
  }
  const runId = 'fix/issue-2';
  const branch = store === 'run-branch' ? `interlock-journal-runs/${runId}` : 'interlock-journal';
  const text = serializeJournal(buildJournal(world.graph, { runId, subject: 'issue-2' }));
  world.repo.commitFiles(branch, { [`runs/${runId}.json`]: text }, {}, { orphan: true });
  return { runId, subject: 2, journal: () => world.repo.readText(`runs/${runId}.json`, branch) ?? '' };
}

/** The reads of a journal by name since `mark`: the contents API at a branch, a check-run listing by name. */
function readsByName(mark: number): string[] {
  return world.server.requests
    .filter({ method: 'GET', since: mark })
    .filter(
      (r) =>
        (/\/contents\/runs\//.test(r.path) && !/(^|[?&])ref=[0-9a-f]{40}(&|$)/.test(r.query)) ||
        (/\/check-runs$/.test(r.path) && /(^|[?&])check_name=/.test(r.query)),
    )
    .map((r) => `${r.path}${r.query}`);
}

describe('run lookup reads every store through its run catalogue', () => {
  for (const store of ['run-branch', 'journal-branch', 'check-run'] as const)
    it(`on ${store}: /interlock status finds the held node without reading a journal by name, and /settle settles it`, async () => {
      requireBundle();
      world = await startWorld({ likeGitHub: { staleProbability: 0 } });
      const { runId, subject, journal } = await seed(store);
      const pr = store === 'check-run';
      const mark = world.server.requests.mark();
      const status = await modeCommentStep(
        world,
        commentEvent(world, { body: '/interlock status', login: PEOPLE.reader, issue: subject, pr }).payload,
      );
      expect(status.code, status.stdout + status.stderr).toBe(0);
      const reply = observe(world).replies.at(-1) ?? '';
      expect(reply).toContain(runId);
      expect(reply).toMatch(/\| deploy \| held/);
      expect(readsByName(mark)).toEqual([]);

      const before = journal();
      const settle = await modeCommentStep(
        world,
        commentEvent(world, {
          body: '/settle deploy checked by hand',
          login: PEOPLE.writer,
          issue: subject,
          pr,
        }).payload,
        8102,
      );
      expect(settle.outputs.status, settle.stdout + settle.stderr).toBe('completed');
      expect(journal()).not.toBe(before);
      expect(journal()).toContain('checked by hand');
    }, 120_000);
});
