/**
 * The journal a commit writes, and the run its decision sees: under a changed graph a person allowed, the
 * permission folded in first; the header naming the graph the run is under after the write, by its path relative
 * to the repository. Pure.
 */
import { checkEvent, type Journal, type NewEvent } from '../../journal/events/events.js';
import { absolutePath } from '../../journal/graph-path.js';
import { appendEvents } from '../../journal/parse.js';
import { withEvents } from '../../protocol/run.js';
import { isoNow, type RunSetup, type RunSnapshot } from './read.js';

/**
 * The run as the decision sees it: under a changed graph that a person allowed, with the permission folded in
 * first (rule 6), so that what they asked for (an approval under the new graph, say) is decided under it.
 */
export function underGraph(setup: RunSetup, cur: RunSnapshot, change: NewEvent[]): RunSnapshot {
  if (!change.length) return cur;
  // The permission is folded onto the state read (`withEvents`), under the graph the run was read under.
  return { ...withEvents(cur, change, (setup.now ?? isoNow)()), version: cur.version };
}

/**
 * The journal `events` make from `cur` (events `from` on are this write's). Its header names the graph the run
 * is under after the write, by its path relative to the repository: named again when the graph changed, or
 * when an older release wrote the path as an absolute one (src/journal/graph-path.ts).
 */
export function nextJournal(setup: RunSetup, cur: RunSnapshot, events: NewEvent[], from: number): Journal {
  const journal = appendEvents(cur.journal, events, (setup.now ?? isoNow)());
  // Never write an event the journal's own reader would refuse: the journal would stop parsing for everyone.
  for (const e of journal.events.slice(from)) {
    const checked = checkEvent(e);
    if (!checked.success)
      throw new Error(
        `interlock made a ${e.type} event that the journal format refuses (${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}); nothing was written, and the journal at ${setup.store.location} is as it was. This is a bug in interlock: please report it with the command that failed`,
      );
  }
  // `cur` is the run under the graph this write goes on under (a change is folded in before the decision).
  const changed = journal.graph.hash !== cur.state.accepted_hash;
  const absolute = absolutePath(journal.graph.path) && !absolutePath(setup.graph.path);
  if (!changed && !absolute) return journal;
  return { ...journal, graph: { name: setup.graph.name, hash: setup.graph.hash, path: setup.graph.path } };
}
