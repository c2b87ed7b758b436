/**
 * A run forked from an ended one (`/rerun-from`, `interlock rerun-from` on an ended run, issue 28): its first
 * events (`forkRun` in protocol/commands/rerun-from.ts) written as a new journal, which must not exist yet.
 */
import type { Graph } from '../../graph/model.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../../journal/events/events.js';
import { fold } from '../../journal/fold.js';
import { appendEvents } from '../../journal/parse.js';
import type { JournalStore } from '../../store/types.js';
import { isoNow, type RunSnapshot } from './read.js';

/** Writes the fork's journal; refused when a journal is already at that place (another fork took the id). */
export async function writeFork(
  store: JournalStore,
  runId: string,
  graph: Graph,
  events: NewEvent[],
  now: () => string = isoNow,
): Promise<{ ok: true; cur: RunSnapshot } | { ok: false; reason: string }> {
  const start = events[0];
  const ref =
    start?.type === 'RunStarted' ? start.graph : { name: graph.name, hash: graph.hash, path: graph.path };
  const empty: Journal = { format: JOURNAL_FORMAT, run_id: runId, graph: ref, events: [] };
  const journal = appendEvents(empty, events, now());
  // Folded before it is written: a fork the fold refuses is never stored.
  const state = fold(journal, graph);
  const w = await store.write(journal, null, `interlock: fork ${runId}`);
  if (!w.ok) return { ok: false, reason: `${store.location} already holds a run (${w.conflict}): try again` };
  return { ok: true, cur: { graph, journal, version: w.version, state } };
}
