import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Bottleneck from 'bottleneck/light.js';
import { createNodeMiddleware, createProbot, ProbotOctokit } from 'probot';
import {
  type ClientTuning,
  clientTuning,
  DO_NOT_RETRY,
  fetchWithTimeout,
  resendable,
} from '../github/client.js';
import { readTuning } from '../os/tuning.js';
import { type JwtClient, type SweepResult, type Sweeps, startSweeps, sweepDeliveries } from './deliveries.js';
import { pageConfigOf, readServerEnv } from './env.js';
import { interlockApp } from './probot.js';
import { webhookReceiver } from './webhook.js';

export { readServerEnv } from './env.js';

/**
 * Probot's Octokit as the App uses it, bounded like the Action's client: a rate limit (primary or secondary) is
 * retried up to three times after its retry-after (Probot's own setup never retries a secondary rate limit),
 * statuses a resend cannot fix are not resent, a POST that creates something (a reply, a check run, a
 * workflow dispatch) is not sent again after a lost answer (see `resendable`), and every request has a
 * deadline (a connection GitHub never answers would hold the handler forever). The tuning is the Action's
 * (`clientTuning`): the deadline, the least time between two writes' starts (the throttling plugin's, 1 s by
 * default, GitHub's guidance), and a second of a retry wait.
 */
export function appOctokit(
  base: typeof ProbotOctokit = ProbotOctokit,
  tuning: ClientTuning = {},
): typeof ProbotOctokit {
  const retry = (_after: number, _options: unknown, _octokit: unknown, count: number) => count < 3;
  const { requestTimeoutMs = 30_000, writeIntervalMs, retryAfterBaseValue } = tuning;
  const waits = retryAfterBaseValue === undefined ? {} : { retryAfterBaseValue };
  // The plugin spaces writes (and, further, writes that notify people) through Bottleneck groups of its own;
  // groups of ours carry another interval, the same for both.
  const group = (id: string) => new Bottleneck.Group({ id, maxConcurrent: 1, minTime: writeIntervalMs });
  const write =
    writeIntervalMs === undefined
      ? {}
      : { write: group('interlock-write'), notifications: group('interlock-notifications') };
  return base
    .defaults((options: Record<string, unknown>) => ({
      ...options,
      request: { ...(options.request as object), fetch: fetchWithTimeout(requestTimeoutMs) },
      retry: { ...(options.retry as object), doNotRetry: DO_NOT_RETRY, ...waits },
      throttle: {
        ...(options.throttle as object),
        ...waits,
        ...write,
        onRateLimit: retry,
        onSecondaryRateLimit: retry,
      },
    }))
    .plugin(noResendAfterLostAnswer) as typeof ProbotOctokit;
}

/**
 * Gives each POST that must not be sent twice a retry budget of 0 for the retry plugin (server errors,
 * timeouts). Registered after Probot's plugins, this hook runs before theirs; the throttling plugin, which
 * waits out rate limits (requests GitHub refused, so never carried out), does not read the budget.
 */
function noResendAfterLostAnswer(octokit: Pick<InstanceType<typeof ProbotOctokit>, 'hook'>): void {
  octokit.hook.before('request', (options) => {
    if (!resendable(options.method, options.url, { status: 500 }))
      options.request = { ...options.request, retries: 0 } as typeof options.request;
  });
}

/** One sweep of missed deliveries, without serving (`npm start -- redeliver`, for a cron). */
export async function redeliverOnce(env: NodeJS.ProcessEnv): Promise<SweepResult> {
  const cfg = readServerEnv(env);
  const probot = createProbot({
    env: { ...env, LOG_LEVEL: cfg.LOG_LEVEL },
    overrides: {
      ...(cfg.GITHUB_API_URL ? { baseUrl: cfg.GITHUB_API_URL.replace(/\/+$/, '') } : {}),
      Octokit: appOctokit(ProbotOctokit, clientTuning(env)),
    },
  });
  const client = (await probot.auth()) as unknown as JwtClient;
  return sweepDeliveries(client, { windowMs: cfg.INTERLOCK_REDELIVER_HOURS * 3_600_000 });
}

/** GitHub's cap on a webhook payload; a longer body is refused before it is read. */
export const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

export interface RunningApp {
  url: string;
  server: Server;
  /** The sweep of missed deliveries at start (undefined when INTERLOCK_REDELIVER=off, it failed, or setup mode). */
  swept?: Promise<SweepResult | undefined>;
  close(): Promise<void>;
  /**
   * A shutdown (SIGTERM): takes no new connection and waits, at most `ms`, for the deliveries in hand; resolves
   * with how many were left (GitHub recorded them answered 202: the next start's sweep asks for them again).
   */
  stop?(ms: number): Promise<number>;
}

