// `/rerun-from <node> [run-id]` (issue 28) through the App's real HTTP server (deliveries signed with
// @octokit/webhooks-methods, the App authenticating as its installation) and the Action's `mode: comment`
// (`node dist/index.js`), against the local GitHub.
import { sign } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningApp, startServer } from '../../src/app/server.js';
import { fold } from '../../src/journal/fold.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import {
  appServerEnv,
  commentEvent,
  OWNER,
  observe,
  PEOPLE,
  quietOctokit,
  REPO,
  startWorld,
  type World,
} from './world.js';

const SECRET = 'webhook-secret-for-rerun-tests';

let world: World;
let app: RunningApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  await world?.close();
});

/** A comment delivered as GitHub sends it to the App: signed, naming the installation. */
async function deliver(body: string, login: string = PEOPLE.writer, id?: number) {
  const ev = commentEvent(world, { body, login, ...(id !== undefined ? { id } : {}) });
  const json = JSON.stringify({ ...ev.payload, installation: { id: world.server.state.app.installationId } });
  const res = await fetch(app!.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': `${ev.id}-${Math.random()}`,
      'x-hub-signature-256': await sign(SECRET, json),
    },
    body: json,
  });
  expect(res.status).toBe(200);
  return ev;
}

async function startApp(shape?: 'failed') {
  world = await startWorld();
  await world.seedRun(shape ? { shape } : {});
  app = await startServer(appServerEnv(world, SECRET), { Octokit: quietOctokit() });
}

describe('/rerun-from through the App (signed deliveries)', () => {
  it('marks exactly the node and its dependents; replay: never nodes that ran wait for /approve-rerun', async () => {
    await startApp();
    const ev = await deliver('/rerun-from plan\nThe plan missed the migration step.');
    const seen = observe(world, ev.payload.comment.id);
    const rerun = seen.events.filter((e) => e.type === 'RerunFromApproved');
    expect(rerun).toEqual([
      expect.objectContaining({
        node: 'plan',
        nodes: ['plan', 'deploy', 'notify'],
        approved_by: PEOPLE.writer,
        source: ev.payload.comment.html_url,
        graph_hash: world.graph.hash,
        guidance: 'The plan missed the migration step.',
      }),
    ]);
    const cp = fold(world.journal(), world.graph).checkpoint;
    expect(cp.held_nodes).toEqual(['plan', 'deploy']);
    expect(cp.completed_nodes).toEqual([]);
    expect(seen.replies.at(-1)).toContain('Rerun from `plan`: `plan`, `deploy`, `notify` run again');
    expect(seen.replies.at(-1)).toContain('`replay: never`');
    expect(seen.reactions).toEqual(['eyes', '+1']);
    // Nothing is ready (both are held), so no workflow run is started.
    expect(seen.dispatches).toEqual([]);
  });

  it('a person without write permission is refused and nothing is written', async () => {
    await startApp();
    const before = world.journal().events.length;
    await deliver('/rerun-from plan', PEOPLE.reader);
    expect(world.journal().events.length).toBe(before);
    expect(observe(world).replies.at(-1)).toContain('did not act on this comment');
  });

  it('on an ended run it forks fix/issue-1-2 with the earlier records, dispatches it, and a redelivery forks nothing more', async () => {
    await startApp('failed');
    const ev = await deliver('/rerun-from deploy');
    const fork = world.journal('fix/issue-1-2');
    expect(fork.events[0]).toMatchObject({
      type: 'RunStarted',
      forked_from: {
        run_id: 'fix/issue-1',
        seq: world.journal().events.at(-1)!.seq,
        node: 'deploy',
        source: ev.payload.comment.html_url,
      },
      started_by: PEOPLE.writer,
    });
    expect(fork.events.slice(1).map((e) => [e.type, 'node' in e ? e.node : ''])).toEqual([
      ['NodeCarriedOver', 'plan'],
    ]);
    expect(fold(fork, world.graph).checkpoint.ready_nodes).toEqual(['deploy']);
    const seen = observe(world, ev.payload.comment.id);
    expect(seen.dispatches).toEqual([
      expect.objectContaining({ workflow_id: 'interlock.yml', inputs: { 'run-id': 'fix/issue-1-2' } }),
    ]);
    expect(seen.replies.at(-1)).toContain('forked it as **`fix/issue-1-2`**');
    await deliver('/rerun-from deploy', PEOPLE.writer, ev.payload.comment.id);
    expect(() => world.journal('fix/issue-1-3')).toThrow(/no journal/);
    expect(observe(world).dispatches).toHaveLength(1);
  });
});

describe('/rerun-from on a fork through the App', () => {
  it('forks fix/issue-1-2 as fix/issue-1-3, the next of its series (the CLI and nextRunId name it so)', async () => {
    world = await startWorld();
    await world.seedRun({ shape: 'failed', runId: 'fix/issue-1-2' });
    app = await startServer(appServerEnv(world, SECRET), { Octokit: quietOctokit() });
    const ev = await deliver('/rerun-from deploy fix/issue-1-2');
    expect(world.journal('fix/issue-1-3').events[0]).toMatchObject({
      type: 'RunStarted',
      forked_from: { run_id: 'fix/issue-1-2', node: 'deploy', source: ev.payload.comment.html_url },
    });
    expect(observe(world, ev.payload.comment.id).replies.at(-1)).toContain(
      'forked it as **`fix/issue-1-3`**',
    );
  });
});

describe("/rerun-from through the Action's mode: comment (dist/index.js)", () => {
  it('writes RerunFromApproved for the node and its dependents and replies', async () => {
    world = await startWorld();
    await world.seedRun();
    const ev = commentEvent(world, { body: '/rerun-from deploy fix/issue-1', login: PEOPLE.writer });
    const r = await runStep({
      apiUrl: world.server.url,
      repository: `${OWNER}/${REPO}`,
      workspace: makeWorkspace({}),
      eventName: 'issue_comment',
      payload: ev.payload,
      inputs: { mode: 'comment' },
      job: { runId: 8001 },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const seen = observe(world, ev.payload.comment.id);
    expect(seen.events.filter((e) => e.type === 'RerunFromApproved')).toEqual([
      expect.objectContaining({ node: 'deploy', nodes: ['deploy', 'notify'], approved_by: PEOPLE.writer }),
    ]);
    // deploy was interrupted (held) and is held again, for its rerun; plan keeps its record.
    const cp = fold(world.journal(), world.graph).checkpoint;
    expect(cp.completed_nodes).toEqual(['plan']);
    expect(cp.reruns).toEqual({ deploy: 1 });
    expect(seen.replies.at(-1)).toContain('Rerun from `deploy`');
  });
});
