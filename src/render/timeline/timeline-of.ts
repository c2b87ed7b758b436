/** The timeline of a run from its journal (issue 38): the events read in order, then rows grouped and ordered. */
import type { Journal, JournalEvent } from '../../journal/events/events.js';
import { groupOf, type Timeline, type TimelineDraft, type TimelineRow } from './model.js';
import { timelineStep } from './model-events.js';

const ms = (at: string) => Date.parse(at);

/** The timeline of a run: a pure function of its journal (`now`, in ms, ends what is still open). */
export function timelineOf(journal: Journal, opts: { now?: number } = {}): Timeline {
  const first = journal.events[0];
  const start = first ? ms(first.at) : 0;
  const d: TimelineDraft = {
    rows: new Map(),
    order: [],
    cycle: new Map(),
    approvers: new Map(),
    replay: new Map(),
    timeline: { run_id: journal.run_id, graph: journal.graph.name, start, end: start, rows: [], marks: [] },
  };
  for (const e of journal.events) timelineStep(d, e as JournalEvent, ms(e.at));
  const last = journal.events[journal.events.length - 1];
  const t = d.timeline;
  t.end = t.ended?.at ?? Math.max(last ? ms(last.at) : start, opts.now ?? 0);
  for (const row of d.rows.values()) closeOpen(row, t.end);
  t.rows = orderRows(d.order).map((n) => d.rows.get(n)!);
  return t;
}

/** Bars still running and spans still open end at the timeline's end (drawn as running). */
function closeOpen(row: TimelineRow, end: number): void {
  for (const b of row.bars) if (b.outcome === 'running') b.end = Math.max(b.end, end);
  if (row.span && !row.span.joined) row.span.end = end;
}

/** Rows grouped under their graph's node, groups in the order first seen, each node before what is under it. */
function orderRows(order: string[]): string[] {
  const groups: string[] = [];
  const members = new Map<string, string[]>();
  for (const n of order) {
    const g = groupOf(n);
    if (!members.has(g)) {
      members.set(g, []);
      groups.push(g);
    }
    members.get(g)!.push(n);
  }
  // Within a group, a node comes right before the nodes under it (a prefix of theirs), stable otherwise.
  const under = (a: string, b: string) => b.startsWith(`${a}[`) || b.startsWith(`${a}/`);
  return groups.flatMap((g) => {
    const list = members.get(g)!;
    const placed: string[] = [];
    const place = (n: string) => {
      if (placed.includes(n)) return;
      placed.push(n);
      for (const m of list)
        if (m !== n && under(n, m) && !list.some((x) => x !== n && x !== m && under(n, x) && under(x, m)))
          place(m);
    };
    if (!list.includes(g)) placed.push(g);
    for (const n of list) if (!list.some((p) => p !== n && under(p, n))) place(n);
    return placed.filter((n) => list.includes(n));
  });
}
