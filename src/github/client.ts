import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';

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
}

/** An Octokit that retries server errors and honours rate limits and `retry-after`, a bounded number of times. */
export function createClient(opts: ClientOptions): GitHubClient {
  const retries = opts.retries ?? 3;
  const say = opts.log ?? (() => {});
  const base = opts.retryAfterBaseValue ?? 1000;
  return new GitHubClient({
    auth: opts.token,
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    userAgent: opts.userAgent ?? 'interlock',
    retry: { retries, retryAfterBaseValue: base },
    throttle: {
      retryAfterBaseValue: base,
      fallbackSecondaryRateRetryAfter: 60,
      onRateLimit: (after, options, _o, count) => {
        say(
          `GitHub rate limit on ${options.method} ${options.url}; retry ${count + 1} of ${retries} after ${after}s`,
        );
        return count < retries;
      },
      onSecondaryRateLimit: (after, options, _o, count) => {
        say(
          `GitHub secondary rate limit on ${options.method} ${options.url}; retry ${count + 1} of ${retries} after ${after}s`,
        );
        return count < retries;
      },
    },
    log: { debug: () => {}, info: () => {}, warn: (m: string) => say(m), error: (m: string) => say(m) },
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
