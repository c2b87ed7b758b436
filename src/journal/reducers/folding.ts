/**
 * What the fold carries from event to event (`Folding`), the shape of a reducer, and the checks every reducer
 * shares. The reducers (`reducers.ts` and its parts) import this file; it imports none of them, so the journal's
 * modules load in any order.
 */

import type { EventOf, EventType, JournalEvent } from '../events/events.js';
import {
  attemptInFlight,
  type Checkpoint,
  type GraphShape,
  isResolved,
  JournalError,
  type NodeProgress,
  newProgress,
  type RunState,
  stateWords,
} from '../state.js';

/** What the fold has gathered so far, event by event. */
export interface Folding {
  graph: GraphShape;
  specs: Map<string, GraphShape['nodes'][number]>;
  nodes: Map<string, NodeProgress>;
  traversal: string[];
  ended: Checkpoint['ended'];
  started: RunState['started'];
  inputs: Record<string, string>;
  github: unknown;
  acceptedHash: string;
  lastCompleted: string | null;
  rolledBackTo: string | null;
  lastAt: string | null;
  approvalSources: string[];
  /** The words of each person's settlement, which name its delivery (person-record.ts): a retried dispatch may follow one. */
  personRecords: string[];
  /** The run this one was forked from (`RunStarted.forked_from`), and how many records it carried over. */
  forkedFrom: string | null;
  carried: number;
}

/** Where a reducer is: the event's index, and how to refuse the event. */
export interface At {
  index: number;
  bad: (why: string) => never;
}

export type Reducer<T extends EventType> = (f: Folding, e: EventOf<T>, at: At) => void;

/** The progress of the node an event names; an unknown node breaks the journal. */
export function progress(f: Folding, e: JournalEvent & { node: string }): NodeProgress {
  let p = f.nodes.get(e.node);
  if (!p) {
    if (!f.specs.has(e.node))
      throw new JournalError(
        `event ${e.seq} (${e.type}) names node "${e.node}", which is not in the graph`,
        e.seq,
      );
    p = newProgress(2);
    f.nodes.set(e.node, p);
  }
  return p;
}

/** Refuses an event about an attempt that is not the one in flight. */
export function inFlight(p: NodeProgress, e: { node: string; attempt: number }, at: At): void {
  if (!attemptInFlight(p, e.attempt))
    at.bad(`node "${e.node}" attempt ${e.attempt} is not in flight (it is ${stateWords(p.state)})`);
}

/** Refuses a node's start (`verb`: dispatched, skipped) before each of its dependencies is resolved. */
export function dependenciesResolved(f: Folding, node: string, verb: string, at: At): void {
  for (const dep of f.specs.get(node)?.depends_on ?? []) {
    const d = f.nodes.get(dep);
    if (d && !isResolved(d.state)) at.bad(`node "${node}" ${verb} before "${dep}" ended`);
  }
}