/**
 * What the server answers: `GET /ping`; a delivery's length checked before anything buffers it; deliveries to the
 * receiver (acknowledged at once, handled after); the rest to Probot's middleware (the page), else 404.
 */
function routes(
  webhookPath: string,
  receiver: { handle: (req: IncomingMessage, res: ServerResponse) => Promise<unknown> },
  middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => unknown,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // A health check for load balancers and Docker's HEALTHCHECK, as Probot's own server answers it.
    if (req.method === 'GET' && req.url === '/ping') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('PONG');
      return;
    }
    // The middleware buffers the whole body before it checks the signature: without a bound, anyone could
    // make the App hold gigabytes. GitHub caps payloads at 25 MB and always sends their length.
    if (req.method === 'POST') {
      const length = Number(req.headers['content-length']);
      if (req.headers['content-length'] === undefined || !Number.isFinite(length)) {
        res.writeHead(411, { 'content-type': 'text/plain', connection: 'close' }).end('length required\n');
        return;
      }
      if (length > MAX_DELIVERY_BYTES) {
        res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end('payload too large\n');
        return;
      }
    }
    if (req.method === 'POST' && new URL(req.url ?? '/', 'http://x').pathname === webhookPath) {
      void receiver.handle(req, res);
      return;
    }
    void middleware(req, res, () => {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    });
  };
}

/**
 * The App as an HTTP server: Probot's webhook middleware (which refuses a missing or bad signature with 400)
 * behind a plain `node:http` server, so nothing but webhooks, `GET /ping` and, when `INTERLOCK_PAGE_URL` is set, the
 * maintainers' page under `/interlock/` (`src/app/page/page-app.ts`, through Probot's `addHandler`) is served.
 */
export async function startServer(
  env: NodeJS.ProcessEnv,
  extras: { Octokit?: typeof ProbotOctokit } = {},
): Promise<RunningApp> {
  const cfg = readServerEnv(env);
  const tuning = readTuning(env);
  const probot = createProbot({
    env: { ...env, LOG_LEVEL: cfg.LOG_LEVEL },
    overrides: {
      ...(cfg.GITHUB_API_URL ? { baseUrl: cfg.GITHUB_API_URL.replace(/\/+$/, '') } : {}),
      Octokit: extras.Octokit ?? appOctokit(ProbotOctokit, clientTuning(env)),
      webhookPath: cfg.WEBHOOK_PATH,
    },
  });
  const page = pageConfigOf(cfg);
  const app = interlockApp({
    ...(cfg.INTERLOCK_JOURNAL_BRANCH ? { journalBranch: cfg.INTERLOCK_JOURNAL_BRANCH } : {}),
    ...(page ? { page: { ...page, tuning: clientTuning(env) } } : {}),
    staleWindowMs: tuning.INTERLOCK_STALE_READ_MS,
    dispatchLeaseMs: tuning.INTERLOCK_DISPATCH_LEASE_MS,
  });
  const startedAt = Date.now();
  const middleware = await createNodeMiddleware(app, { probot, webhooksPath: cfg.WEBHOOK_PATH });
  const receiver = webhookReceiver(probot, { answerMs: cfg.INTERLOCK_ANSWER_MS });
  const server = createServer(routes(cfg.WEBHOOK_PATH, receiver, middleware));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.PORT, cfg.HOST, () => resolve());
  });
  const sweeps: Sweeps | undefined =
    cfg.INTERLOCK_REDELIVER === 'on'
      ? startSweeps(
          async () => (await probot.auth()) as unknown as JwtClient,
          {
            windowMs: cfg.INTERLOCK_REDELIVER_HOURS * 3_600_000,
            everyMs: cfg.INTERLOCK_REDELIVER_MINUTES * 60_000,
            startedAt,
          },
          { info: (m) => probot.log.info(m), warn: (m) => probot.log.warn(m) },
        )
      : undefined;
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}${cfg.WEBHOOK_PATH}`,
    server,
    swept: sweeps?.first ?? Promise.resolve(undefined),
    close: () =>
      new Promise<void>((resolve) => {
        sweeps?.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    stop: async (ms) => {
      sweeps?.stop();
      server.close();
      server.closeIdleConnections();
      const left = await receiver.drain(ms);
      server.closeAllConnections();
      return left;
    },
  };
}
