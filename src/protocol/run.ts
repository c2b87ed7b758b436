/**
 * One run as the protocol decides on it (`Run`): its graph, its journal and the state the journal folds to,
 * built once (by a step's read, a command's) and carried whole through every decision. Events a decision adds
 * are folded onto the state the run has (`withEvents`, journal/fold.ts `foldOnto`), never the journal again from
 * its first event.
 */
import type { Graph } from '../graph/model.js';
import type { Journal, NewEvent } from '../journal/events/events.js';
import { fold, foldOnto } from '../journal/fold.js';
import { appendEvents } from '../journal/parse.js';
import type { RunState } from '../journal/state.js';

/** A run's graph, journal and state, which always agree: the state is the journal's fold under the graph. */
export interface Run {
  readonly graph: Graph;
  readonly journal: Journal;
  readonly state: RunState;
}

/** The run a journal makes under a graph: `state` when it is already folded, else folded here once. */
export function runOf(graph: Graph, journal: Journal, state?: RunState): Run {
  return { graph, journal, state: state ?? fold(journal, graph) };
}

/** The run after `events` (stamped `at`): the journal with them appended, their fold onto the run's state. */
export function withEvents(run: Run, events: readonly NewEvent[], at = ''): Run {
  if (events.length === 0) return run;
  const journal = appendEvents(run.journal, [...events], at);
  return { graph: run.graph, journal, state: foldOnto(run.state, journal, run.graph) };
}
