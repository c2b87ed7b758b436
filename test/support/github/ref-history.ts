/**
 * Refs that remember where they pointed, so a read can be answered from the past: the like-GitHub model's stale
 * reads by branch name (`load-model.ts`). A `RefMap` is a `Map` from full ref name to sha; while its clock's
 * `viewAt` is set (during one read the model chose to answer stale), `get`, `has` and iteration answer as the
 * refs stood then. A ref moved by the server's own handlers is recorded with the time it moved; one moved by a
 * test's direct call (seeding, a simulated push) replaces the ref's history: what a test sets up is never
 * hidden from a read.
 */

export class RefClock {
  /** While set, refs answer as they stood at this time (ms since the epoch). */
  viewAt: number | undefined = undefined;
  /** True while a request's handler runs: refs it moves are recorded with the time. */
  serving = false;
  /** Set when a lookup under `viewAt` answered otherwise than the present would. */
  differed = false;

  constructor(
    /** How far back a view may look; older history is dropped. */
    readonly horizonMs: () => number,
    readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `read` with refs as they stood at `at`, as a request's handler (refs it moves are recorded with the
   * time); `differed` is told, even when `read` throws, whether any lookup answered otherwise than the present.
   */
  serve<T>(at: number | undefined, read: () => T, differed: () => void): T {
    this.viewAt = at;
    this.differed = false;
    this.serving = true;
    try {
      return read();
    } finally {
      if (this.differed) differed();
      this.viewAt = undefined;
      this.differed = false;
      this.serving = false;
    }
  }
}

interface Moved {
  readonly at: number;
  readonly sha: string | undefined;
}

export class RefMap extends Map<string, string> {
  readonly #history = new Map<string, Moved[]>();
  readonly #clock: RefClock;

  constructor(clock: RefClock) {
    super();
    this.#clock = clock;
  }

  override set(ref: string, sha: string): this {
    super.set(ref, sha);
    this.#record(ref, sha);
    return this;
  }

  override delete(ref: string): boolean {
    const had = super.delete(ref);
    if (had) this.#record(ref, undefined);
    return had;
  }

  override get(ref: string): string | undefined {
    const at = this.#clock.viewAt;
    const now = super.get(ref);
    if (at === undefined) return now;
    const then = this.#asOf(ref, at, now);
    if (then !== now) this.#clock.differed = true;
    return then;
  }

  override has(ref: string): boolean {
    return this.get(ref) !== undefined;
  }

  override *entries(): MapIterator<[string, string]> {
    const at = this.#clock.viewAt;
    if (at === undefined) {
      yield* super.entries();
      return;
    }
    const names = new Set([...super.keys(), ...this.#history.keys()]);
    for (const ref of names) {
      const sha = this.get(ref);
      if (sha !== undefined) yield [ref, sha];
    }
  }

  override [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  /** Where `ref` pointed at `at`: the last move at or before it (none recorded: where it points now). */
  #asOf(ref: string, at: number, now: string | undefined): string | undefined {
    const moves = this.#history.get(ref);
    if (!moves) return now;
    let sha: string | undefined;
    for (const move of moves) {
      if (move.at > at) break;
      sha = move.sha;
    }
    return sha;
  }

  #record(ref: string, sha: string | undefined): void {
    if (!this.#clock.serving) {
      this.#history.set(ref, [{ at: Number.NEGATIVE_INFINITY, sha }]);
      return;
    }
    const now = this.#clock.now();
    const moves = this.#history.get(ref) ?? [];
    moves.push({ at: now, sha });
    // Keep the last move at or before the horizon: a view never looks further back.
    const horizon = now - this.#clock.horizonMs();
    while (moves.length > 1 && moves[1]!.at <= horizon) moves.shift();
    this.#history.set(ref, moves);
  }
}
