/** Primary rate limits, counted per acting user or installation, reported in `x-ratelimit-*`. */

export interface RateWindow {
  readonly limit: number;
  readonly used: number;
  readonly remaining: number;
  /** Epoch seconds when the window resets. */
  readonly reset: number;
}

export class RateLimiter {
  readonly #used = new Map<string, { used: number; reset: number }>();

  constructor(
    readonly limit: number,
    readonly clock: () => number = Date.now,
  ) {}

  /** The window for `who`, without spending from it. */
  peek(who: string): RateWindow {
    const now = Math.floor(this.clock() / 1000);
    let window = this.#used.get(who);
    if (!window || window.reset <= now) {
      window = { used: 0, reset: now + 3600 };
      this.#used.set(who, window);
    }
    return {
      limit: this.limit,
      used: window.used,
      remaining: Math.max(this.limit - window.used, 0),
      reset: window.reset,
    };
  }

  /** Spends one request; false (spending nothing) when none is left. */
  spend(who: string): boolean {
    const window = this.peek(who);
    if (window.remaining <= 0) return false;
    this.#used.set(who, { used: window.used + 1, reset: window.reset });
    return true;
  }

  headers(who: string): Record<string, string> {
    const window = this.peek(who);
    return {
      'x-ratelimit-limit': String(window.limit),
      'x-ratelimit-remaining': String(window.remaining),
      'x-ratelimit-reset': String(window.reset),
      'x-ratelimit-used': String(window.used),
      'x-ratelimit-resource': 'core',
    };
  }
}
