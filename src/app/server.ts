import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Bottleneck from 'bottleneck/light.js';
import { createNodeMiddleware, createProbot, ProbotOctokit } from 'probot';
import * as z from 'zod';
import {
  type ClientTuning,
  clientTuning,
  DO_NOT_RETRY,
  fetchWithTimeout,
  resendable,
} from '../github/client.js';
import { staleWindowMs } from '../journal/freshness.js';
import { DEFAULT_JOURNAL_BRANCH } from '../store/git.js';
import { type PageConfig, pageConfigProblem } from './page/page-app.js';
import { interlockApp } from './probot.js';

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

/** The environment `npm start` reads. */
export const ServerEnvSchema = z.object({
  APP_ID: z
    .string({ error: 'APP_ID is not set: the App id from the App settings page' })
    .regex(/^\d+$/, 'APP_ID must be the GitHub App id (a number)'),
  WEBHOOK_SECRET: z
    .string({ error: 'WEBHOOK_SECRET is not set: the webhook secret from the App settings page' })
    .min(1, 'WEBHOOK_SECRET must be the secret set in the App settings'),
  PRIVATE_KEY: z.string().optional(),
  PRIVATE_KEY_PATH: z.string().optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  WEBHOOK_PATH: z.string().startsWith('/').default('/api/github/webhooks'),
  /** The REST API root, for GitHub Enterprise Server (`https://ghe.example.com/api/v3`). */
  GITHUB_API_URL: z.string().url().optional(),
  INTERLOCK_JOURNAL_BRANCH: z.string().min(1).optional(),
  /** The maintainers' page (issue 37): where people reach the App; the page is off unless it is set. */
  INTERLOCK_PAGE_URL: z.string().optional(),
  /** The App's client id and secret (App settings), for the page's login with GitHub. */
  GITHUB_CLIENT_ID: z.string().optional(),
  GITHUB_CLIENT_SECRET: z.string().optional(),
  /** The web root for the login and links (`https://github.com`, or a GitHub Enterprise Server's). */
  GITHUB_WEB_URL: z.string().url().optional(),
  INTERLOCK_PAGE_SESSION_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(8),
  INTERLOCK_PAGE_CACHE_SECONDS: z.coerce.number().min(0).max(3600).default(30),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).default('info'),
});
export type ServerEnv = z.infer<typeof ServerEnvSchema>;

export function readServerEnv(env: NodeJS.ProcessEnv): ServerEnv {
  const r = ServerEnvSchema.safeParse(env);
  if (!r.success) throw new Error(`cannot start the interlock app:\n${z.prettifyError(r.error)}`);
  if (!r.data.PRIVATE_KEY && !r.data.PRIVATE_KEY_PATH)
    throw new Error(
      'cannot start the interlock app: set PRIVATE_KEY (the App private key, PEM or base64) or PRIVATE_KEY_PATH',
    );
  const page = r.data.INTERLOCK_PAGE_URL;
  if (page !== undefined) {
    const problem = pageConfigProblem({ url: page.replace(/\/+$/, '') });
    if (problem) throw new Error(`cannot start the interlock app: ${problem}`);
    if (!r.data.GITHUB_CLIENT_ID || !r.data.GITHUB_CLIENT_SECRET)
      throw new Error(
        'cannot start the interlock app: INTERLOCK_PAGE_URL is set, so the page needs GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET (the App settings page) for the login with GitHub',
      );
  }
  return r.data;
}

/** The page's configuration from the environment, or undefined when the page is off. */
export function pageConfigOf(cfg: ServerEnv): PageConfig | undefined {
  if (!cfg.INTERLOCK_PAGE_URL || !cfg.GITHUB_CLIENT_ID || !cfg.GITHUB_CLIENT_SECRET) return undefined;
  const apiUrl = (cfg.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, '');
  const webUrl = (
    cfg.GITHUB_WEB_URL ?? (cfg.GITHUB_API_URL ? apiUrl.replace(/\/api\/v3$/, '') : 'https://github.com')
  ).replace(/\/+$/, '');
  return {
    url: cfg.INTERLOCK_PAGE_URL.replace(/\/+$/, ''),
    clientId: cfg.GITHUB_CLIENT_ID,
    clientSecret: cfg.GITHUB_CLIENT_SECRET,
    webUrl,
    apiUrl,
    journalBranch: cfg.INTERLOCK_JOURNAL_BRANCH ?? DEFAULT_JOURNAL_BRANCH,
    sessionHours: cfg.INTERLOCK_PAGE_SESSION_HOURS,
    cacheSeconds: cfg.INTERLOCK_PAGE_CACHE_SECONDS,
  };
}

/** GitHub's cap on a webhook payload; a longer body is refused before it is read. */
export const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

export interface RunningApp {
  url: string;
  server: Server;
  close(): Promise<void>;
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
    staleWindowMs: staleWindowMs(env),
  });
  const middleware = await createNodeMiddleware(app, { probot, webhooksPath: cfg.WEBHOOK_PATH });
  const server = createServer((req, res) => {
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
    void middleware(req, res, () => {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.PORT, cfg.HOST, () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}${cfg.WEBHOOK_PATH}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
