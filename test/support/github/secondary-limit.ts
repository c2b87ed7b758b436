/**
 * GitHub's secondary rate limit on content-creating requests (POST, PUT, PATCH, DELETE): "no more than 80
 * content-generating requests per minute and no more than 500 per hour" per user or installation. Over it,
 * GitHub answers 403 "You have exceeded a secondary rate limit" with `retry-after` (seconds).
 */
import { SECONDARY_RATE_LIMIT_MESSAGE } from './faults.js';
import { HttpError } from './http-error.js';

export interface SecondaryLimitOptions {
  /** Content-creating requests per actor in any 60 seconds (GitHub: 80). */
  readonly writesPerMinute: number;
  /** And in any hour (GitHub: 500); default no hourly limit. */
  readonly writesPerHour?: number;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class SecondaryLimiter {
  readonly #at = new Map<string, number[]>();

  constructor(
    readonly options: SecondaryLimitOptions,
    readonly clock: () => number = Date.now,
  ) {}

  /** Counts a content-creating request of `who`, or throws GitHub's 403 with `retry-after` when it is over. */
  spend(who: string, method: string): void {
    if (!WRITES.has(method)) return;
    const now = this.clock();
    const hourly = this.options.writesPerHour;
    const kept = (this.#at.get(who) ?? []).filter((t) => t > now - (hourly ? 3_600_000 : 60_000));
    this.#at.set(who, kept);
    const lastMinute = kept.filter((t) => t > now - 60_000);
    const over =
      lastMinute.length >= this.options.writesPerMinute
        ? lastMinute[lastMinute.length - this.options.writesPerMinute]! + 60_000
        : hourly && kept.length >= hourly
          ? kept[kept.length - hourly]! + 3_600_000
          : undefined;
    if (over !== undefined) {
      const seconds = Math.max(1, Math.ceil((over - now) / 1000));
      throw new HttpError(403, SECONDARY_RATE_LIMIT_MESSAGE, undefined, { 'retry-after': String(seconds) });
    }
    kept.push(now);
  }
}
