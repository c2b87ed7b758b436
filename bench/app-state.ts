// The App with nothing it cannot lose (issue 50): how long GitHub waits for an answer when handling is slow (the
// App's server against a bare Probot middleware, same slow GitHub, same run), what a sweep of missed deliveries
// costs in requests, and what a sealed login costs per request against reading the same JSON unsealed.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from '@octokit/webhooks-methods';
import { createNodeMiddleware, createProbot, Probot, ProbotOctokit } from 'probot';
import { type JwtClient, sweepDeliveries } from '../src/app/deliveries.js';
import { Sealer, Sessions } from '../src/app/page/sessions.js';
import { interlockApp } from '../src/app/probot.js';
import { startServer } from '../src/app/server.js';
import { webhookExample } from '../test/support/fixtures.js';
import { startGitHubServer } from '../test/support/github-server.js';

const SECRET = 'bench-secret';
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const quiet = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });

export interface AppStateFigures {
  latencyMs: number;
  /** When each answered a delivery whose handling takes long (ms), and when the App had handled it. */
  appAnswerMs: number;
  appHandledMs: number;
  bareAnswerMs: number;
  sweep: { deliveries: number; failed: number; requests: number; asked: number; ms: number };
  sealed: { cookieBytes: number; openUs: number; plainUs: number };
}

const listen = (s: Server) =>
  new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));

async function timedDelivery(url: string, body: string): Promise<{ ms: number; status: number }> {
  const t = performance.now();
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': randomBytes(8).toString('hex'),
      'x-hub-signature-256': await sign(SECRET, body),
    },
    body,
  });
  await r.arrayBuffer();
  return { ms: performance.now() - t, status: r.status };
}

/** `/interlock status` by a writer, against a GitHub that takes `latencyMs` per request. */
async function answerTimes(latencyMs: number) {
  const github = await startGitHubServer({
    likeGitHub: false,
    latencyMs: (r) => (r.path.startsWith('/repos/') ? latencyMs : 0),
    repos: [{ owner: 'acme', name: 'widgets', collaborators: { bob: 'write' } }],
  });
  const repo = github.state.repo('acme/widgets');
  repo.addIssue({ number: 1, title: 'bench' });
  let last = 0;
  const payload = () => {
    const c = repo.addComment(1, '/interlock status', 'bob');
    last = c.id;
    const p = webhookExample('issue_comment', 'created') as Record<string, Record<string, unknown>>;
    return JSON.stringify({
      ...p,
      repository: {
        ...p.repository,
        name: 'widgets',
        full_name: 'acme/widgets',
        owner: { ...(p.repository!.owner as object), login: 'acme' },
      },
      issue: { ...p.issue, number: 1, labels: [], pull_request: undefined },
      comment: {
        ...p.comment,
        id: c.id,
        body: '/interlock status',
        user: { ...(p.comment!.user as object), login: 'bob', type: 'User' },
      },
      sender: { ...p.sender, login: 'bob', type: 'User' },
      installation: { id: github.state.app.installationId },
    });
  };
  try {
    const env = {
      APP_ID: String(github.state.app.id),
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'fatal' as const,
    };
    const probot = createProbot({ env, overrides: { baseUrl: github.url, Octokit: quiet } });
    const middleware = await createNodeMiddleware(interlockApp(), { probot, webhooksPath: '/hook' });
    const bare = createServer((req, res) => void middleware(req, res, () => res.writeHead(404).end()));
    const barePort = await listen(bare);
    const app = await startServer(
      { ...env, PORT: '0', HOST: '127.0.0.1', GITHUB_API_URL: github.url, INTERLOCK_REDELIVER: 'off' },
      { Octokit: quiet },
    );
    const ours = await timedDelivery(app.url, payload());
    const t = performance.now();
    // Handled: the final reaction (after 👀) is the handler's last write.
    const done = (id: number) => (repo.comments.get(id)?.reactions.length ?? 0) >= 2;
    const id = last;
    while (!done(id)) await new Promise((r) => setTimeout(r, 20));
    const handled = ours.ms + (performance.now() - t);
    const theirs = await timedDelivery(`http://127.0.0.1:${barePort}/hook`, payload());
    await app.close();
    bare.close();
    return { appAnswerMs: ours.ms, appHandledMs: handled, bareAnswerMs: theirs.ms };
  } finally {
    await github.close();
  }
}

