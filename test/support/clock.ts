/**
 * The local GitHub's clock, and what the faces are told of it: one home for both (test/support/README.md, "The
 * like-GitHub model"; CONTRIBUTING.md, "The suite's time").
 *
 * - `GITHUB_CLOCK` is the like-GitHub model's default: a contents write takes 300 ms, a quarter of the reads by
 *   branch name answer from 2 s before. It is the stand-in with which issue 35 reproduced what users met on
 *   GitHub, and a suite whose subject is time (the stale window, a line-up's slot, a backoff, the model itself)
 *   keeps it: a server started without `likeGitHub` times has it.
 * - `ORDER_CLOCK` is the same model four times faster (a 75 ms write, reads 500 ms stale), for suites about order,
 *   not time: every write still takes time and races another on its branch, every stale read still answers from
 *   the past, and the faces are told how stale this GitHub is, so they wait as long as its window and no longer.
 *
 * A step is told the clock of the server it talks to: `action-process.ts` gives it `stepClockEnv(apiUrl)`
 * (`INTERLOCK_STALE_READ_MS`, and `INTERLOCK_LINE_UP_SLOT_MS` scaled as the write is); an App loaded in the test's
 * process is given `staleWindowOf(server)`. A step's own `env` still wins over both.
 */
import { TUNING } from '../../src/os/tuning.js';
import { LIKE_GITHUB, type LikeGitHubOptions, type ResolvedModel } from './github/load-model.js';

/** The like-GitHub model's times by default (what the server has when a suite gives none). */
export const GITHUB_CLOCK = {
  contentsWriteMs: LIKE_GITHUB.contentsWriteMs,
  staleMs: LIKE_GITHUB.staleMs,
} as const satisfies LikeGitHubOptions;

/**
 * The model four times faster, for suites about order, not time. `INTERLOCK_TEST_CLOCK=github` makes it
 * GITHUB_CLOCK: every suite then runs on the default clock (to compare the two, or to test the defaults everywhere).
 */
export const ORDER_CLOCK: LikeGitHubOptions & { readonly contentsWriteMs: number; readonly staleMs: number } =
  process.env.INTERLOCK_TEST_CLOCK === 'github'
    ? GITHUB_CLOCK
    : { contentsWriteMs: GITHUB_CLOCK.contentsWriteMs / 4, staleMs: GITHUB_CLOCK.staleMs / 4 };

/** The product's default line-up slot (`INTERLOCK_LINE_UP_SLOT_MS`), sized for GITHUB_CLOCK's write. */
const DEFAULT_SLOT_MS = TUNING.INTERLOCK_LINE_UP_SLOT_MS.default;

/** The model of each local GitHub listening in this process, by its API url (github-server.ts keeps it). */
const serving = new Map<string, ResolvedModel>();

export function servingAt(url: string, model: ResolvedModel): void {
  serving.set(url, model);
}

export function stoppedAt(url: string): void {
  serving.delete(url);
}

/**
 * How stale the server's reads may be: the window a face must wait out. A server with no stale reads
 * (`likeGitHub: false`), or one not in this process, keeps GITHUB_CLOCK's window, with which the suites that count
 * such a server's requests were written.
 */
export function staleWindowOf(server: { url: string }): number {
  return serving.get(server.url)?.staleMs || GITHUB_CLOCK.staleMs;
}

/**
 * The tuning a step is given for the server at `apiUrl`: its stale window, and, on a clock faster than
 * GITHUB_CLOCK, a line-up slot shorter by as much as the write is (a slot is the time a job is given for its
 * writes). On GITHUB_CLOCK the slot is the product's default, unset.
 */
export function stepClockEnv(apiUrl: string): Record<string, string> {
  const model = serving.get(apiUrl);
  const env: Record<string, string> = { INTERLOCK_STALE_READ_MS: String(staleWindowOf({ url: apiUrl })) };
  const write = model?.contentsWriteMs ?? 0;
  if (write > 0 && write < GITHUB_CLOCK.contentsWriteMs)
    env.INTERLOCK_LINE_UP_SLOT_MS = String(
      Math.max(100, Math.round((DEFAULT_SLOT_MS * write) / GITHUB_CLOCK.contentsWriteMs)),
    );
  return env;
}
