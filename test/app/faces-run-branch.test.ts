// Every face reads every layout (issue 45): a node escalated through the bundled action (`node dist/index.js`,
// the default store: its journal on the run's own branch `interlock-journal-runs/<run-id>`) is seen as waiting
// for a person on the App's page and settled from it, is found by `/interlock status` through the App's signed
// webhook and through the Action's `mode: comment`, and by `mode: stuck` (which tells the issue once, and does
// not take a person's comment that quotes its marker for its own notice: github/own-comment.ts). Before, the
// page read only runs listed with a blob version, which a run branch's listing has none of, and said "Nothing
// waits for a person".
import { createServer } from 'node:net';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/app/server.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal } from '../../src/journal/parse.js';
import { issueStep } from '../action/world.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { clientSecretOf } from '../support/github/oauth.js';
import { formFields, getPage, logIn, PAGE_KEY, type PageWorld, post } from './page-world.js';
import {
  appServerEnv,
  CONFIG,
  commentEvent,
  DEFAULT_APPROVALS,
  GRAPH_PATH,
  GRAPH_TEXT,
  OWNER,
  PEOPLE,
  quietOctokit,
  REPO,
  startWorld,
} from './world.js';

const SECRET = 'faces-secret';
const RUN = 'fix/issue-2';
const RUN_BRANCH = `interlock-journal-runs/${RUN}`;
const FILES = { [GRAPH_PATH]: GRAPH_TEXT, '.github/interlock.yml': CONFIG(DEFAULT_APPROVALS) };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

let pw: PageWorld;
beforeAll(async () => {
  // No run seeded by hand: the only journal is the one the bundled action writes.
  const world = await startWorld();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const clientId = `Iv1.${world.server.state.app.slug}`;
  const env = {
    ...appServerEnv(world, SECRET),
    PORT: String(port),
    INTERLOCK_PAGE_URL: origin,
    GITHUB_CLIENT_ID: clientId,
    GITHUB_CLIENT_SECRET: clientSecretOf(clientId),
    GITHUB_WEB_URL: world.server.url,
    INTERLOCK_PAGE_KEYS: PAGE_KEY,
  };
  const app = await startServer(env, { Octokit: quietOctokit() });
  pw = {
    world,
    gadgets: world.repo,
    app,
    origin,
    env,
    close: async () => {
      await app.close();
      await world.close();
    },
  };
}, 30_000);
afterAll(() => pw?.close());

const journal = () => {
  const text = pw.world.repo.readText(`runs/${RUN}.json`, RUN_BRANCH);
  if (text === undefined) throw new Error(`no journal on ${RUN_BRANCH}`);
  return parseJournal(text, RUN);
};

/** A comment delivered as GitHub sends it to the App: signed, naming the installation. */
async function deliver(body: string): Promise<void> {
  const ev = commentEvent(pw.world, { body, login: PEOPLE.writer, issue: 2, labels: ['fix'] });
  const json = JSON.stringify({
    ...ev.payload,
    installation: { id: pw.world.server.state.app.installationId },
  });
  const res = await fetch(pw.app.url, {
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
}

const replies = () =>
  pw.world.repo
    .commentsOn(2)
    .filter((c) => c.body.startsWith('<!-- interlock:reply'))
    .map((c) => c.body);

describe('a node escalated through the bundled action, on its own run branch, on every face', () => {
  it('the step escalates deploy and keeps the journal on the run branch, not on the journal branch', async () => {
    const r = await runStep(
      issueStep(pw.world.server, makeWorkspace(FILES), 2, 'fix', { inputs: { node: 'all' } }),
    );
    expect(r.outputs, r.stdout + r.stderr).toMatchObject({ status: 'escalated' });
    expect(fold(journal(), pw.world.graph).checkpoint.escalated_nodes).toEqual(['deploy']);
    expect(pw.world.repo.readText(`runs/${RUN}.json`, 'interlock-journal')).toBeUndefined();
  }, 60_000);

  it('/interlock status through the App names the run and the node that waits', async () => {
    await deliver('/interlock status');
    const reply = replies().at(-1);
    expect(reply).toContain(RUN);
    expect(reply).toContain('deploy');
    expect(reply).toMatch(/escalated/i);
  });

  it("/interlock status through the Action's mode: comment names the run and the node that waits", async () => {
    const before = replies().length;
    const ev = commentEvent(pw.world, {
      body: '/interlock status',
      login: PEOPLE.writer,
      issue: 2,
      labels: ['fix'],
    });
    const r = await runStep({
      apiUrl: pw.world.server.url,
      repository: `${OWNER}/${REPO}`,
      workspace: makeWorkspace({}),
      eventName: 'issue_comment',
      payload: ev.payload,
      inputs: { mode: 'comment' },
      job: { runId: 8101 },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(replies()).toHaveLength(before + 1);
    const reply = replies().at(-1);
    expect(reply).toContain(RUN);
    expect(reply).toContain('deploy');
    expect(reply).toMatch(/escalated/i);
  }, 60_000);

  it('mode: stuck finds the run on its branch and tells the issue once, a person quoting its marker notwithstanding', async () => {
    const tick = () =>
      runStep({
        ...issueStep(pw.world.server, makeWorkspace({}), 2, 'fix'),
        eventName: 'schedule',
        payload: { schedule: '17 * * * *' },
        inputs: { mode: 'stuck', 'stuck-after': '1ms' },
      });
    // A person quotes the notice's marker before interlock ever wrote it: that is not interlock's own notice.
    const mark = `<!-- interlock:stuck ${RUN} ${journal().events.at(-1)!.at} -->`;
    pw.world.repo.addComment(
      2,
      `${mark}\nIs this stuck? I copied the marker from another issue.`,
      PEOPLE.writer,
    );
    const r = await tick();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.outputs.stuck ?? '[]')).toEqual([expect.objectContaining({ run_id: RUN })]);
    const notices = () =>
      pw.world.repo
        .commentsOn(2)
        .filter((c) => c.user !== PEOPLE.writer && c.body.startsWith(mark) && c.body.includes('no activity'));
    expect(notices()).toHaveLength(1);
    // It names who the run waits for, in the page's words: the escalated node, nobody's approval yet.
    expect(notices()[0]!.body).toMatch(
      /^- deploy: escalated after 2 failed attempts \(0 of 1 approval\); approved by nobody yet$/m,
    );
    await tick();
    expect(notices()).toHaveLength(1);
  }, 60_000);

  it('the App page lists it as waiting for a person, and settling it there writes to the run branch', async () => {
    const cookie = await logIn(pw, PEOPLE.writer);
    const { html } = await getPage(pw, cookie);
    expect(html).not.toContain('Nothing waits for a person');
    expect(html).toContain(RUN);
    const fields = formFields(html, 'acme/widgets', 'deploy', 'settle');
    expect(fields.get('run')).toBe(RUN);
    fields.set('note', 'deployed by hand, checked the health page');
    const r = await post(pw, cookie, fields);
    expect(r.status, await r.text()).toBe(303);
    const settled = journal().events.filter((e) => e.type === 'NodeRecorded' && e.recorded_by);
    expect(settled).toEqual([
      expect.objectContaining({
        node: 'deploy',
        recorded_by: PEOPLE.writer,
        note: 'deployed by hand, checked the health page',
      }),
    ]);
    expect(fold(journal(), pw.world.graph).checkpoint.escalated_nodes).toEqual([]);
    const after = (await getPage(pw, cookie)).html;
    expect(after).not.toContain(`>${RUN}<`);
  });
});
