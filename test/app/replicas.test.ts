// Two App processes (`node dist/app.js`, the bundle `npm start` runs) behind a round-robin proxy that, as a load
// balancer does, passes over a replica that refuses connections (issue 50). A person logs in through one replica
// and uses the page through the other; the replica that answered a slow command 202 is killed (SIGKILL) before it
// wrote anything; when it starts again its sweep asks GitHub for that delivery again, and the command is applied once;
// the person is still logged in on both. Needs `npm run build` first (dist/ is not committed on branches).
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeAs,
  formFields,
  freePort,
  getPage,
  openCallback,
  type PageWorld,
  post,
  startPageWorld,
} from './page-world.js';
import { APP, armedPair, type Replica, roundRobin, startReplica } from './replica-procs.js';
import { approvalDelivery, appServerEnv, observe, PEOPLE, startWorld } from './world.js';

describe.skipIf(!existsSync(APP))('two App processes behind a round-robin proxy', () => {
  let pw: PageWorld;
  let proxy: Server;
  let served: { path: string; port: number }[];
  const replicas = new Map<number, Replica>();
  let env: Record<string, string>;
  let front: PageWorld;
  const logInThrough = async (pw: PageWorld) =>
    (await openCallback(await authorizeAs(pw, PEOPLE.writer))).headers
      .getSetCookie()
      .find((c) => c.startsWith('interlock-session=v1.'))!
      .split(';')[0]!;

  beforeAll(async () => {
    pw = await startPageWorld();
    await pw.app.close();
    const rr = roundRobin(() => [...replicas.keys()]);
    proxy = rr.server;
    served = rr.served;
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    env = {
      ...pw.env,
      INTERLOCK_PAGE_URL: origin,
      INTERLOCK_REDELIVER: 'on',
      INTERLOCK_ANSWER_MS: '1000',
      INTERLOCK_WRITE_INTERVAL_MS: '0',
    };
    for (const port of [await freePort(), await freePort()])
      replicas.set(port, await startReplica(env, port));
    front = { ...pw, origin, env };
    pw.world.server.state.webhooks.target = {
      url: `${origin}/api/github/webhooks`,
      secret: pw.env.WEBHOOK_SECRET!,
    };
  });
  afterAll(async () => {
    for (const r of replicas.values()) {
      r.child.kill('SIGTERM');
      await r.exited;
    }
    proxy?.close();
    await pw?.world.close();
  });

  it('a login through one replica works through the other; a command answered 202 by a replica killed before it handled it is applied once after its restart', async () => {
    // Log in: the login starts on one replica and GitHub's callback lands on the other.
    const mark = served.length;
    const cb = await authorizeAs(front, PEOPLE.writer);
    const done = await openCallback(cb);
    expect(done.status).toBe(303);
    const [login, callback] = served.slice(mark).map((s) => s.port);
    expect(login).not.toBe(callback);
    const cookie = done.headers
      .getSetCookie()
      .find((c) => c.startsWith('interlock-session=v1.'))!
      .split(';')[0]!;
    for (let i = 0; i < 2; i++) expect((await getPage(front, cookie)).status).toBe(200);
    expect(new Set(served.slice(-2).map((s) => s.port)).size).toBe(2);

    // GitHub holds the journal's write back 4 s: the replica answers 202 at 1 s, and is killed while it waits.
    const world = pw.world;
    world.server.faults.inject({
      method: 'PUT',
      path: '/repos/{owner}/{repo}/contents/{path}',
      fault: { kind: 'secondary-rate-limit', retryAfter: 4 },
    });
    const { ev, body } = approvalDelivery(world);
    const hooks = world.server.state.webhooks;
    const first = await hooks.deliver('issue_comment', JSON.parse(body) as Record<string, unknown>);
    expect(first.status_code).toBe(202);
    const holder = served.filter((s) => s.path === '/api/github/webhooks').at(-1)!.port;
    const dying = replicas.get(holder)!;
    dying.child.kill('SIGKILL');
    await dying.exited;
    replicas.delete(holder);
    expect(observe(world, ev.payload.comment.id).approvals).toHaveLength(0);

    // It starts again: its sweep finds the delivery it answered 202 before it started and asks for it again.
    replicas.set(holder, await startReplica(env, holder));
    const end = Date.now() + 20_000;
    while (observe(world, ev.payload.comment.id).dispatches.length === 0 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 50));
    await hooks.settled();
    const seen = observe(world, ev.payload.comment.id);
    expect(seen.approvals).toHaveLength(1);
    expect(seen.dispatches).toHaveLength(1);
    expect(hooks.deliveries.filter((d) => d.guid === first.guid).map((d) => d.redelivery)).toEqual([
      false,
      true,
    ]);

    // A burst of the same delivery, four at once, spread over both replicas by the proxy: nothing more applied.
    const last = hooks.deliveries.filter((d) => d.guid === first.guid).at(-1)!;
    for (let i = 0; i < 4; i++) hooks.redeliver(Number(last.id));
    await hooks.settled();
    const burst = hooks.deliveries.filter((d) => d.guid === first.guid).slice(2);
    expect(burst.map((d) => d.status_code < 300)).toEqual([true, true, true, true]);
    const after = observe(world, ev.payload.comment.id);
    expect([after.approvals.length, after.dispatches.length]).toEqual([1, 1]);

    // The person is still logged in, on both replicas.
    for (let i = 0; i < 2; i++) {
      const page = await getPage(front, cookie);
      expect(page.status).toBe(200);
      expect(page.html).toContain('logged in as <strong>@bob</strong>');
    }
  });

  it('the "Done" line after a form, carried out by one replica, is shown once by the other', async () => {
    const cookie = await logInThrough(front);
    const fields = formFields((await getPage(front, cookie)).html, 'acme/gadgets', 'deploy', 'approve-rerun');
    const sent = await post(front, cookie, fields);
    expect(sent.status).toBe(303);
    const actedOn = served.at(-1)!.port;
    const notice = sent.headers
      .getSetCookie()
      .find((c) => c.startsWith('interlock-notice=v1.'))
      ?.split(';')[0];
    expect(notice).toBeDefined();
    // The browser follows the redirect; the proxy gives the page to the other replica, which shows the line and
    // clears the cookie.
    const r = await fetch(`${front.origin}/interlock/`, { headers: { cookie: `${cookie}; ${notice}` } });
    expect(served.at(-1)!.port).not.toBe(actedOn);
    const html = await r.text();
    expect(html).toContain('Done: released deploy attempt');
    expect(r.headers.getSetCookie().some((c) => /^interlock-notice=;.*Max-Age=0/.test(c))).toBe(true);
    // Once: the next page, on either replica, has no such line.
    for (let i = 0; i < 2; i++) expect((await getPage(front, cookie)).html).not.toContain('Done: ');
    // A notice opens only under the login it was given to.
    const other = await logInThrough(front);
    expect((await getPage(front, `${other}; ${notice}`)).html).not.toContain('Done: ');
  });
});

