import { Octokit } from '@octokit/rest';
import { readTuning, type TuningName } from '../os/tuning.js';
import { type HttpFetchInit, httpFetch } from './http-fetch.js';

/** The Action's client (createClient); the App's Probot client is used through the same type. */
export type GitHubClient = Octokit;

export interface ClientOptions {
  token: string;
  /** GITHUB_API_URL: https://api.github.com, or a GitHub Enterprise Server's /api/v3. */
  baseUrl: string;
  /** Retries of a request after a rate limit or a server error (default 3: at most 4 tries in all). */
  retries?: number;
  /** Milliseconds per second of a retry wait; tests make it tiny. */
  retryAfterBaseValue?: number;
  log?: (message: string) => void;
  userAgent?: string;
  /**
   * Least time between the starts of two writes (default 1000 ms, GitHub's guidance for requests that create
   * content). A step makes two or three writes.
   */
  writeIntervalMs?: number;
  /**
   * Longest wait for one answer before the request counts as failed and is retried (default 30 s; GitHub ends
   * REST requests itself after 10 s). Without it a connection GitHub never answers holds the step for minutes.
   */
  requestTimeoutMs?: number;
}

/** The client's tuning, as `ClientOptions` takes it. */
export type ClientTuning = Pick<
  ClientOptions,
  'retryAfterBaseValue' | 'writeIntervalMs' | 'requestTimeoutMs'
>;

/**
 * The client's tuning the environment sets, read the same way by the Action (the step's env) and the App server
 * through the tuning schema (src/os/tuning.ts): INTERLOCK_REQUEST_TIMEOUT_MS, INTERLOCK_WRITE_INTERVAL_MS,
 * INTERLOCK_RETRY_BASE_MS. Only the variables set are passed on (each client keeps its own defaults); a bad value
 * throws one line naming it.
 */
export function clientTuning(env: NodeJS.ProcessEnv): ClientTuning {
  const t = readTuning(env);
  const set = (name: TuningName) => (env[name] ?? '').trim() !== '';
  const retry = set('INTERLOCK_RETRY_BASE_MS') ? t.INTERLOCK_RETRY_BASE_MS : undefined;
  const write = set('INTERLOCK_WRITE_INTERVAL_MS') ? t.INTERLOCK_WRITE_INTERVAL_MS : undefined;
  const timeout = set('INTERLOCK_REQUEST_TIMEOUT_MS') ? t.INTERLOCK_REQUEST_TIMEOUT_MS : undefined;
  return {
    ...(retry !== undefined ? { retryAfterBaseValue: retry } : {}),
    ...(write !== undefined ? { writeIntervalMs: write } : {}),
    ...(timeout ? { requestTimeoutMs: timeout } : {}),
  };
}

/**
 * Octokit's `fetch`, with a deadline per request: the abort surfaces as a retryable request error (status 500).
 * Requests go through `httpFetch` (node:http), not Node's `fetch`, whose first use costs a step 0.3 CPU-seconds.
 */
export function fetchWithTimeout(ms: number): typeof fetch {
  const f = (input: string | URL, init?: HttpFetchInit) => {
    const deadline = AbortSignal.timeout(ms);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return httpFetch(input, { ...init, signal });
  };
  // Octokit calls it with a URL string and a plain init, and reads only what HttpFetchResponse has.
  return f as unknown as typeof fetch;
}

/**
 * Statuses a resend cannot fix, for the retry plugin of the App's Probot client. 409 is a compare-and-swap
 * conflict (a stale blob sha): the stores answer it by reading again and deciding again. 403 and 429 are left
 * to the throttling plugin, which waits out rate limits. `retryWait` applies the same rule in the Action's
 * client (a test holds the two together).
 */
export const DO_NOT_RETRY = [400, 401, 403, 404, 409, 410, 422, 429, 451];

interface FailedRequest {
  status?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, string | number | undefined> };
}

/**
 * Whether a failed request is worth another try, and after how many seconds; undefined when it is not. `tries`
 * is how many retries came before this one. As GitHub's REST documentation asks ("Rate limits for the REST API"):
 * - A secondary rate limit (a 403 or 429 that says so, or any 429, or one with `retry-after`): its `retry-after`;
 *   without one, until `x-ratelimit-reset` when `x-ratelimit-remaining` is 0; else 60 s, doubled on each retry.
 * - A spent primary rate limit (`x-ratelimit-remaining: 0`): until `x-ratelimit-reset`, and one second more.
 * - A server error, a timeout or a dropped connection (status 500 and up): 1, 4, 9 s.
 */
export function retryWait(
  error: unknown,
  tries: number,
  now = Date.now(),
): { seconds: number; why: string } | undefined {
  const e = (error ?? {}) as FailedRequest;
  if (typeof e.status !== 'number') return undefined;
  const headers = e.response?.headers ?? {};
  const after = headers['retry-after'] === undefined ? Number.NaN : Number(headers['retry-after']);
  const hasAfter = Number.isFinite(after) && after >= 0;
  const reset = Number(headers['x-ratelimit-reset']) * 1000;
  const untilReset =
    String(headers['x-ratelimit-remaining']) === '0' && Number.isFinite(reset)
      ? Math.max(Math.ceil((reset - now) / 1000) + 1, 0)
      : undefined;
  if (e.status === 403 || e.status === 429) {
    if (/\bsecondary rate\b/i.test(String(e.message ?? '')) || e.status === 429 || hasAfter)
      return {
        seconds: hasAfter ? after : (untilReset ?? 60 * 2 ** tries),
        why: 'secondary rate limit',
      };
    return untilReset === undefined ? undefined : { seconds: untilReset, why: 'rate limit' };
  }
  if (e.status >= 500) return { seconds: (tries + 1) ** 2, why: `error ${e.status}` };
  return undefined;
}

