// The local GitHub's webhook deliveries as the App's JWT reads them (GET /app/hook/deliveries, POST
// .../attempts), through Probot's own Octokit and its typed methods: newest first, paged by cursor, filtered by
// status, a redelivery recorded under the same guid; an installation token is refused, an unknown id is 404.

import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Probot, ProbotOctokit } from 'probot';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type GitHubServer, startGitHubServer } from './github-server.js';

let server: GitHubServer;
beforeEach(async () => {
  server = await startGitHubServer();
});
afterEach(() => server.close());

async function asApp() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const probot = new Probot({
    appId: server.state.app.id,
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    baseUrl: server.url,
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
    logLevel: 'fatal',
  });
  return { probot, octokit: await probot.auth() };
}

it('lists deliveries newest first, by cursor and status, and sends one again under its guid', async () => {
  // A webhook receiver that refuses the first two deliveries and takes the rest.
  let calls = 0;
  const seen: string[] = [];
  const receiver = createServer((req, res) => {
    seen.push(String(req.headers['x-github-delivery']));
    req.resume();
    res.writeHead(++calls <= 2 ? 503 : 200).end();
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hooks = server.state.webhooks;
  hooks.target = { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, secret: 's' };
  try {
    for (let i = 0; i < 3; i++)
      await hooks.deliver('issue_comment', { action: 'created', installation: { id: 7 } });
    const { octokit } = await asApp();
    const page = await octokit.rest.apps.listWebhookDeliveries({ per_page: 2 });
    expect(page.data.map((d) => [d.status_code, d.redelivery])).toEqual([
      [200, false],
      [503, false],
    ]);
    expect(page.headers.link).toMatch(/<[^>]+cursor=v1_\d+[^>]*>; rel="next"/);
    const all = await octokit.paginate(octokit.rest.apps.listWebhookDeliveries, { per_page: 2 });
    expect(all).toHaveLength(3);
    expect(all[2]).toMatchObject({ event: 'issue_comment', action: 'created', installation_id: 7 });
    const failed = await octokit.rest.apps.listWebhookDeliveries({ status: 'failure' });
    expect(failed.data).toHaveLength(2);

    const oldest = all[2]!;
    const again = await octokit.rest.apps.redeliverWebhookDelivery({ delivery_id: Number(oldest.id) });
    expect(again.status).toBe(202);
    await hooks.settled();
    const [newest] = (await octokit.rest.apps.listWebhookDeliveries({ per_page: 1 })).data;
    expect(newest).toMatchObject({ guid: oldest.guid, redelivery: true, status_code: 200 });
    expect(seen.at(-1)).toBe(oldest.guid);
    await expect(octokit.rest.apps.redeliverWebhookDelivery({ delivery_id: 999_999 })).rejects.toMatchObject({
      status: 404,
    });
    // Only the App's JWT reads them.
    const token = await fetch(`${server.url}/app/hook/deliveries`, {
      headers: { authorization: 'token test' },
    });
    expect(token.status).toBe(401);
  } finally {
    receiver.close();
  }
});
