/** Every request the server saw, so tests and benchmarks can count API calls by kind. */
import type { FaultKind } from './faults.js';

export interface LoggedRequest {
  /** 1, 2, 3... in arrival order. */
  readonly seq: number;
  readonly method: string;
  /** Path without the query string, URL-decoded (`runs/fix-bug/issue-1.json`, not `runs%2F...`). */
  readonly path: string;
  readonly query: string;
  /** `GET /repos/{owner}/{repo}/contents/{path}`, or `GET <path>` for a path no route serves. */
  readonly kind: string;
  /** The status sent; 0 when the server held or dropped the connection. */
  status: number;
  readonly actor: string | undefined;
  /** The parsed JSON request body, when there was one. */
  readonly body: unknown;
  /** When the request arrived (ms since the epoch). */
  readonly at: number;
  durationMs: number;
  fault?: FaultKind;
}

export interface RequestFilter {
  readonly method?: string;
  /** Exact kind, e.g. `PUT /repos/{owner}/{repo}/contents/{path}`. */
  readonly kind?: string;
  /** Tested against the concrete (decoded) path. */
  readonly path?: RegExp;
  readonly status?: number;
  /** Only requests after this mark (see `mark()`). */
  readonly since?: number;
}

export interface RequestStats {
  readonly total: number;
  /** GET and HEAD. */
  readonly reads: number;
  /** Everything else. */
  readonly writes: number;
  readonly failed: number;
  readonly byKind: Record<string, number>;
}

const READS = new Set(['GET', 'HEAD']);

export class RequestLog {
  readonly #entries: LoggedRequest[] = [];
  #seq = 0;

  /** Starts an entry; the server fills in status and duration when it answers. */
  open(entry: Omit<LoggedRequest, 'seq' | 'status' | 'durationMs'>): LoggedRequest {
    const logged: LoggedRequest = { ...entry, seq: ++this.#seq, status: 0, durationMs: 0 };
    this.#entries.push(logged);
    return logged;
  }

  get all(): readonly LoggedRequest[] {
    return this.#entries;
  }

  /** A position to count from: `requests.stats(requests.mark())` after the work. */
  mark(): number {
    return this.#seq;
  }

  filter(filter: RequestFilter = {}): LoggedRequest[] {
    const method = filter.method?.toUpperCase();
    return this.#entries.filter(
      (entry) =>
        (filter.since === undefined || entry.seq > filter.since) &&
        (method === undefined || entry.method === method) &&
        (filter.kind === undefined || entry.kind === filter.kind) &&
        (filter.path === undefined || filter.path.test(entry.path)) &&
        (filter.status === undefined || entry.status === filter.status),
    );
  }

  count(filter: RequestFilter = {}): number {
    return this.filter(filter).length;
  }

  /** Requests per kind (`METHOD template`), e.g. to report API requests per node step. */
  countByKind(since?: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const entry of this.filter(since === undefined ? {} : { since })) {
      counts[entry.kind] = (counts[entry.kind] ?? 0) + 1;
    }
    return counts;
  }

  stats(since?: number): RequestStats {
    const entries = this.filter(since === undefined ? {} : { since });
    const reads = entries.filter((entry) => READS.has(entry.method)).length;
    return {
      total: entries.length,
      reads,
      writes: entries.length - reads,
      failed: entries.filter((entry) => entry.status === 0 || entry.status >= 400).length,
      byKind: this.countByKind(since),
    };
  }

  clear(): void {
    this.#entries.length = 0;
  }
}
