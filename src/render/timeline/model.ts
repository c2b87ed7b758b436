/**
 * The timeline of a run (issue 38), from its journal alone, so every face draws the same picture for every old
 * journal: one row per node (instances and sub-graph nodes under their node), each attempt a bar from its
 * dispatch to its record, waits for people as spans with who ended them and how, and marks. Pure: no clock (an
 * unfinished run ends at its last event, or at `now` when the caller gives one).
 */

/** How an attempt ended; `running` when the journal has no end for it yet. */
export type BarOutcome = 'completed' | 'failed' | 'interrupted' | 'given-back' | 'running';

/** One attempt of a node: from its dispatch to its record, failure, interruption or give-back. */
export interface TimelineBar {
  attempt: number;
  /** The loop cycle it belongs to (a node with `repeat:`), from 2 on; absent for the first or no cycle. */
  cycle?: number;
  start: number;
  end: number;
  outcome: BarOutcome;
  /** For a failed attempt: its first failure in one line (`check: message`), and the excerpt's first lines. */
  why?: string;
}

/** Why a node waited for a person. */
export type WaitKind = 'gate' | 'held' | 'escalated' | 'budget' | 'cap';
/** How a person ended a wait: the command they gave. */
export type WaitEnd = 'approve' | 'approve-rerun' | 'settle' | 'fail-run' | 'tolerated';

/** A span during which the node waited for people; `end` absent while it still waits. */
export interface TimelineWait {
  kind: WaitKind;
  start: number;
  end?: number;
  how?: WaitEnd;
  /** Who ended it (several people for an approval that needed several). */
  by?: string[];
  guidance?: string;
}

type MarkKind =
  | 'skipped'
  | 'overdue'
  | 'cycle'
  | 'rerun-from'
  | 'expansion-failed'
  | 'carried-over'
  | 'escalated'
  | 'graph-change';

/** A moment on a node's row: a skip, an overdue check-in, a loop's next cycle, a rerun asked for. */
interface TimelineMark {
  kind: MarkKind;
  at: number;
  text: string;
}

export interface TimelineRow {
  node: string;
  /** 0 for a graph's node; one more for each instance or sub-graph level under it. */
  depth: number;
  bars: TimelineBar[];
  waits: TimelineWait[];
  marks: TimelineMark[];
  /** For a `for_each` or sub-graph node: from its expansion to its join (or the end). */
  span?: { start: number; end: number; joined: boolean };
}

export interface Timeline {
  run_id: string;
  graph: string;
  start: number;
  end: number;
  /** `completed`, `failed` (with why and by whom), or `open` for a run that has not ended. */
  ended?: { status: 'completed' | 'failed'; at: number; reason: string; by: string };
  rows: TimelineRow[];
  /** Run-level moments: a graph change allowed. */
  marks: TimelineMark[];
}

/** Working state while the events are read: rows by node, in the order they were first seen. */
export interface TimelineDraft {
  rows: Map<string, TimelineRow>;
  order: string[];
  cycle: Map<string, number>;
  timeline: Timeline;
  /** Approvals counted per node until a wait's `required` is met. */
  approvers: Map<string, { people: Set<string>; guidance: string[] }>;
  /** The replay rule of each node's open attempt, so an interruption knows whether a hold follows. */
  replay: Map<string, 'safe' | 'never'>;
}

/** The node a row is grouped under: the graph's node, before any `[key]` or `/child`. */
export function groupOf(node: string): string {
  const cut = node.search(/[[/]/);
  return cut < 0 ? node : node.slice(0, cut);
}

/** How deep a node sits under its graph's node: one level per instance key and per sub-graph. */
function depthOf(node: string): number {
  return node.split('/').reduce((d, part, i) => d + (i > 0 ? 1 : 0) + (part.includes('[') ? 1 : 0), 0);
}

export function rowOf(d: TimelineDraft, node: string): TimelineRow {
  let row = d.rows.get(node);
  if (!row) {
    row = { node, depth: depthOf(node), bars: [], waits: [], marks: [] };
    d.rows.set(node, row);
    d.order.push(node);
  }
  return row;
}
