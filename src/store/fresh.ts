/**
 * A store that never goes back in time (issue 35). GitHub answers a read by branch name from the past now and
 * then; this wrapper keeps the floor of what its reader has read and written (journal/freshness.ts), and a read
 * that lacks what the reader already knows is read again after a short wait, never handed on: nothing is refused,
 * failed or decided from it. It counts those answers for the step log.
 */
import { NO_FLOOR, type ReadFloor, raiseFloor, staleReason } from '../journal/freshness.js';
import type { JournalStore, StoredJournal, WriteResult } from './types.js';

interface FreshOptions {
  /** What the reader knows already (the page's count after a form acted, say); default nothing. */
  floor?: ReadFloor;
  /** The wait before the n-th read again (0-based), in ms; default 200 ms doubled, at most 2 s. */
  backoffMs?: (tries: number) => number;
  /** How long reads may keep answering from the past before the step gives up (default 60 s, `max-age=60`). */
  giveUpAfterMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const defaultBackoff = (tries: number): number => Math.min(2000, 200 * 2 ** tries);

export class FreshStore implements JournalStore {
  /** Reads answered from the past (each was read again). */
  staleAnswers = 0;
  #floor: ReadFloor;
  /**
   * The version a write was just refused for because the journal changed: a read still showing it is stale, read
   * again once (a store that refuses every write whatever it holds is the commit's to give up on).
   */
  #refused: { version: string | null; rereads: number } | undefined;
  readonly #backoff: (tries: number) => number;
  readonly #giveUp: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;

  constructor(
    readonly inner: JournalStore,
    options: FreshOptions = {},
  ) {
    this.#floor = options.floor ?? NO_FLOOR;
    this.#backoff = options.backoffMs ?? defaultBackoff;
    this.#giveUp = options.giveUpAfterMs ?? 60_000;
    this.#sleep = options.sleep ?? ((ms) => new Promise((res) => setTimeout(res, ms)));
    this.#now = options.now ?? Date.now;
  }

  get location(): string {
    return this.inner.location;
  }

  /** What this store's reader knows the journal holds. */
  get floor(): ReadFloor {
    return this.#floor;
  }

  writableInMs(): number {
    return this.inner.writableInMs?.() ?? 0;
  }

  async read(): Promise<StoredJournal | null> {
    const started = this.#now();
    for (let tries = 0; ; tries++) {
      const stored = await this.inner.read();
      const why =
        staleReason(this.#floor, stored?.journal ?? null) ??
        (this.#refused && this.#refused.version === (stored?.version ?? null) && this.#refused.rereads++ < 1
          ? 'it shows the version a write was just refused for, as changed'
          : undefined);
      if (why === undefined) {
        this.#floor = raiseFloor(this.#floor, stored?.journal ?? null);
        this.#refused = undefined;
        return stored;
      }
      this.staleAnswers++;
      if (this.#now() - started >= this.#giveUp) {
        throw new Error(
          `${this.location}: for ${Math.round((this.#now() - started) / 1000)}s every read answered older than this step already knew (${why}): GitHub is serving an old copy. Nothing was decided from it; the journal is intact, run again`,
        );
      }
      await this.#sleep(this.#backoff(tries));
    }
  }

  /**
   * The journal at a commit: exact, so never read again; it raises the floor. A commit older than what this reader
   * knows (a plan's commit, read after this step wrote) is still exact about that commit, and lowers nothing.
   */
  async readAt(commit: string): Promise<StoredJournal | null> {
    if (!this.inner.readAt) return this.read();
    const stored = await this.inner.readAt(commit);
    if (staleReason(this.#floor, stored?.journal ?? null) === undefined) {
      this.#floor = raiseFloor(this.#floor, stored?.journal ?? null);
      this.#refused = undefined;
    }
    return stored;
  }

  async write(
    journal: Parameters<JournalStore['write']>[0],
    expected: string | null,
    message: string,
  ): Promise<WriteResult> {
    const result = await this.inner.write(journal, expected, message);
    if (result.ok) this.#floor = raiseFloor(this.#floor, journal);
    // Refused because the journal changed (not because the branch moved): it is no longer at `expected`.
    else if (!result.branchMoved) this.#refused = { version: expected, rereads: 0 };
    return result;
  }
}
