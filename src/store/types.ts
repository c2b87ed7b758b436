import type { Journal } from '../journal/events.js';

/** A journal as read, with the version a compare-and-swap write must name. */
export interface StoredJournal {
  journal: Journal;
  version: string;
}

export type WriteResult = { ok: true; version: string } | { ok: false; conflict: string };

/** Where a run's journal lives. Besides reading, the one operation is a compare-and-swap write. */
export interface JournalStore {
  /** Where the journal is, for messages. */
  readonly location: string;
  /** The journal, or null when the run has not started. Throws JournalError when it does not parse. */
  read(): Promise<StoredJournal | null>;
  /** Writes the whole journal if, and only if, it is still at `expected` (null: must not exist yet). */
  write(journal: Journal, expected: string | null, message: string): Promise<WriteResult>;
}
