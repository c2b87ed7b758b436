// Missed deliveries found again (issue 50), end to end through the local GitHub's webhook: a comment command
// delivered while the App is down is asked for again by the App's sweep at start (GET /app/hook/deliveries, POST
// .../attempts, with its JWT) and applied once; a second replica's sweep and a burst of the same delivery apply
// nothing more; a slow delivery is answered 202 within the answer window, long before GitHub's 10 s.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type DeliveryAttempt, toRedeliver } from '../../src/app/deliveries.js';
import { type RunningApp, startServer } from '../../src/app/server.js';
import type { DeliveryRecord } from '../support/github/webhooks.js';
import { freePort } from './page-world.js';
import { approvalDelivery, appServerEnv, observe, quietOctokit, startWorld, type World } from './world.js';

const SECRET = 'redeliver-secret';
let world: World;
const apps: RunningApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  await world?.close();
});

async function until(what: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function startApp(port: number, env: Record<string, string> = {}, quiet = true): Promise<RunningApp> {
  const app = await startServer(
    { ...appServerEnv(world, SECRET), PORT: String(port), INTERLOCK_REDELIVER: 'on', ...env },
    quiet ? { Octokit: quietOctokit() } : {},
  );
  apps.push(app);
  return app;
}

const hooks = () => world.server.state.webhooks;
const attemptsOf = (guid: string) => hooks().deliveries.filter((d) => d.guid === guid);

describe('a delivery GitHub could not make', () => {
  it('is asked for again by the sweep at start, applied once; a second replica and a burst apply nothing more', async () => {
    world = await startWorld();
    await world.seedRun();
    const port = await freePort();
    hooks().target = { url: `http://127.0.0.1:${port}/api/github/webhooks`, secret: SECRET };
    // The App is down while the writer comments: GitHub records the delivery as failed.
    const { ev, body } = approvalDelivery(world);
    const missed = await hooks().deliver('issue_comment', JSON.parse(body) as Record<string, unknown>);
    expect(missed.status).toBe('failed to connect');
    expect(observe(world, ev.payload.comment.id).approvals).toHaveLength(0);

    const before = world.server.requests.mark();
    const a = await startApp(port);
    const swept = await a.swept;
    expect(swept).toMatchObject({ asked: [missed.guid], left: 0, requests: 2 });
    await hooks().settled();
    // Handled to its end: the reaction is the handler's last request.
    await until(() => observe(world, ev.payload.comment.id).reactions.includes('+1'));
    expect(world.server.requests.count({ kind: 'GET /app/hook/deliveries', since: before })).toBe(1);
    expect(
      world.server.requests.count({
        kind: 'POST /app/hook/deliveries/{delivery_id}/attempts',
        since: before,
      }),
    ).toBe(1);
    const again = attemptsOf(missed.guid);
    // Answered 2xx: 200 when handled within the answer window, else 202 and handled after.
    expect(again.map((d) => [d.redelivery, d.status_code < 300])).toEqual([
      [false, false],
      [true, true],
    ]);

    // A second replica starts: its sweep finds the delivery asked for already and asks nothing.
    const b = await startApp(await freePort());
    expect((await b.swept)?.asked).toEqual([]);
    // A burst: the same delivery three times at once to the first replica, and once to the second.
    const last = again.at(-1) as DeliveryRecord;
    const burst = world.server.requests.mark();
    for (let i = 0; i < 3; i++) hooks().redeliver(Number(last.id));
    await hooks().settled();
    // The first replica knows the delivery id: it answers without handling (not one request to GitHub).
    expect(world.server.requests.stats(burst).total).toBe(0);
    hooks().target = { url: b.url, secret: SECRET };
    hooks().redeliver(Number(last.id));
    await hooks().settled();
    expect(
      attemptsOf(missed.guid)
        .slice(2)
        .map((d) => d.status_code < 300),
    ).toEqual([true, true, true, true]);
    const seen = observe(world, ev.payload.comment.id);
    expect(seen.approvals).toHaveLength(1);
    expect(seen.dispatches).toHaveLength(1);
    // The second replica handled it (the id was new to it): the journal's record of the comment applied nothing.
    expect(seen.replies).toHaveLength(1);
  });

  it('a slow delivery is answered 202 within the answer window and handled after', async () => {
    world = await startWorld();
    await world.seedRun();
    const port = await freePort();
    hooks().target = { url: `http://127.0.0.1:${port}/api/github/webhooks`, secret: SECRET };
    // GitHub holds the dispatch back 3 s (a rate limit the App's client waits out): the handler takes > 3 s.
    world.server.faults.inject({
      method: 'POST',
      path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      fault: { kind: 'secondary-rate-limit', retryAfter: 3 },
    });
    await startApp(port, { INTERLOCK_ANSWER_MS: '500', INTERLOCK_REDELIVER: 'off' }, false);
    const { ev, body } = approvalDelivery(world);
    const d = await hooks().deliver('issue_comment', JSON.parse(body) as Record<string, unknown>);
    expect(d.status_code).toBe(202);
    expect(d.duration).toBeLessThan(1.5);
    expect(observe(world, ev.payload.comment.id).dispatches).toHaveLength(0);
    await until(() => observe(world, ev.payload.comment.id).dispatches.length > 0);
    expect(observe(world, ev.payload.comment.id).approvals).toHaveLength(1);
  });
});

const APP = new URL('../../dist/app.js', import.meta.url).pathname;

describe.skipIf(!existsSync(APP))('npm start -- redeliver (dist/app.js): one sweep for a cron', () => {
  it('asks for each missed delivery once, says so, and exits', async () => {
    world = await startWorld();
    await world.seedRun();
    hooks().target = { url: `http://127.0.0.1:${await freePort()}/api/github/webhooks`, secret: SECRET };
    const missed = await hooks().deliver(
      'issue_comment',
      JSON.parse(approvalDelivery(world).body) as Record<string, unknown>,
    );
    const dir = mkdtempSync(join(tmpdir(), 'interlock-redeliver-'));
    try {
      const run = () =>
        new Promise<{ status: number | null; out: string }>((resolve) => {
          // Not spawnSync: the local GitHub answers from this process.
          const child = spawn(process.execPath, [APP, 'redeliver'], {
            cwd: dir,
            env: { PATH: process.env.PATH, HOME: process.env.HOME, ...appServerEnv(world, SECRET) },
          });
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d));
          child.stderr.on('data', (d: Buffer) => (out += d));
          child.on('close', (status) => resolve({ status, out }));
        });
      const first = await run();
      expect(first).toMatchObject({
        status: 0,
        out: expect.stringMatching(/1 recent deliveries read, 1 asked for again \(2 requests\)/),
      });
      await hooks().settled();
      expect(attemptsOf(missed.guid).map((d) => d.redelivery)).toEqual([false, true]);
      // Asked for once: the next run leaves it alone (its redelivery failed too: the App is still down).
      expect((await run()).out).toMatch(/2 recent deliveries read, 0 asked for again \(1 requests\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what a sweep asks for again', () => {
  const at = (min: number) => new Date(Date.UTC(2026, 11, 7, 12, min)).toISOString();
  const attempt = (guid: string, min: number, status_code: number, redelivery = false): DeliveryAttempt => ({
    id: min,
    guid,
    delivered_at: at(min),
    redelivery,
    status_code,
    event: 'issue_comment',
  });

  it('each guid no attempt handled, once, oldest first; a 202 only when it came before this process', () => {
    const attempts = [
      attempt('down', 5, 502),
      attempt('down', 6, 500),
      attempt('late', 1, 0),
      attempt('ok', 2, 200),
      attempt('ok-after-fail', 3, 500),
      attempt('ok-after-fail', 4, 200),
      attempt('asked-once', 7, 502),
      attempt('asked-once', 8, 502, true),
      attempt('acked-before-start', 9, 202),
      attempt('acked-after-start', 30, 202),
    ];
    const start = Date.parse(at(20));
    expect(toRedeliver(attempts, start).map((a) => [a.guid, a.id])).toEqual([
      ['late', 1],
      ['down', 6],
      ['acked-before-start', 9],
    ]);
    // A periodic sweep (no start) leaves every 202 alone: another replica may be handling it.
    expect(toRedeliver(attempts).map((a) => a.guid)).toEqual(['late', 'down']);
  });
});
