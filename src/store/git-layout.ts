/**
 * Where the git store keeps a run's journal. Pure: names only.
 *
 * Each run has a branch of its own, `<journal-branch>-runs/<run-id>` (`interlock-journal-runs/fix/issue-42` for
 * the default), holding `runs/<run-id>.json` and a README. GitHub serializes the writes to one branch (a contents
 * write fails with 409 when another write moved the branch meanwhile, even for another file), and different
 * branches never conflict: runs no longer race each other, only a run's own steps race for its one file, which
 * is the compare-and-swap the journal needs anyway. Journals written before this layout stay where they are, on
 * the journal branch itself (`runs/<run-id>.json` on `interlock-journal`): a run found there goes on there.
 * The run branches cannot be named `<journal-branch>/<run-id>`: git holds no ref below another ref's name.
 */

/** The branch of a run's own journal: the journal branch's name, `-runs/`, the run id. */
export function runBranch(journalBranch: string, runId: string): string {
  return `${runBranchPrefix(journalBranch)}${runId}`;
}

/** What every run branch's name starts with (`interlock-journal-runs/`). */
export function runBranchPrefix(journalBranch: string): string {
  return `${journalBranch}-runs/`;
}

/** The run a branch (`refs/heads/…` or the bare name) holds, if it is a run branch of this journal branch. */
export function runIdOfBranch(journalBranch: string, ref: string): string | undefined {
  const name = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
  const prefix = runBranchPrefix(journalBranch);
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : undefined;
}

/**
 * Whether a run id can be part of a branch name. Every valid run id can, but for parts git refuses in a ref: one
 * that starts with `.` or ends with `.lock`. Such a run keeps its journal on the journal branch, as before.
 */
export function branchableRunId(runId: string): boolean {
  return runId.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

/** The path of a run's journal, on its own branch and on the journal branch alike. */
export const runPath = (runId: string): string => `runs/${runId}.json`;
