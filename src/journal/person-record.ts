/**
 * Where a person's settlement came from. `/settle` writes `NodeRecorded` with `recorded_by`, and its delivery (a
 * comment's URL, the CLI's `cli:<user>`) only in its words: the person evidence observes `<by>: <note> (<source>)`.
 * One reading of those words for the fold, the duplicate check and the owed dispatch alike. Pure.
 */
import type { JournalEvent } from './events/events.js';
import type { Evidence } from './events/fields.js';

/** The words of a person's settlement (`recorded_by` set): its `person` evidence's observations. */
export function personRecordWords(e: { recorded_by?: string | undefined; evidence: Evidence[] }): string[] {
  if (e.recorded_by === undefined) return [];
  return e.evidence.filter((x) => x.check === 'person').map((x) => x.observed);
}

/** Whether those words name `source` as the settlement's delivery: they end with `(<source>)`. */
export function wordsName(words: readonly string[], source: string): boolean {
  const tail = `(${source})`;
  return words.some((w) => w.endsWith(tail));
}

/** Whether the event is a person's settlement given from `source`. */
export function recordedFrom(e: JournalEvent, source: string): boolean {
  return e.type === 'NodeRecorded' && wordsName(personRecordWords(e), source);
}