describe.skipIf(!existsSync(APP))(
  'a replica killed between the approval or settlement it journaled and its dispatch',
  () => {
    it.each(['/approve-rerun deploy', '/settle deploy checked the deploy by hand'])(
      'after its restart the redelivered `%s` dispatches the workflow once, however many copies arrive on both replicas',
      async (command) => {
        const world = await startWorld();
        const replicas = new Map<number, Replica>();
        const rr = roundRobin(() => [...replicas.keys()]);
        // What the replicas printed: shown when the dispatch is missing or repeated.
        const log: string[] = [];
        try {
          await world.seedRun();
          // Whoever journaled an approval has 3 s to dispatch; a copy waits that long before it looks. Both replicas
          // die right after their first approval write, whichever the proxy gives the comment to.
          const env = await armedPair(
            world,
            { secret: 'replica-secret', rr, replicas, log },
            { LOG_LEVEL: 'info' },
          );
          const hooks = world.server.state.webhooks;

          const { ev, body } = approvalDelivery(world, command);
          // The command's own event: a RerunApproved, or a person's NodeRecorded (the settlement).
          const written = () =>
            observe(world).events.filter(
              (e) => e.type === 'RerunApproved' || (e.type === 'NodeRecorded' && e.recorded_by !== undefined),
            );
          const first = await hooks.deliver('issue_comment', JSON.parse(body) as Record<string, unknown>);
          // 502 when it died holding the request; 202 when its write took past the answer window and it died after.
          expect([202, 502]).toContain(first.status_code);
          const port = await Promise.race([...replicas.entries()].map(([p, r]) => r.exited.then(() => p)));
          expect(replicas.get(port)!.child.signalCode).toBe('SIGKILL');
          replicas.delete(port);
          let seen = observe(world, ev.payload.comment.id);
          expect([written().length, seen.dispatches.length]).toEqual([1, 0]);

          // It starts again (unarmed): its sweep asks GitHub for the failed delivery again; four more copies of it arrive
          // at once over both replicas. One dispatch.
          replicas.set(port, await startReplica(env, port, log));
          for (let i = 0; i < 4; i++) hooks.redeliver(Number(first.id));
          const end = Date.now() + 30_000;
          while (observe(world, ev.payload.comment.id).dispatches.length === 0 && Date.now() < end)
            await new Promise((r) => setTimeout(r, 100));
          // The copies answered 202 go on after their answer: give the others time to find the claim.
          await hooks.settled();
          await new Promise((r) => setTimeout(r, 4000));
          seen = observe(world, ev.payload.comment.id);
          expect(written()).toHaveLength(1);
          expect(seen.dispatches, `${JSON.stringify(seen.events, null, 1)}\n${log.join('')}`).toHaveLength(1);
          expect(seen.dispatches[0]!.inputs).toEqual({ 'run-id': 'fix/issue-1' });
          expect(seen.events.filter((e) => e.type === 'WorkflowDispatchRetried')).toHaveLength(1);
          const copies = hooks.deliveries.filter((d) => d.guid === first.guid);
          expect(copies.filter((d) => d.redelivery).length).toBeGreaterThanOrEqual(5);
          expect(new Set(rr.served.filter((s) => s.path.startsWith('/api/')).map((s) => s.port)).size).toBe(
            2,
          );

          // Later copies find the workflow run the retry started (after its lease): nothing more.
          for (let i = 0; i < 2; i++) hooks.redeliver(Number(first.id));
          await hooks.settled();
          await new Promise((r) => setTimeout(r, 5000));
          seen = observe(world, ev.payload.comment.id);
          expect([
            seen.dispatches.length,
            seen.events.filter((e) => e.type === 'WorkflowDispatchRetried').length,
          ]).toEqual([1, 1]);
          expect(seen.replies.filter((r) => r.includes('was never dispatched'))).toHaveLength(1);
        } finally {
          for (const r of replicas.values()) {
            r.child.kill('SIGKILL');
            await r.exited;
          }
          rr.server.close();
          await world.close();
        }
      },
      90_000,
    );
  },
);

