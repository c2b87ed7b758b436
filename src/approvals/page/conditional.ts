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

/** A value kept for `ttlMs`: within its life a read costs no request at all. */
export class TtlCache<T> {
  readonly #kept = new Map<string, { at: number; value: Promise<T> }>();
  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  get(key: string, make: () => Promise<T>): Promise<T> {
    const kept = this.#kept.get(key);
    if (kept && this.clock() - kept.at < this.ttlMs) return kept.value;
    const value = make();
    this.#kept.set(key, { at: this.clock(), value });
    // A failed read is not kept: the next page asks again.
    value.catch(() => this.#kept.delete(key));
    return value;
  }

  forget(key: string): void {
    this.#kept.delete(key);
  }
}
