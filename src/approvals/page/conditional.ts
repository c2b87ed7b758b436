/**
 * Conditional reads for the maintainers' page: every GET an Octokit makes carries the `If-None-Match` of the
 * answer it last got for that URL, and a 304 (which costs no rate limit on GitHub) is answered from the copy
 * kept. Shared by the clients of one server, keyed by who asks (an installation, a person) and the URL.
 */
import type { GitHubClient } from '../../github/client.js';
import { statusOf } from '../../github/status.js';

interface Kept {
  etag: string;
  response: unknown;
}

export class ConditionalCache {
  readonly #kept = new Map<string, Kept>();
  /** Reads answered 304 from a kept copy, and reads sent: for the page's request budget. */
  notModified = 0;
  sent = 0;

  constructor(private readonly maxEntries = 5_000) {}

  /** Makes `octokit`'s GETs conditional under `who` (an installation id, a login). */
  attach(octokit: GitHubClient, who: string): GitHubClient {
    octokit.hook.wrap('request', async (request, options) => {
      if (String(options.method).toUpperCase() !== 'GET') return request(options);
      const parse = octokit.request.endpoint as unknown as (o: unknown) => { url: string };
      const key = `${who} ${parse(options).url}`;
      const kept = this.#kept.get(key);
      this.sent++;
      try {
        // A wrap hook's inner layers see the options of this request, not an argument: set the header on them.
        if (kept) options.headers = { ...options.headers, 'if-none-match': kept.etag };
        const response = await request(options);
        const etag = (response.headers as Record<string, string | undefined>).etag;
        // Kept as a copy, and handed out as one: a caller (paginate) rewrites the response it gets.
        if (etag) this.#keep(key, { etag, response: structuredClone(response) });
        return response;
      } catch (e) {
        if (kept && statusOf(e) === 304) {
          this.notModified++;
          return structuredClone(kept.response) as Awaited<ReturnType<typeof request>>;
        }
        throw e;
      }
    });
    return octokit;
  }

  #keep(key: string, kept: Kept): void {
    this.#kept.delete(key);
    this.#kept.set(key, kept);
    if (this.#kept.size > this.maxEntries) this.#kept.delete(this.#kept.keys().next().value!);
  }
}

/**
 * A value kept for `ttlMs`: within its life a read costs no request at all. A value past its life is never
 * answered again, so at most once a life the ones past it are dropped: the cache holds what was asked for in the
 * last life or two (a person's repositories, their rights in each), however many people have logged in (issue 50).
 */
export class TtlCache<T> {
  readonly #kept = new Map<string, { at: number; value: Promise<T> }>();
  #swept: number;
  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.#swept = clock();
  }

  get(key: string, make: () => Promise<T>): Promise<T> {
    const now = this.clock();
    const kept = this.#kept.get(key);
    if (kept && now - kept.at < this.ttlMs) return kept.value;
    this.#sweep(now);
    const value = make();
    this.#kept.set(key, { at: now, value });
    // A failed read is not kept: the next page asks again.
    value.catch(() => this.#kept.delete(key));
    return value;
  }

  forget(key: string): void {
    this.#kept.delete(key);
  }

  /** Values kept, past their life or not. */
  get size(): number {
    return this.#kept.size;
  }

  #sweep(now: number): void {
    if (now - this.#swept < this.ttlMs) return;
    this.#swept = now;
    for (const [key, kept] of this.#kept) if (now - kept.at >= this.ttlMs) this.#kept.delete(key);
  }
}