/** A sweep over `deliveries` recorded deliveries of which `failed` could not be made. */
async function sweepCost(deliveries: number, failed: number) {
  const github = await startGitHubServer({ likeGitHub: false });
  const ok = createServer((req, res) => {
    req.resume();
    res.writeHead(200).end();
  });
  const port = await listen(ok);
  try {
    const hooks = github.state.webhooks;
    for (let i = 0; i < deliveries; i++) {
      hooks.target =
        i % Math.ceil(deliveries / failed) === 0
          ? undefined
          : { url: `http://127.0.0.1:${port}/`, secret: SECRET };
      await hooks.deliver('issue_comment', { action: 'created', n: i });
    }
    hooks.target = undefined;
    const down = hooks.deliveries.filter((d) => d.status_code >= 400).length;
    const probot = new Probot({
      appId: github.state.app.id,
      privateKey,
      baseUrl: github.url,
      Octokit: quiet,
      logLevel: 'fatal',
    });
    const client = (await probot.auth()) as unknown as JwtClient;
    const t = performance.now();
    const r = await sweepDeliveries(client, { windowMs: 3_600_000, maxAsks: deliveries });
    return {
      deliveries,
      failed: down,
      requests: r.requests,
      asked: r.asked.length,
      ms: performance.now() - t,
    };
  } finally {
    ok.close();
    await github.close();
  }
}

function sealedCost(rounds: number) {
  const sessions = new Sessions(
    '__Host-interlock-session',
    true,
    8 * 3_600_000,
    new Sealer([randomBytes(32)]),
  );
  const { cookie, session } = sessions.create(
    'a-login-of-average-length',
    `ghu_${randomBytes(27).toString('base64url')}`,
  );
  const value = cookie.split(';')[0]!;
  const req = { headers: { cookie: value } } as never;
  const plain = JSON.stringify(session);
  const per = (fn: () => unknown) => {
    fn();
    const t = performance.now();
    for (let i = 0; i < rounds; i++) fn();
    return ((performance.now() - t) * 1000) / rounds;
  };
  return {
    cookieBytes: value.length,
    openUs: per(() => sessions.of(req)),
    plainUs: per(() => JSON.parse(plain)),
  };
}

export async function appStateFigures(quick: boolean): Promise<AppStateFigures> {
  const latencyMs = quick ? 100 : 2000;
  return {
    latencyMs,
    ...(await answerTimes(latencyMs)),
    sweep: await sweepCost(quick ? 120 : 1000, quick ? 6 : 20),
    sealed: sealedCost(quick ? 1000 : 20_000),
  };
}

export function appStateSection(f: AppStateFigures): string[] {
  const s = (ms: number) => (ms / 1000).toFixed(2);
  return [
    "## The App: answered within GitHub's window, missed deliveries, sealed logins",
    '',
    `A \`/interlock status\` delivery against a local GitHub that takes ${f.latencyMs} ms per repository request, to the`,
    "App's server (`startServer`: answers within `INTERLOCK_ANSWER_MS`, 1 s) and to the same handler behind Probot's",
    'own middleware (answers when the handler is done, or 202 after 9 s); GitHub counts an answer after 10 s as failed',
    '(`bench/app-state.ts`).',
    '',
    '| | answered after (s) | handled after (s) |',
    '| --- | --- | --- |',
    `| the App's server | ${s(f.appAnswerMs)} | ${s(f.appHandledMs)} |`,
    `| Probot's middleware (baseline) | ${s(f.bareAnswerMs)} | ${f.bareAnswerMs > 8_900 ? 'after its 202 (timed out at 9 s)' : s(f.bareAnswerMs)} |`,
    `| ratio | ${(f.appAnswerMs / f.bareAnswerMs).toFixed(2)}x | |`,
    '',
    `A sweep of missed deliveries over ${f.sweep.deliveries} recorded deliveries, ${f.sweep.failed} of them failed: ` +
      `${f.sweep.requests} requests (${f.sweep.requests - f.sweep.asked} pages of 100, ${f.sweep.asked} redeliveries asked), ` +
      `${f.sweep.ms.toFixed(0)} ms, most of it the client's second between two writes (GitHub's guidance). The App sweeps ` +
      'at start and every 10 minutes; a sweep reads at most 10 pages and asks at most 50.',
    '',
    `A sealed login (\`__Host-interlock-session\`, AES-256-GCM) is ${f.sealed.cookieBytes} bytes and opens in ` +
      `${f.sealed.openUs.toFixed(1)} µs, against ${f.sealed.plainUs.toFixed(1)} µs to parse the same session unsealed ` +
      `(${(f.sealed.openUs / f.sealed.plainUs).toFixed(1)}x): a replica keeps no login in memory, whatever the number of people.`,
    '',
  ];
}