/**
 * A POST that creates something (a comment, a check run, a workflow dispatch) is not sent again after an answer
 * that may have been lost (a server error, a timeout, a dropped connection): it may have been carried out, and a
 * resend would do it twice. Git objects are addressed by their content, a ref exists once, and a label or a
 * reaction added twice is there once, so those are sent again; so is every request a rate limit refused, which
 * GitHub did not carry out.
 */
export function resendable(method: string, url: string, error: unknown): boolean {
  if (method !== 'POST') return true;
  const status = (error as FailedRequest | undefined)?.status;
  if (status === 403 || status === 429) return true;
  return /\/git\/(blobs|trees|commits|refs)$|\/labels$|\/reactions$/.test(url);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** For each client made here, how long until its next write may start. */
const writeGates = new WeakMap<GitHubClient, () => number>();

/** Requests a client sent (each try counts), and of them the content-creating ones GitHub's secondary limit counts. */
interface RequestsMade {
  all: number;
  creating: number;
}
const made = new WeakMap<GitHubClient, RequestsMade>();

/** What `octokit` has sent so far; zeros for a client not made here. */
export function requestsMade(octokit: GitHubClient): RequestsMade {
  return { ...(made.get(octokit) ?? { all: 0, creating: 0 }) };
}

/**
 * Milliseconds until `octokit` may start its next write (the client spaces its writes); 0 for a client made
 * elsewhere. A compare-and-swap writer waits this out before it reads, so what it read is not stale by the time
 * its write is let through.
 */
export function untilNextWrite(octokit: GitHubClient): number {
  return writeGates.get(octokit)?.() ?? 0;
}

/**
 * An Octokit that retries server errors and waits out rate limits and `retry-after`, a bounded number of times,
 * and spaces the starts of its writes. One hook around each request does both: Octokit's retry and throttling
 * plugins queue every request through timers, which cost each request milliseconds and the step's start a
 * tenth of its time. Unlike them it knows nothing of GraphQL (interlock makes no GraphQL request) and does not
 * hold one write until the one before has finished (a step makes its writes one after another).
 */
export function createClient(opts: ClientOptions): GitHubClient {
  const retries = opts.retries ?? 3;
  const say = opts.log ?? (() => {});
  const base = opts.retryAfterBaseValue ?? 1000;
  const interval = opts.writeIntervalMs ?? 1000;
  const octokit = new Octokit({
    auth: opts.token,
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    userAgent: opts.userAgent ?? 'interlock',
    request: { fetch: fetchWithTimeout(opts.requestTimeoutMs ?? 30_000) },
    // Failed requests surface as errors where they matter; a 404 for a journal not yet written is no news.
    log: { debug: () => {}, info: () => {}, warn: (m: string) => say(m), error: () => {} },
  });
  // When the next write may start: each write (and each retry of one) takes the next slot.
  let nextWrite = 0;
  const writeSlot = async () => {
    const now = Date.now();
    const at = Math.max(now, nextWrite);
    nextWrite = at + interval;
    if (at > now) await sleep(at - now);
  };
  writeGates.set(octokit, () => Math.max(0, nextWrite - Date.now()));
  const sent: RequestsMade = { all: 0, creating: 0 };
  made.set(octokit, sent);
  octokit.hook.wrap('request', async (request, options) => {
    const write = options.method !== 'GET' && options.method !== 'HEAD';
    // A request may set its own budget (`request: { retries: 0 }`), as Octokit's retry plugin allowed.
    const own = (options.request as { retries?: unknown } | undefined)?.retries;
    const allowedRetries = typeof own === 'number' && own >= 0 ? own : retries;
    for (let tries = 0; ; tries++) {
      if (write) await writeSlot();
      sent.all++;
      if (write) sent.creating++;
      try {
        return await request(options);
      } catch (error) {
        const wait = retryWait(error, tries);
        if (!wait) throw error;
        const what = `GitHub ${wait.why} on ${options.method} ${options.url}`;
        if (!resendable(options.method, options.url, error)) {
          say(`${what}; not sent again: it may have been carried out, and a resend would do it twice`);
          throw error;
        }
        if (tries >= allowedRetries) {
          say(`${what}; giving up after ${allowedRetries} retries`);
          throw error;
        }
        say(`${what}; retry ${tries + 1} of ${allowedRetries} after ${wait.seconds}s`);
        await sleep(wait.seconds * base);
      }
    }
  });
  return octokit;
}

export interface RepoRef {
  owner: string;
  repo: string;
}

export function parseRepository(full: string | undefined): RepoRef {
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(full ?? '');
  if (!m) throw new Error(`GITHUB_REPOSITORY "${full ?? ''}" is not owner/repo`);
  return { owner: m[1]!, repo: m[2]! };
}