describe.skipIf(!existsSync(APP))('a replica stopped by SIGTERM (a deploy, a scale-down)', () => {
  it('finishes the delivery it answered 202 before it exits: applied once, nothing to find again', async () => {
    const world = await startWorld();
    try {
      await world.seedRun();
      const port = await freePort();
      const secret = 'stop-secret';
      const log: string[] = [];
      const env = {
        ...appServerEnv(world, secret),
        INTERLOCK_ANSWER_MS: '1000',
        INTERLOCK_WRITE_INTERVAL_MS: '0',
      };
      const r = await startReplica(env, port, log);
      const hooks = world.server.state.webhooks;
      hooks.target = { url: `http://127.0.0.1:${port}/api/github/webhooks`, secret };
      // GitHub holds the journal's write back 3 s: answered 202 at 1 s, then SIGTERM while it waits.
      world.server.faults.inject({
        method: 'PUT',
        path: '/repos/{owner}/{repo}/contents/{path}',
        fault: { kind: 'secondary-rate-limit', retryAfter: 3 },
      });
      const { ev, body } = approvalDelivery(world);
      const d = await hooks.deliver('issue_comment', JSON.parse(body) as Record<string, unknown>);
      expect(d.status_code).toBe(202);
      r.child.kill('SIGTERM');
      await r.exited;
      const seen = observe(world, ev.payload.comment.id);
      expect(seen.approvals).toHaveLength(1);
      expect(seen.dispatches).toHaveLength(1);
      expect(r.child.exitCode).toBe(0);
      expect(log.join('')).toMatch(/interlock app: stopped on SIGTERM\n/);
    } finally {
      await world.close();
    }
  });
});
