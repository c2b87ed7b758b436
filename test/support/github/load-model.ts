/**
 * The like-GitHub model: what GitHub does under load that a kind stand-in would not (test/support/README.md has
 * the model, its defaults and its sources).
 * - A contents write (`PUT`/`DELETE …/contents/{path}`) takes `contentsWriteMs` on the server and commits on the
 *   branch head it read when it began: a write to the same branch landing meanwhile makes it 409
 *   `is at <sha> but expected <sha>`, whatever file either touched.
 * - A read by branch name is, with probability `staleProbability`, answered from the branch as it stood
 *   `staleMs` earlier. Reads by commit sha are exact.
 * - Secondary limits: content-creating requests per actor (`writesPerMinute`, `writesPerHour`) and requests in
 *   flight at once (`concurrent`), refused 403 or 429 with GitHub's message and `retry-after`.
 * Which reads go stale is drawn from a generator seeded with `seed` (default `DEFAULT_SEED`, or
 * `INTERLOCK_GITHUB_SEED`): the same requests in the same order meet the same answers.
 */
import type { SecondaryLimitOptions } from './secondary-limit.js';

export interface LikeGitHubOptions {
  /** Seeds the choice of stale reads (default `INTERLOCK_GITHUB_SEED`, else `DEFAULT_SEED`). */
  readonly seed?: number;
  /** How long a contents write takes on the server, in ms (default `LIKE_GITHUB.contentsWriteMs`); 0: at once. */
  readonly contentsWriteMs?: number;
  /** Share of reads by branch name answered from the past (default 0.25); 0: none. */
  readonly staleProbability?: number;
  /** How far in the past a stale read looks, in ms (default 2000). */
  readonly staleMs?: number;
  /** GitHub's secondary limit on content-creating requests (default 80 a minute, 500 an hour); false: none. */
  readonly secondaryLimit?: SecondaryLimitOptions | false;
  /** Requests in flight at once before 429 (default 100); 0: no limit. */
  readonly concurrent?: number;
}

export const DEFAULT_SEED = 35;

/**
 * The defaults: GitHub's documented limits, and the 300 ms write and the quarter of reads 2 s stale that
 * reproduced the failures users and issue 35 report.
 */
export const LIKE_GITHUB = {
  contentsWriteMs: 300,
  staleProbability: 0.25,
  staleMs: 2000,
  secondaryLimit: { writesPerMinute: 80, writesPerHour: 500 },
  concurrent: 100,
} as const;

/** What the model did, to assert on and to report. */
export interface LoadStats {
  /** Reads by branch name answered from the past whose answer differed from the present. */
  staleAnswers: number;
  /** Contents writes refused because their branch moved while they were carried out. */
  racedWrites: number;
  /** Requests refused by a secondary limit (content-creating or concurrent). */
  limited: number;
}

export interface ResolvedModel {
  readonly seed: number;
  readonly contentsWriteMs: number;
  readonly staleProbability: number;
  readonly staleMs: number;
  readonly secondaryLimit: SecondaryLimitOptions | false;
  readonly concurrent: number;
}

function seedFromEnv(): number | undefined {
  const given = process.env.INTERLOCK_GITHUB_SEED;
  return given !== undefined && /^\d+$/.test(given) ? Number(given) : undefined;
}

/** The model in force: `false` turns every part off (a suite that counts exact requests). */
export function resolveModel(given: LikeGitHubOptions | false | undefined): ResolvedModel {
  const seed = (given === false ? undefined : given?.seed) ?? seedFromEnv() ?? DEFAULT_SEED;
  if (given === false)
    return {
      seed,
      contentsWriteMs: 0,
      staleProbability: 0,
      staleMs: 0,
      secondaryLimit: false,
      concurrent: 0,
    };
  return {
    seed,
    contentsWriteMs: given?.contentsWriteMs ?? LIKE_GITHUB.contentsWriteMs,
    staleProbability: given?.staleProbability ?? LIKE_GITHUB.staleProbability,
    staleMs: given?.staleMs ?? LIKE_GITHUB.staleMs,
    secondaryLimit: given?.secondaryLimit ?? LIKE_GITHUB.secondaryLimit,
    concurrent: given?.concurrent ?? LIKE_GITHUB.concurrent,
  };
}

/** A small seeded generator (mulberry32): uniform numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class LoadModel {
  readonly stats: LoadStats = { staleAnswers: 0, racedWrites: 0, limited: 0 };
  readonly #random: () => number;
  #inFlight = 0;

  constructor(readonly options: ResolvedModel) {
    this.#random = seededRandom(options.seed);
  }

  /** Whether this read by name is answered from the past; the time it is answered as of, if so. */
  staleAt(now: number): number | undefined {
    if (this.options.staleProbability <= 0 || this.options.staleMs <= 0) return undefined;
    return this.#random() < this.options.staleProbability ? now - this.options.staleMs : undefined;
  }

  /** Counts a request in; false when more than `concurrent` would be in flight (it is not counted then). */
  enter(): boolean {
    if (this.options.concurrent > 0 && this.#inFlight >= this.options.concurrent) return false;
    this.#inFlight++;
    return true;
  }

  leave(): void {
    this.#inFlight--;
  }
}
