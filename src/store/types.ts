import type { Journal } from '../journal/events/events.js';

/** A journal as read, with the version a compare-and-swap write must name. */
export interface StoredJournal {
  journal: Journal;
  version: string;
}

/**
 * A write's answer. `branchMoved`: refused because other files' writes moved the branch meanwhile (GitHub's 409
 * `is at <sha> but expected <sha>`), not because this journal changed: the same write may go again as it is.
 * `commit`: the commit a landed write made; `head`: the commit a branch-moved refusal names as the branch's head,
 * where the journal can be read exactly (`readAt`) rather than by branch name, which may answer from the past.
 */
export type WriteResult =
  | { ok: true; version: string; commit?: string }
  | { ok: false; conflict: string; branchMoved?: true; head?: string };

/** Where a run's journal lives. Besides reading, the one operation is a compare-and-swap write. */
export interface JournalStore {
  /** Where the journal is, for messages. */
  readonly location: string;
  /** The journal, or null when the run has not started. Throws JournalError when it does not parse. */
  read(): Promise<StoredJournal | null>;
  /**
   * Milliseconds until a write may be sent (the client spaces writes as GitHub asks); absent: at once. A commit
   * waits it out before reading, so the version it names is as fresh as it can be when the write goes.
   */
  writableInMs?(): number;
  /**
   * The journal as it is at one commit (git: a commit sha): exact, never an answer from the past; null when the
   * commit does not hold it. Absent where every read is exact anyway.
   */
  readAt?(commit: string): Promise<StoredJournal | null>;
  /** Writes the whole journal if, and only if, it is still at `expected` (null: must not exist yet). */
  write(journal: Journal, expected: string | null, message: string): Promise<WriteResult>;
}

/** One run a store holds: its id, where it is (a path or a check run), and its version when the listing shows it. */
export interface ListedRun {
  runId: string;
  where: string;
  /** The version a compare-and-swap write names (git: the blob sha); absent when listing does not show it. */
  version?: string;
  /** What pins the journal the listing saw, when not its version: a run branch's commit, a check run's id. */
  at?: string;
  /** When the journal was last written, when the listing shows it without a read (a file's modification time). */
  modifiedMs?: number;
}

/** A listed run's journal as stored: its text, unparsed (a journal that does not parse is the reader's to name). */
export interface ListedText {
  text: string;
  version: string;
  where: string;
}

/** The runs in one place a store keeps journals: a journal branch, a folder, one commit's check runs. */
export interface RunCatalog {
  readonly location: string;
  /** Every run there, sorted by run id; null when the place does not exist yet (no branch, no folder). */
  listRuns(): Promise<ListedRun[] | null>;
  /**
   * A listed run's journal, read where the listing saw it (by its version or `at` when the listing pinned one,
   * else by name); null when it is gone since. Every face reads listed runs through this, never its own way.
   */
  readText(run: ListedRun): Promise<ListedText | null>;
}

/** Orders listed runs by run id, the same on every machine (code units, not the locale). */
export function byRunId(a: ListedRun, b: ListedRun): number {
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}
