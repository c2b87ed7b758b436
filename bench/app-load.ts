// What one App process answers within GitHub's 10 s (issue 50): signed `issue_comment` deliveries, 32 at a time for
// a fixed time, to the App's own server (`startServer`, the `npm start` server) against the local GitHub; each
// answer is timed, and only those answered within 10 s count (GitHub counts a later one as failed). Two kinds: a
// plain comment (most deliveries an installed App sees) and `/interlock status` (a command: reads, a reply).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { ProbotOctokit } from 'probot';
import { startServer } from '../src/app/server.js';
import { webhookExample } from '../test/support/fixtures.js';
import { startGitHubServer } from '../test/support/github-server.js';

const SECRET = 'bench-secret';
const WINDOW_MS = 10_000;
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const quiet = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });

export interface AnswerRate {
  kind: string;
  seconds: number;
  sent: number;
  /** Answered within 10 s (2xx). */
  inTime: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? 0;

export async function answerRates(seconds: number, concurrency = 32): Promise<AnswerRate[]> {
  const github = await startGitHubServer({
    likeGitHub: false,
    repos: [{ owner: 'acme', name: 'widgets', collaborators: { bob: 'write' } }],
  });
  const repo = github.state.repo('acme/widgets');
  repo.addIssue({ number: 1, title: 'bench' });
  const app = await startServer(
    {
      APP_ID: String(github.state.app.id),
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'fatal',
      PORT: '0',
      HOST: '127.0.0.1',
      GITHUB_API_URL: github.url,
      INTERLOCK_REDELIVER: 'off',
      INTERLOCK_WRITE_INTERVAL_MS: '0',
    },
    { Octokit: quiet },
  );
  const base = webhookExample('issue_comment', 'created') as Record<string, Record<string, unknown>>;
  const body = (text: string) =>
    JSON.stringify({
      ...base,
      repository: {
        ...base.repository,
        name: 'widgets',
        full_name: 'acme/widgets',
        owner: { ...(base.repository!.owner as object), login: 'acme' },
      },
      issue: { ...base.issue, number: 1, labels: [], pull_request: undefined },
      comment: {
        ...base.comment,
        id: repo.addComment(1, text, 'bob').id,
        body: text,
        user: { ...(base.comment!.user as object), login: 'bob', type: 'User' },
      },
      sender: { ...base.sender, login: 'bob', type: 'User' },
      installation: { id: github.state.app.installationId },
    });
  const one = async (text: string) => {
    const b = body(text);
    const t = performance.now();
    const r = await fetch(app.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomBytes(8).toString('hex'),
        'x-hub-signature-256': await sign(SECRET, b),
      },
      body: b,
      signal: AbortSignal.timeout(WINDOW_MS),
    }).catch(() => undefined);
    await r?.arrayBuffer();
    const ms = performance.now() - t;
    return r && r.status < 300 && ms <= WINDOW_MS ? ms : undefined;
  };
  const rate = async (kind: string, text: string): Promise<AnswerRate> => {
    const times: number[] = [];
    let sent = 0;
    const end = Date.now() + seconds * 1000;
    const worker = async () => {
      while (Date.now() < end) {
        sent++;
        const ms = await one(text);
        if (ms !== undefined) times.push(ms);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return {
      kind,
      seconds,
      sent,
      inTime: times.length,
      perSecond: times.length / seconds,
      p50Ms: pct(times, 0.5),
      p99Ms: pct(times, 0.99),
    };
  };
  try {
    return [
      await rate('a plain comment', 'Looks good to me.'),
      await rate('`/interlock status` (a command)', '/interlock status'),
    ];
  } finally {
    await app.close();
    await github.close();
  }
}

export function answerRateSection(rates: AnswerRate[], command: string): string[] {
  return [
    "## The App: deliveries one process answers within GitHub's 10 s",
    '',
    "Signed `issue_comment` deliveries, 32 at a time, to one App process's server (`startServer`, what `npm start`",
    'runs) against the local GitHub with no added latency; an answer after 10 s, or not 2xx, does not count',
    `(\`bench/app-load.ts\`; \`${command}\`).`,
    '',
    '| delivery | for (s) | sent | answered within 10 s | per second | p50 / p99 (ms) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rates.map(
      (r) =>
        `| ${r.kind} | ${r.seconds} | ${r.sent} | ${r.inTime} | ${r.perSecond.toFixed(0)} | ${r.p50Ms.toFixed(0)} / ${r.p99Ms.toFixed(0)} |`,
    ),
    '',
  ];
}
