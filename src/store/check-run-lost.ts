/**
 * Lost updates on the check-run store, which GitHub gives no compare-and-swap: a writer remembers the journal it
 * last wrote, and whenever it reads the check run again (its next write, its read-back, a read, the end of its
 * step) it checks that the journal still holds those events. When another writer overwrote them, this writer
 * says so, naming the events lost, instead of going on as if they were stored.
 */

import type { Journal, JournalEvent } from '../journal/events/events.js';
import { eventLabel } from '../journal/events/label.js';
import { parseJournal, serializeJournal } from '../journal/parse.js';

/** Thrown by the writer whose events another writer overwrote. */
export class LostUpdate extends Error {
  constructor(where: string, lost: JournalEvent[]) {
    super(
      `${where}: another writer overwrote this step's journal write (a lost update: GitHub has no compare-and-swap on check runs). Lost from the journal: ${lost.map(withSeq).join(', ')}. What they recorded did happen: a node dispatched here may have run, and may be dispatched again by the other writer, so check its effects; the run goes on from the journal as it stands. Run one writer at a time (a workflow concurrency group per run), or use the git store for parallel jobs.`,
    );
    this.name = 'LostUpdate';
  }
}

const withSeq = (e: JournalEvent) => `${eventLabel(e)} (seq ${e.seq})`;

/** The events of `written` that `found` does not hold at the same place, byte for byte. Pure. */
export function lostEvents(written: Journal, found: Journal): JournalEvent[] {
  const same = (a: JournalEvent, b: JournalEvent | undefined) =>
    b !== undefined && JSON.stringify(a) === JSON.stringify(b);
  const first = written.events.findIndex((e, i) => !same(e, found.events[i]));
  return first < 0 ? [] : written.events.slice(first);
}

/** What one store instance wrote last, checked against every journal it reads afterwards. */
export class WriteWitness {
  private written: { text: string; journal: Journal } | undefined;

  get wrote(): boolean {
    return this.written !== undefined;
  }

  /** Remembers a write, as the journal reads back (the parser orders fields its own way). */
  remember(text: string, journal: Journal): void {
    this.written = { text, journal: parseJournal(serializeJournal(journal), 'written') };
  }

  /** Throws LostUpdate when `found` (null: no journal at all) no longer holds what this writer wrote. */
  check(where: string, found: { text: string; journal: () => Journal } | null): void {
    const w = this.written;
    if (!w || found?.text === w.text) return;
    const lost = found ? lostEvents(w.journal, found.journal()) : w.journal.events;
    if (lost.length) throw new LostUpdate(where, lost);
  }
}
