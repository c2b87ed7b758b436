import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import Bottleneck from 'bottleneck/light.js';

export const GitHubClient = Octokit.plugin(retry, throttling);
export type GitHubClient = InstanceType<typeof GitHubClient>;

export interface ClientOptions {
  token: string;
  /** GITHUB_API_URL: https://api.github.com, or a GitHub Enterprise Server's /api/v3. */
  baseUrl: string;
  /** Retries of a request after a rate limit or a server error (default 3). */
  retries?: number;
  /** Seconds multiplier for retry waits; tests make it tiny. */
  retryAfterBaseValue?: number;
  log?: (message: string) => void;
  userAgent?: string;
  /**
   * Least time between two writes (default 1000 ms, GitHub's guidance for content-creating requests; the
   * plugin's own default for comment-creating requests is 3000 ms). A step makes two or three writes.
   */
  writeIntervalMs?: number;
  /**
   * Longest wait for one answer before the request counts as failed and is retried (default 30 s; GitHub ends
   * REST requests itself after 10 s). Without it a connection GitHub never answers holds the step for minutes.
   */
  requestTimeoutMs?: number;
}

/** fetch with a deadline per request; the abort surfaces as a retryable request error (status 500). */
export function fetchWithTimeout(ms: number): typeof fetch {
  return (input, init) => {
    const deadline = AbortSignal.timeout(ms);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetch(input, { ...init, signal });
  };
}

/**
 * Statuses a resend cannot fix, so the retry plugin leaves them alone. 409 is a compare-and-swap conflict (a
 * stale blob sha): the stores answer it by reading again and deciding again. 403 and 429 rate limits are the
 * throttling plugin's, which waits their retry-after; retried by both plugins, a 429 was tried 16 times.
 */
export const DO_NOT_RETRY = [400, 401, 403, 404, 409, 410, 422, 429, 451];

/** An Octokit that retries server errors and honours rate limits and `retry-after`, a bounded number of times. */
export function createClient(opts: ClientOptions): GitHubClient {
  const retries = opts.retries ?? 3;
  const say = opts.log ?? (() => {});
  const base = opts.retryAfterBaseValue ?? 1000;
  return new GitHubClient({
    auth: opts.token,
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    userAgent: opts.userAgent ?? 'interlock',
    request: { fetch: fetchWithTimeout(opts.requestTimeoutMs ?? 30_000) },
    retry: { retries, retryAfterBaseValue: base, doNotRetry: DO_NOT_RETRY },
    throttle: {
      write: new Bottleneck.Group({
        id: 'interlock-write',
        maxConcurrent: 1,
        minTime: opts.writeIntervalMs ?? 1000,
      }),
      notifications: new Bottleneck.Group({
        id: 'interlock-notify',
        maxConcurrent: 1,
        minTime: opts.writeIntervalMs ?? 1000,
      }),
      retryAfterBaseValue: base,
      fallbackSecondaryRateRetryAfter: 60,
      onRateLimit: (after, options, _o, count) => {
        say(
          count < retries
            ? `GitHub rate limit on ${options.method} ${options.url}; retry ${count + 1} of ${retries} after ${after}s`
            : `GitHub rate limit on ${options.method} ${options.url}; giving up after ${retries} retries`,
        );
        return count < retries;
      },
      onSecondaryRateLimit: (after, options, _o, count) => {
        say(
          count < retries
            ? `GitHub secondary rate limit on ${options.method} ${options.url}; retry ${count + 1} of ${retries} after ${after}s`
            : `GitHub secondary rate limit on ${options.method} ${options.url}; giving up after ${retries} retries`,
        );
        return count < retries;
      },
    },
    // Failed requests surface as errors where they matter; a 404 for a journal not yet written is no news.
    log: { debug: () => {}, info: () => {}, warn: (m: string) => say(m), error: () => {} },
  });
}

export { statusOf } from './status.js';

export interface RepoRef {
  owner: string;
  repo: string;
}

export function parseRepository(full: string | undefined): RepoRef {
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(full ?? '');
  if (!m) throw new Error(`GITHUB_REPOSITORY "${full ?? ''}" is not owner/repo`);
  return { owner: m[1]!, repo: m[2]! };
}
