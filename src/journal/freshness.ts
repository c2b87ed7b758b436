/**
 * Which read of a journal is stale: the one rule (issue 35). A journal is append-only, so a reader that wrote or
 * read it knows a floor: at least `seq` events, the last of them `last`. GitHub answers a read by branch name
 * from the past now and then (seconds late); such an answer lacks an event the reader already knows, or shows
 * another event in its place. A stale read is never a reason to refuse, fail or decide anything: the reader reads
 * again (store/fresh.ts). Pure.
 */
import { canonicalJson } from '../graph/canonical.js';
import type { Journal } from './events/events.js';

/** What a reader knows a journal holds: at least `seq` events, and when it saw them, the last one. */
export interface ReadFloor {
  readonly seq: number;
  /** The event at `seq` as canonical JSON; absent when only the count is known (the page's form that acted). */
  readonly last?: string;
}

export const NO_FLOOR: ReadFloor = { seq: 0 };

/** The floor a journal read or written sets: all its events, the last one among them. */
export function floorOf(journal: Journal | null): ReadFloor {
  const last = journal?.events.at(-1);
  return last ? { seq: journal!.events.length, last: canonicalJson(last) } : NO_FLOOR;
}

/** Why `read` (null: no journal at all) is older than what `floor` says the reader knows; undefined when fresh. */
export function staleReason(floor: ReadFloor, read: Journal | null): string | undefined {
  if (floor.seq <= 0) return undefined;
  const held = read?.events.length ?? 0;
  if (held < floor.seq)
    return read
      ? `it holds ${held} events, and this reader knows ${floor.seq}`
      : `it has no journal, and this reader knows ${floor.seq} events`;
  const at = read!.events[floor.seq - 1]!;
  if (floor.last !== undefined && canonicalJson(at) !== floor.last)
    return `its event ${floor.seq} is not the one this reader knows`;
  return undefined;
}

/** The floor after a read or write that was not stale: the higher of the two (a count alone never lowers it). */
export function raiseFloor(floor: ReadFloor, journal: Journal | null): ReadFloor {
  const next = floorOf(journal);
  return next.seq >= floor.seq ? next : floor;
}

/**
 * A reader with no floor (a job that starts after others wrote, a person's command about a hold it saw) cannot
 * tell a stale answer from the truth; what it can know is when the cause of its work happened (its own start, the
 * comment's creation). A read that began at least `windowMs` (how stale GitHub's answers may be) after that holds
 * everything written before it. A decision that acts on what the journal lacks (nothing to do, nothing waits, not
 * in flight) is taken only from such a read: how many ms a read begun at `readAt` is short of it (0: it is not).
 */
export function staleReadShortMs(readAt: number, causeAt: number | undefined, windowMs: number): number {
  if (causeAt === undefined || windowMs <= 0) return 0;
  return Math.max(0, causeAt + windowMs - readAt);
}
