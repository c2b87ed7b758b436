// Two App processes (`node dist/app.js`, the bundle `npm start` runs) behind a round-robin proxy that, as a load
// balancer does, passes over a replica that refuses connections (issue 50). A person logs in through one replica
// and uses the page through the other; the replica that answered a slow command 202 is killed (SIGKILL) before it
// wrote anything; when it starts again its sweep asks GitHub for that delivery again, and the command is applied once;
// the person is still logged in on both. Needs `npm run build` first (dist/ is not committed on branches).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeAs,
  freePort,
  getPage,
  openCallback,
  type PageWorld,
  startPageWorld,
} from './page-world.js';
import { approvalDelivery, appServerEnv, observe, PEOPLE, startWorld } from './world.js';

const APP = new URL('../../dist/app.js', import.meta.url).pathname;

interface Replica {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
}

async function startReplica(env: Record<string, string>, port: number, log?: string[]): Promise<Replica> {
  const child = spawn(process.execPath, [APP], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const seen = (d: Buffer) => {
      out += d.toString();
      log?.push(d.toString());
      if (/receiving webhooks at/.test(out)) resolve();
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    void exited.then(() => reject(new Error(`the replica exited: ${out}`)));
  });
  return { port, child, exited };
}

/** Round robin over the ports, each request to the next one that accepts a connection; records who served what. */
function roundRobin(ports: () => number[]): { server: Server; served: { path: string; port: number }[] } {
  let next = 0;
  const served: { path: string; port: number }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const list = ports();
      const attempt = (tries: number) => {
        const port = list[next++ % list.length]!;
        const out = request(
          { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent: false },
          (answer) => {
            served.push({ path: req.url ?? '', port });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => (tries > 1 ? attempt(tries - 1) : res.writeHead(502).end('no replica\n')));
        out.end(body);
      };
      attempt(list.length);
    });
  });
  return { server, served };
}

describe.skipIf(!existsSync(APP))('two App processes behind a round-robin proxy', () => {
  let pw: PageWorld;
  let proxy: Server;
  let served: { path: string; port: number }[];
  const replicas = new Map<number, Replica>();
  let env: Record<string, string>;
  let front: PageWorld;

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
});

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
