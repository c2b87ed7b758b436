// A command that names no run finds a pull request's check-run run although the pull request got new commits
// since the run last wrote (its check run is on an earlier commit): through the App (Probot receiving the
// delivery) and the bundle's `mode: comment`; and the lookup's requests stay bounded by the pull request's
// commits.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/github/client.js';
import { CheckRunStore, decodeJournal } from '../../src/store/check-run.js';
import {
  buildJournal,
  commentEvent,
  modeCommentStep,
  OWNER,
  observe,
  PEOPLE,
  REPO,
  receive,
  startWorld,
  type World,
} from './world.js';

let world: World;
afterEach(async () => world?.close());

const CHECK_RUNS = 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs';

/** A held run of pull request #31 in a check run on its first head; then `pushes` more commits on the branch. */
async function runOnAnEarlierCommit(pushes: number): Promise<{ first: string; head: string }> {
  world.repo.commitFiles('feat-h', { 'h.txt': 'h\n' });
  world.repo.addPull({ number: 31, head: 'feat-h', base: 'main', title: 'Deploy it' });
  const first = world.repo.pullHeadSha(world.repo.issue(31)!);
  const octokit = createClient({ token: 'ghs_actions_token', baseUrl: world.server.url });
  const store = new CheckRunStore(octokit, { owner: OWNER, repo: REPO }, { runId: 'fix/pr-31', head: first });
  const journal = buildJournal(world.graph, { runId: 'fix/pr-31', subject: 'pr-31' });
  expect(await store.write(journal, null, 'seed')).toMatchObject({ ok: true });
  for (let i = 0; i < pushes; i++) world.repo.commitFiles('feat-h', { [`h${i}.txt`]: `${i}\n` });
  return { first, head: world.repo.pullHeadSha(world.repo.issue(31)!) };
}

const journalOn = (sha: string) => {
  const run = [...world.repo.checkRuns.values()].find(
    (c) => c.name === 'interlock: fix/pr-31' && c.head_sha === sha,
  );
  return decodeJournal(run?.output.text ?? '', 'fix/pr-31');
};

describe('a check-run run whose check run is on an earlier commit of the pull request', () => {
  it('the App settles `/approve-rerun deploy` (no run named) on it, and the run moves to the head', async () => {
    world = await startWorld();
    const { head } = await runOnAnEarlierCommit(2);
    await receive(
      world,
      commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer, issue: 31, pr: true }),
    );
    const approvals = journalOn(head).events.filter((e) => e.type === 'RerunApproved');
    expect(approvals).toEqual([expect.objectContaining({ node: 'deploy', approved_by: PEOPLE.writer })]);
  });

  it('mode: comment answers `/interlock status` (no run named) with the run, not "there is no run"', async () => {
    world = await startWorld();
    await runOnAnEarlierCommit(1);
    const ev = commentEvent(world, { body: '/interlock status', login: PEOPLE.reader, issue: 31, pr: true });
    const r = await modeCommentStep(world, ev.payload, 8201);
    expect(r.code, r.stdout).toBe(0);
    const { replies } = observe(world);
    expect(replies).toHaveLength(1);
    expect(replies[0], r.stdout).toContain('fix/pr-31');
    expect(replies[0]).not.toContain('there is no');
  });

  it('for a pull request of k commits the lookup lists check runs on at most k commits (and reads the run from them)', async () => {
    world = await startWorld();
    const k = 5;
    await runOnAnEarlierCommit(k - 1);
    const mark = world.server.requests.mark();
    await receive(
      world,
      commentEvent(world, { body: '/interlock status', login: PEOPLE.reader, issue: 31, pr: true }),
    );
    expect(observe(world).replies[0]).toContain('fix/pr-31');
    const listed = world.server.requests.filter({ since: mark, kind: CHECK_RUNS });
    const commits = new Set(listed.map((r) => r.path.split('/')[5]));
    expect(commits.size).toBeLessThanOrEqual(k);
    // Listing the runs walks the k commits once; reading the run found reads its commit's listing once more (the
    // catalogue's readText, where the listing saw it).
    expect(listed.length).toBe(k + 1);
    expect(
      world.server.requests.count({
        since: mark,
        kind: 'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits',
      }),
    ).toBe(1);
  });
});
