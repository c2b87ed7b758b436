/**
 * A run's journal put where a test needs it by the product's own writer, never by writing a layout by hand: the
 * git store (src/store/git.ts) writes it through the local GitHub's API on the run's own branch
 * (`interlock-journal-runs/<run-id>`, the layout the bundled action writes today) or, placed there as a listing
 * of before finds it, on the journal branch of before (`runs/<run-id>.json` on `interlock-journal`); the file
 * store (src/store/file.ts) writes a local file. A journal an older release wrote by hand is kept only as a
 * golden file of that release (test/fixtures/released-journals), not made here.
 */

import { createClient } from '../../src/github/client.js';
import type { Journal } from '../../src/journal/events/events.js';
import { FileStore } from '../../src/store/file.js';
import { DEFAULT_JOURNAL_BRANCH, GitStore } from '../../src/store/git.js';
import { runBranch, runPath } from '../../src/store/git-layout.js';
import type { JournalStore } from '../../src/store/types.js';
import type { GitHubServer } from './github-server.js';

/** Where the git store keeps a run: its own branch (today's layout), or the journal branch of before. */
export type GitLayout = 'run-branch' | 'journal-branch';

/** Both git layouts, for a `describe.each` of a face that must read runs of before as well as today's. */
export const GIT_LAYOUTS: readonly GitLayout[] = ['run-branch', 'journal-branch'];

/** Writes a run's journal through a store's compare-and-swap write, over `expected` (null: none yet). */
export async function writeNew(store: JournalStore, journal: Journal, expected: string | null = null) {
  const r = await store.write(journal, expected, `interlock: ${journal.run_id} seeded by a test`);
  if (!r.ok) throw new Error(`${store.location}: the seed was refused (${r.conflict})`);
}

/**
 * Writes a run's journal with the git store, in `layout`, on the local GitHub's repository `full`: a new run,
 * or over the run's journal there (read at its branch's head, exactly) when a test seeds the same run again. The
 * branch's moves are then made the set-up's (as a seed written in place is): a read by name that the like-GitHub
 * model answers from the past still sees the run, since it was there before the test began.
 */
export async function seedGitJournal(
  server: GitHubServer,
  full: string,
  journal: Journal,
  layout: GitLayout = 'run-branch',
  journalBranch = DEFAULT_JOURNAL_BRANCH,
): Promise<void> {
  const [owner, repo] = full.split('/') as [string, string];
  const octokit = createClient({ token: 'test', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
  const place = layout === 'run-branch' ? 'run' : 'legacy';
  const store = new GitStore(octokit, { owner, repo }, journal.run_id, journalBranch, place);
  const state = server.state.repo(full);
  const ref = `refs/heads/${layout === 'run-branch' ? runBranch(journalBranch, journal.run_id) : journalBranch}`;
  const head = state.refs.get(ref);
  const current = head ? await store.readAt(head) : null;
  await writeNew(store, journal, current?.version ?? null);
  const sha = state.refs.get(ref);
  if (!sha) throw new Error(`${full}: the seed's branch ${ref} is missing`);
  state.refs.set(ref, sha);
}

/** Writes a new run's journal with the file store, at `path` (the CLI's `.interlock/runs/<run-id>.json`). */
export function seedFileJournal(path: string, journal: Journal): Promise<void> {
  return writeNew(new FileStore(path), journal);
}

/** Which git layout holds a run's journal now (both: 'both'; neither: undefined), read from the repository. */
export function gitLayoutOf(
  repo: { readText(path: string, branch: string): string | undefined },
  runId: string,
  journalBranch = DEFAULT_JOURNAL_BRANCH,
): GitLayout | 'both' | undefined {
  const own = repo.readText(runPath(runId), runBranch(journalBranch, runId)) !== undefined;
  const old = repo.readText(runPath(runId), journalBranch) !== undefined;
  return own && old ? 'both' : own ? 'run-branch' : old ? 'journal-branch' : undefined;
}
