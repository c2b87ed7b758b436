// Run lookup for comment commands, through the bundle's `mode: comment` (as a runner runs it) and the App
// (Probot receiving the delivery): a run kept in the check-run store of a pull request is found and settled, and
// runs are matched to their subject by the subject their journal records, so a run started afresh
// (`fix/issue-1-2`) is the one an approval goes to.
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

const commentStep = (payload: Record<string, unknown>) => modeCommentStep(world, payload, 8101);

/** A held run of pull request #30 kept in a check run on the pull request's head, written through the API. */
async function seedCheckRunRun(): Promise<string> {
  world.repo.addPull({ number: 30, head: 'feat-z', base: 'main', title: 'Deploy it' });
  const head = world.repo.pullHeadSha(world.repo.issue(30)!);
  const octokit = createClient({ token: 'ghs_actions_token', baseUrl: world.server.url });
  const store = new CheckRunStore(octokit, { owner: OWNER, repo: REPO }, { runId: 'fix/pr-30', head });
  const journal = buildJournal(world.graph, { runId: 'fix/pr-30', subject: 'pr-30' });
  expect(await store.write(journal, null, 'seed')).toMatchObject({ ok: true });
  return head;
}

function checkRunJournal(head: string) {
  const run = [...world.repo.checkRuns.values()].find(
    (c) => c.name === 'interlock: fix/pr-30' && c.head_sha === head,
  );
  return decodeJournal(run?.output.text ?? '', 'fix/pr-30');
}

describe('a run in the check-run store, settled from a comment on its pull request', () => {
  it('mode: comment finds the run through the pull request head and records the approval there', async () => {
    world = await startWorld();
    const head = await seedCheckRunRun();
    const ev = commentEvent(world, {
      body: '/approve-rerun deploy',
      login: PEOPLE.writer,
      issue: 30,
      pr: true,
    });
    const r = await commentStep(ev.payload);
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs.status).toBe('completed');
    const approvals = checkRunJournal(head).events.filter((e) => e.type === 'RerunApproved');
    expect(approvals).toEqual([expect.objectContaining({ node: 'deploy', approved_by: PEOPLE.writer })]);
  });

  it('/interlock status names the run and shows its table, not "there is no run"', async () => {
    world = await startWorld();
    await seedCheckRunRun();
    const ev = commentEvent(world, {
      body: '/interlock status fix/pr-30',
      login: PEOPLE.reader,
      issue: 30,
      pr: true,
    });
    const r = await commentStep(ev.payload);
    expect(r.code, r.stdout).toBe(0);
    const { replies } = observe(world);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain('fix/pr-30');
    expect(replies[0]).toContain('| deploy |');
    expect(replies[0]).not.toContain('there is no');
  });

  it('the App (a delivery received by Probot) settles the same run', async () => {
    world = await startWorld();
    const head = await seedCheckRunRun();
    await receive(
      world,
      commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer, issue: 30, pr: true }),
    );
    const approvals = checkRunJournal(head).events.filter((e) => e.type === 'RerunApproved');
    expect(approvals).toHaveLength(1);
  });
});

describe('starting afresh: a new run id for the same issue', () => {
  async function afresh(): Promise<void> {
    world = await startWorld();
    await world.seedRun({ runId: 'fix/issue-1', shape: 'failed' });
    await world.seedRun({ runId: 'fix/issue-1-2', subject: 'issue-1' });
  }

  it('/approve-rerun with no run named goes to the new run, not the old, ended one', async () => {
    await afresh();
    const ev = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer });
    const r = await commentStep(ev.payload);
    expect(r.outputs.status, r.stdout).toBe('completed');
    expect(observe(world, undefined, 'fix/issue-1-2').approvals).toHaveLength(1);
    expect(observe(world, undefined, 'fix/issue-1').approvals).toHaveLength(0);
  });

  it('/approve-rerun <node> <new run id> is accepted: the journal says the run is about this issue', async () => {
    await afresh();
    const ev = commentEvent(world, { body: '/approve-rerun deploy fix/issue-1-2', login: PEOPLE.writer });
    const r = await commentStep(ev.payload);
    expect(r.outputs.status, r.stdout).toBe('completed');
    expect(observe(world, undefined, 'fix/issue-1-2').approvals).toHaveLength(1);
    expect(world.repo.dispatches).toEqual([
      expect.objectContaining({ inputs: { 'run-id': 'fix/issue-1-2' } }),
    ]);
  });
});
