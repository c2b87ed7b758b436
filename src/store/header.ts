/**
 * Changes to a journal's header (fields beside the events, such as the progress comment's id) through the
 * store's compare-and-swap: read, decide, write if still at the version read; on a conflict, read and decide
 * again. Events go through the engine's commit, which also recognises a write whose answer was lost.
 */
import type { Journal } from '../journal/events/events.js';
import type { JournalStore } from './types.js';

/** Rounds before a header change gives up: a header is a convenience, and event writers win every race. */
const ROUNDS = 8;

interface HeaderChange {
  /** The new journal, or undefined when the journal as read needs no change (or must not be changed). */
  change: (journal: Journal) => Journal | undefined;
  message: (journal: Journal) => string;
  /** The journal as just read or written, so the first round needs no read. */
  first?: { journal: Journal; version: string | null } | null;
}

/**
 * Applies a header change. Returns the journal as it stands at the end: written, or left as it was because
 * `change` declined; undefined when there is no journal yet or every round met a conflict.
 */
export async function updateHeader(store: JournalStore, h: HeaderChange): Promise<Journal | undefined> {
  let now = h.first === undefined ? await store.read() : h.first;
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) now = await store.read();
    if (!now?.version) return undefined;
    const next = h.change(now.journal);
    if (!next) return now.journal;
    const w = await store.write(next, now.version, h.message(now.journal));
    if (w.ok) return next;
  }
  return undefined;
}
