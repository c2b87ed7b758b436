/** The environment `npm start` reads, checked once: the App's registration, its page, and the sweep of missed deliveries. */
import * as z from 'zod';
import { DEFAULT_JOURNAL_BRANCH } from '../store/git.js';
import { type PageConfig, pageConfigProblem } from './page/page-app.js';
import { parsePageKeys } from './page/sessions.js';

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
  /**
   * The keys that seal the page's cookies (the login and its token, encrypted): the current key first, then the
   * ones still accepted while rotating, comma-separated, each 32 bytes of base64 (`openssl rand -base64 32`).
   * Every replica gets the same value.
   */
  INTERLOCK_PAGE_KEYS: z.string().optional(),
  /**
   * How long a delivery is handled before it is answered 202 and handled on (ms, 0: answer every delivery at
   * once). GitHub counts an answer after 10 s as failed.
   */
  INTERLOCK_ANSWER_MS: z.coerce.number().int().min(0).max(8000).default(1000),
  /** `off`: no sweep of the deliveries GitHub could not make (a cron runs `npm start -- redeliver` instead). */
  INTERLOCK_REDELIVER: z.enum(['on', 'off']).default('on'),
  /** How long a replica stopped by SIGTERM waits for the deliveries in hand before it exits (ms). */
  INTERLOCK_STOP_MS: z.coerce.number().int().min(0).max(60_000).default(8000),
  /** Minutes between two sweeps of the deliveries GitHub could not make (0: only at start). */
  INTERLOCK_REDELIVER_MINUTES: z.coerce.number().min(0).max(1440).default(10),
  /** How far back a sweep looks (hours; GitHub redelivers deliveries of the last 3 days). */
  INTERLOCK_REDELIVER_HOURS: z.coerce.number().positive().max(72).default(2),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).default('info'),
});
type ServerEnv = z.infer<typeof ServerEnvSchema>;

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
    const keys = parsePageKeys(r.data.INTERLOCK_PAGE_KEYS ?? '');
    if (typeof keys === 'string')
      throw new Error(
        `cannot start the interlock app: INTERLOCK_PAGE_URL is set, so the page needs INTERLOCK_PAGE_KEYS to seal its logins (${keys}; every replica gets the same value)`,
      );
  }
  return r.data;
}

/** The page's configuration from the environment, or undefined when the page is off. */
export function pageConfigOf(cfg: ServerEnv): PageConfig | undefined {
  if (!cfg.INTERLOCK_PAGE_URL || !cfg.GITHUB_CLIENT_ID || !cfg.GITHUB_CLIENT_SECRET) return undefined;
  const keys = parsePageKeys(cfg.INTERLOCK_PAGE_KEYS ?? '');
  if (typeof keys === 'string') return undefined;
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
    keys,
  };
}
