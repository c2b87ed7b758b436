/**
 * A run's journal as the git store keeps it in the local GitHub: on the run's own branch
 * (`interlock-journal-runs/<run-id>`), or on the journal branch of the layout before. For tests that look at
 * the repository directly; interlock itself reads through src/store/git.ts.
 */
import { runBranch, runPath } from '../../src/store/git-layout.js';

/** The part of the local GitHub's repository these helpers read and write. */
interface JournalRepo {
  readText(path: string, branch: string): string | undefined;
  commitFiles(
    branch: string,
    files: Record<string, string>,
    opts?: object,
    more?: { orphan?: boolean },
  ): unknown;
  branchSha?(branch: string): string | undefined;
}

/** The journal's text, from the run's branch, else the journal branch; undefined when neither holds it. */
export function journalText(repo: JournalRepo, runId: string, journalBranch = 'interlock-journal') {
  return (
    repo.readText(runPath(runId), runBranch(journalBranch, runId)) ??
    repo.readText(runPath(runId), journalBranch)
  );
}

/** Where a test seeds or replaces a run's journal: the run's own branch (made as an orphan when missing). */
export function putJournalText(
  repo: JournalRepo,
  runId: string,
  text: string,
  journalBranch = 'interlock-journal',
) {
  const branch =
    repo.readText(runPath(runId), runBranch(journalBranch, runId)) === undefined &&
    repo.readText(runPath(runId), journalBranch) !== undefined
      ? journalBranch
      : runBranch(journalBranch, runId);
  const exists = repo.branchSha?.(branch) !== undefined;
  repo.commitFiles(branch, { [runPath(runId)]: text }, {}, exists ? {} : { orphan: true });
}
