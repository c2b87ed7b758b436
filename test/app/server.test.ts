// The App as a real HTTP server (what `npm start` runs), authenticating as a GitHub App installation against
// the local GitHub and receiving deliveries signed with @octokit/webhooks-methods.
import { sign } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningApp, readServerEnv, startServer } from '../../src/app/server.js';
import { approvalDelivery, appServerEnv, observe, quietOctokit, startWorld, type World } from './world.js';

const SECRET = 'webhook-secret-for-tests';

let world: World;
let app: RunningApp;
afterEach(async () => {
  await app?.close();
  await world?.close();
});

async function start() {
  world = await startWorld();
  await world.seedRun();
  app = await startServer(appServerEnv(world, SECRET), { Octokit: quietOctokit() });
}

/** A delivery as GitHub sends it: the JSON body, the event and delivery headers, and the signature. */
async function deliver(
  body: string,
  headers: { event?: string; delivery: string; signature?: string | null },
): Promise<Response> {
  return fetch(app.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': headers.event ?? 'issue_comment',
      'x-github-delivery': headers.delivery,
      ...(headers.signature === null
        ? {}
        : { 'x-hub-signature-256': headers.signature ?? (await sign(SECRET, body)) }),
    },
    body,
  });
}

function approval(delivery = 'a1') {
  return { ...approvalDelivery(world), delivery };
}

describe('the App over HTTP', () => {
  it('handles a delivery with a good signature, as the App installation', async () => {
    await start();
    const { body, delivery, ev } = approval();
    const res = await deliver(body, { delivery });
    expect(res.status).toBe(200);
    const seen = observe(world, ev.payload.comment.id);
    expect(seen.approvals).toHaveLength(1);
    expect(seen.dispatches).toHaveLength(1);
    // It authenticated as the App: an installation token was issued, and the reply is the App's.
    expect(world.server.requests.count({ path: /\/app\/installations\/\d+\/access_tokens$/ })).toBe(1);
    const reply = [...world.repo.comments.values()].find((c) => c.body.startsWith('<!-- interlock:reply'));
    expect(reply?.user).toBe(world.server.state.app.botLogin);
  });

  it('refuses a bad signature with 400 and changes nothing', async () => {
    await start();
    const { body, delivery } = approval();
    const before = world.server.requests.mark();
    const res = await deliver(body, { delivery, signature: await sign('not-the-secret', body) });
    expect(res.status).toBe(400);
    expect(world.server.requests.stats(before).total).toBe(0);
    expect(observe(world).approvals).toHaveLength(0);
  });

  it('refuses a signature over another body with 400', async () => {
    await start();
    const { body, delivery } = approval();
    const res = await deliver(body, {
      delivery,
      signature: await sign(SECRET, body.replace('deploy', 'plan')),
    });
    expect(res.status).toBe(400);
    expect(observe(world).approvals).toHaveLength(0);
  });

  it('refuses a missing signature with 400 and changes nothing', async () => {
    await start();
    const { body, delivery } = approval();
    const before = world.server.requests.mark();
    const res = await deliver(body, { delivery, signature: null });
    expect(res.status).toBe(400);
    expect(world.server.requests.stats(before).total).toBe(0);
    expect(observe(world).approvals).toHaveLength(0);
  });

  it('the same delivery twice approves once', async () => {
    await start();
    const { body, delivery } = approval('same-delivery');
    expect((await deliver(body, { delivery })).status).toBe(200);
    expect((await deliver(body, { delivery })).status).toBe(200);
    const seen = observe(world);
    expect(seen.approvals).toHaveLength(1);
    expect(seen.dispatches).toHaveLength(1);
    expect(seen.replies).toHaveLength(1);
  });

  it('answers 404 outside the webhook path', async () => {
    await start();
    const res = await fetch(app.url.replace('/api/github/webhooks', '/'), { method: 'GET' });
    expect(res.status).toBe(404);
  });
});

describe('npm start configuration', () => {
  it('names what is missing', () => {
    expect(() => readServerEnv({})).toThrow(/APP_ID[\s\S]*WEBHOOK_SECRET/);
    expect(() => readServerEnv({ APP_ID: '12', WEBHOOK_SECRET: 's' })).toThrow(/PRIVATE_KEY/);
    expect(readServerEnv({ APP_ID: '12', WEBHOOK_SECRET: 's', PRIVATE_KEY: 'k' })).toMatchObject({
      PORT: 3000,
      WEBHOOK_PATH: '/api/github/webhooks',
    });
  });
});
