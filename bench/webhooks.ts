// Webhook deliveries handled per second by the app, against a bare Probot app that only receives them, same run.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from '@octokit/webhooks-methods';
import { createNodeMiddleware, createProbot, type Probot, ProbotOctokit } from 'probot';
import { interlockApp } from '../src/app/probot.js';
import { webhookExample } from '../test/support/fixtures.js';
import { type GitHubServer, startGitHubServer } from '../test/support/github-server.js';

const SECRET = 'bench-secret';
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

const quiet = ProbotOctokit.defaults((o: Record<string, unknown>) => ({
  ...o,
  retry: { enabled: false },
  throttle: { ...(o.throttle as object), enabled: false },
}));

async function serve(
  github: GitHubServer,
  app: (p: Probot) => void,
): Promise<{ url: string; server: Server }> {
  const probot = createProbot({
    env: {
      APP_ID: String(github.state.app.id),
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'fatal',
    },
    overrides: { baseUrl: github.url, Octokit: quiet },
  });
  const middleware = await createNodeMiddleware(app, { probot, webhooksPath: '/hook' });
  const server = createServer((req, res) => {
    void middleware(req, res, () => res.writeHead(404).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

export interface WebhookFigures {
  kind: string;
  interlock_per_s: number;
  bare_per_s: number;
  p50_ms: number;
  p99_ms: number;
  bare_p50_ms: number;
  bare_p99_ms: number;
}

async function blast(
  url: string,
  bodies: string[],
  concurrency: number,
): Promise<{ perSecond: number; latencies: number[] }> {
  const signed = await Promise.all(bodies.map(async (b) => ({ body: b, sig: await sign(SECRET, b) })));
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < signed.length) {
        const i = next++;
        const { body, sig } = signed[i]!;
        const t = performance.now();
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-github-event': 'issue_comment',
            'x-github-delivery': `bench-${i}-${Math.random()}`,
            'x-hub-signature-256': sig,
          },
          body,
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`delivery ${i}: HTTP ${res.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { perSecond: signed.length / ((performance.now() - t0) / 1000), latencies };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** `count` deliveries of comments on an issue with no interlock run: plain comments, and `/interlock status` by a writer. */
export async function webhookThroughput(count = 200, concurrency = 8): Promise<WebhookFigures[]> {
  // The handler's own throughput: 200 deliveries in seconds would pass GitHub's secondary limit (each reacts to its
  // comment), so the like-GitHub model is off here.
  const github = await startGitHubServer({
    likeGitHub: false,
    repos: [{ owner: 'acme', name: 'widgets', collaborators: { bob: 'write' } }],
  });
  try {
    const repo = github.state.repo('acme/widgets');
    repo.addIssue({ number: 1, title: 'bench' });
    const ours = await serve(github, interlockApp());
    const bare = await serve(github, (app) => {
      app.on('issue_comment.created', async () => {});
    });
    const payload = (body: string) => {
      const p = webhookExample('issue_comment', 'created') as Record<string, unknown> & {
        issue: Record<string, unknown>;
        comment: Record<string, unknown>;
        repository: Record<string, unknown> & { owner: Record<string, unknown> };
        sender: Record<string, unknown>;
      };
      const c = repo.addComment(1, body, 'bob');
      p.repository = {
        ...p.repository,
        name: 'widgets',
        full_name: 'acme/widgets',
        owner: { ...p.repository.owner, login: 'acme' },
      };
      p.issue = { ...p.issue, number: 1, labels: [], pull_request: undefined };
      p.comment = {
        ...p.comment,
        id: c.id,
        body,
        user: { ...(p.comment.user as object), login: 'bob', type: 'User' },
      };
      p.sender = { ...p.sender, login: 'bob', type: 'User' };
      return JSON.stringify({ ...p, installation: { id: github.state.app.installationId } });
    };
    const out: WebhookFigures[] = [];
    for (const [kind, text] of [
      ['a plain comment (no command: the common case)', 'Looks good to me.'],
      ['`/interlock status` by a writer (permission read from the API, reply posted)', '/interlock status'],
    ] as const) {
      const bodies = Array.from({ length: count }, () => payload(text));
      await blast(bare.url, bodies.slice(0, 20), concurrency); // warm-up
      await blast(ours.url, bodies.slice(0, 20), concurrency);
      // Alternated, twice each, so neither side always runs on a warmer or quieter machine.
      const b1 = await blast(bare.url, bodies, concurrency);
      const o1 = await blast(ours.url, bodies, concurrency);
      const b2 = await blast(bare.url, bodies, concurrency);
      const o2 = await blast(ours.url, bodies, concurrency);
      const b = {
        perSecond: (b1.perSecond + b2.perSecond) / 2,
        latencies: [...b1.latencies, ...b2.latencies],
      };
      const o = {
        perSecond: (o1.perSecond + o2.perSecond) / 2,
        latencies: [...o1.latencies, ...o2.latencies],
      };
      out.push({
        kind,
        interlock_per_s: o.perSecond,
        bare_per_s: b.perSecond,
        p50_ms: pct(o.latencies, 50),
        p99_ms: pct(o.latencies, 99),
        bare_p50_ms: pct(b.latencies, 50),
        bare_p99_ms: pct(b.latencies, 99),
      });
    }
    ours.server.close();
    bare.server.close();
    return out;
  } finally {
    await github.close();
  }
}
