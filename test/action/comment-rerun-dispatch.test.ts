// A `mode: comment` job that journaled a person's approval and died before it dispatched the run's workflow, then
// re-run by GitHub on the same event (`GITHUB_RUN_ATTEMPT` 2; issue 45): the journal already holds the approval, so
// the re-run writes no second one, but the dispatch is still owed. The re-run follows the rule the App's replicas
// follow (src/protocol/commands/owed-dispatch.ts, src/approvals/applying/retry-dispatch.ts): no workflow run of the
// workflow since the approval, the lease past, so it journals `WorkflowDispatchRetried` and dispatches, once. A
// re-run after a dispatch that did happen dispatches nothing. A `/settle` that released the next node is retried the
// same way (its delivery is named in its words, src/journal/person-record.ts). A token that may not list the workflow's runs (403)
// fails the step with one line naming `actions: read`, and writes nothing. Through the bundled action
// (`node dist/index.js`) against the local GitHub.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commentEvent, OWNER, observe, PEOPLE, REPO, startWorld, type World } from '../app/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { journalText } from '../support/journal-text.js';

const RUN = 'fix/issue-1';
const LIST_RUNS = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs';

let world: World;
beforeAll(requireBundle);
afterEach(async () => world?.close());

/** One attempt of the comment workflow's job (the same workflow run, 9201), as a runner runs it. */
function attempt(payload: Record<string, unknown>, n: number, env: Record<string, string> = {}) {
  return runStep({
    apiUrl: world.server.url,
    repository: `${OWNER}/${REPO}`,
    workspace: makeWorkspace({}),
    eventName: 'issue_comment',
    payload,
    inputs: { mode: 'comment' },
    job: { runId: 9201, attempt: n },
    // Whoever journaled an approval has 1 s (the shortest lease) to dispatch; past it a copy of the command may.
    env: { INTERLOCK_DISPATCH_LEASE_MS: '1000', ...env },
  });
}

const retries = () => observe(world).events.filter((e) => e.type === 'WorkflowDispatchRetried');

/** The first attempt, killed right after it journaled the approval (or `body`): nothing dispatched. */
async function killedAfterWrite(body = '/approve-rerun deploy') {
  world = await startWorld();
  await world.seedRun({ progressCommentOn: 1 });
  const ev = commentEvent(world, { body, login: PEOPLE.writer });
  const killed = await attempt(ev.payload, 1, { INTERLOCK_FAILPOINTS: 'after-person-command-write' });
  expect(killed.signal, killed.log).toBe('SIGKILL');
  const seen = observe(world, ev.payload.comment.id);
  const written = seen.events.filter(
    (e) => e.type === 'RerunApproved' || (e.type === 'NodeRecorded' && e.recorded_by),
  );
  expect([written.length, seen.dispatches.length, seen.replies.length]).toEqual([1, 0, 0]);
  return ev;
}

describe('a comment command re-run after its job died between the approval write and the dispatch', () => {
  it('the re-run dispatches the workflow once; a later re-run finds that workflow run and dispatches nothing', async () => {
    const ev = await killedAfterWrite();

    const again = await attempt(ev.payload, 2);
    expect(again.code, again.log).toBe(0);
    expect(again.outputs.status, again.log).toBe('completed');
    const seen = observe(world, ev.payload.comment.id);
    expect(seen.approvals).toHaveLength(1);
    expect(seen.dispatches).toEqual([
      expect.objectContaining({ workflow_id: 'interlock.yml', ref: 'main', inputs: { 'run-id': RUN } }),
    ]);
    expect(retries()).toEqual([
      expect.objectContaining({ source: ev.payload.comment.html_url, workflow: 'interlock.yml' }),
    ]);
    expect(seen.replies).toHaveLength(1);
    expect(seen.replies[0]).toContain('was never dispatched');

    // "Re-run all jobs" once more: the workflow run the second attempt dispatched is listed; nothing is written.
    const written = journalText(world.repo, RUN);
    const third = await attempt(ev.payload, 3);
    expect(third.code, third.log).toBe(0);
    expect(third.outputs.status, third.log).toBe('ignored');
    expect(third.log).toMatch(/workflow run \d+ of `interlock\.yml` was dispatched since/);
    expect(observe(world).dispatches).toHaveLength(1);
    expect(observe(world).replies).toHaveLength(1);
    expect(journalText(world.repo, RUN)).toBe(written);
  }, 60_000);

  it('a re-run of a job whose dispatch did happen dispatches nothing and writes nothing', async () => {
    world = await startWorld();
    await world.seedRun({ progressCommentOn: 1 });
    const ev = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer });
    const first = await attempt(ev.payload, 1);
    expect(first.outputs.status, first.log).toBe('completed');
    expect(observe(world).dispatches).toHaveLength(1);
    const written = journalText(world.repo, RUN);

    const again = await attempt(ev.payload, 2);
    expect(again.code, again.log).toBe(0);
    expect(again.outputs.status, again.log).toBe('ignored');
    expect(observe(world).dispatches).toHaveLength(1);
    expect(observe(world).replies).toHaveLength(1);
    expect(retries()).toEqual([]);
    expect(journalText(world.repo, RUN)).toBe(written);
  }, 60_000);

  it('a token that may not list the workflow runs (403) fails the re-run with a line naming `actions: read`, and writes nothing', async () => {
    const ev = await killedAfterWrite();
    const written = journalText(world.repo, RUN);
    // What GitHub answers a job token without the Actions permission.
    world.server.faults.inject({
      method: 'GET',
      path: LIST_RUNS,
      every: true,
      fault: { kind: 'status', status: 403, message: 'Resource not accessible by integration' },
    });

    const again = await attempt(ev.payload, 2);
    expect(again.code, again.log).toBe(1);
    expect(again.outputs.status).toBe('failed');
    const line = again.log.split('\n').find((l) => l.includes('actions: read')) ?? '';
    expect(line, again.log).toMatch(/403/);
    expect(line).toMatch(/permissions:/);
    expect(observe(world).dispatches).toEqual([]);
    expect(journalText(world.repo, RUN)).toBe(written);
  }, 60_000);

  it('a `/settle` that released notify: the re-run dispatches the workflow once, a later re-run nothing', async () => {
    const ev = await killedAfterWrite('/settle deploy checked the deploy by hand');
    expect(world.journal(RUN).events.at(-1)).toMatchObject({
      type: 'NodeRecorded',
      recorded_by: PEOPLE.writer,
    });

    const again = await attempt(ev.payload, 2);
    expect(again.code, again.log).toBe(0);
    expect(again.outputs.status, again.log).toBe('completed');
    const settled = observe(world).events.filter((e) => e.type === 'NodeRecorded' && e.recorded_by);
    expect(settled).toHaveLength(1);
    expect(observe(world).dispatches).toEqual([
      expect.objectContaining({ workflow_id: 'interlock.yml', ref: 'main', inputs: { 'run-id': RUN } }),
    ]);
    expect(retries()).toEqual([
      expect.objectContaining({ source: ev.payload.comment.html_url, workflow: 'interlock.yml' }),
    ]);
    expect(observe(world).replies[0]).toContain('was never dispatched');

    const written = journalText(world.repo, RUN);
    const third = await attempt(ev.payload, 3);
    expect(third.outputs.status, third.log).toBe('ignored');
    expect(third.log).toMatch(/workflow run \d+ of `interlock\.yml` was dispatched since/);
    expect(observe(world).dispatches).toHaveLength(1);
    expect(journalText(world.repo, RUN)).toBe(written);
  }, 60_000);
});
