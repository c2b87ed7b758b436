/** What each journal event does to the timeline (issue 38): one small function per event that draws anything. */

import type { EventOf, JournalEvent } from '../../journal/events/events.js';
import type { Failure } from '../../journal/events/fields.js';
import {
  rowOf,
  type TimelineBar,
  type TimelineDraft,
  type TimelineRow,
  type TimelineWait,
  type WaitEnd,
  type WaitKind,
} from './model.js';

/** The first failure in one line, then the first lines of its excerpt: what a hover or legend says. */
function failureWhy(failures: Failure[]): string | undefined {
  const f = failures[0];
  if (!f) return undefined;
  const head = `${f.check}: ${f.message}`.replace(/\s+/g, ' ').trim();
  const excerpt = (f.excerpt ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 3);
  return [head, ...excerpt].join('\n');
}

function openBar(row: TimelineRow, attempt: number): TimelineBar | undefined {
  return row.bars.find((b) => b.attempt === attempt && b.outcome === 'running');
}

function openWait(row: TimelineRow): TimelineWait | undefined {
  return row.waits.find((w) => w.end === undefined);
}

function startWait(row: TimelineRow, kind: WaitKind, at: number): void {
  if (!openWait(row)) row.waits.push({ kind, start: at });
}

function endWait(row: TimelineRow, at: number, how: WaitEnd, by: string[], guidance?: string): void {
  const w = openWait(row);
  if (!w) return;
  Object.assign(w, { end: at, how, by }, guidance ? { guidance } : {});
}

function closeBar(d: TimelineDraft, node: string, attempt: number, at: number, bar: Partial<TimelineBar>) {
  const b = openBar(rowOf(d, node), attempt);
  if (b) Object.assign(b, { end: Math.max(at, b.start) }, bar);
}

/** An approval counts towards its wait's `required`; the wait ends once that many distinct people approved. */
function approve(d: TimelineDraft, e: EventOf<'NodeApproved'> | EventOf<'RerunApproved'>, at: number) {
  const row = rowOf(d, e.node);
  const given = d.approvers.get(e.node) ?? { people: new Set<string>(), guidance: [] };
  given.people.add(e.approved_by);
  if (e.guidance) given.guidance.push(`${e.approved_by}: ${e.guidance}`);
  d.approvers.set(e.node, given);
  if (given.people.size < (e.required ?? 1)) return;
  d.approvers.delete(e.node);
  const how = e.type === 'NodeApproved' ? 'approve' : 'approve-rerun';
  endWait(row, at, how, [...given.people], given.guidance.join('\n') || undefined);
}

type Handler<T extends JournalEvent['type']> = (d: TimelineDraft, e: EventOf<T>, at: number) => void;
type Handlers = { [T in JournalEvent['type']]?: Handler<T> };

const HANDLERS: Handlers = {
  NodeDispatched: (d, e, at) => {
    const row = rowOf(d, e.node);
    const cycle = d.cycle.get(e.node);
    row.bars.push({
      attempt: e.attempt,
      start: at,
      end: at,
      outcome: 'running',
      ...(cycle ? { cycle } : {}),
    });
    d.replay.set(e.node, e.replay);
  },
  NodeRecorded: (d, e, at) => {
    if (e.recorded_by) {
      const row = rowOf(d, e.node);
      // A settlement ends the wait it answers; a settled in-flight bar stays as it was drawn.
      closeBar(d, e.node, e.attempt, at, { outcome: 'completed' });
      if (openWait(row)) endWait(row, at, 'settle', [e.recorded_by]);
      else row.waits.push({ kind: 'held', start: at, end: at, how: 'settle', by: [e.recorded_by] });
      return;
    }
    closeBar(d, e.node, e.attempt, at, { outcome: 'completed' });
  },
  NodeFailed: (d, e, at) => {
    const why = failureWhy(e.failures);
    closeBar(d, e.node, e.attempt, at, { outcome: 'failed', ...(why ? { why } : {}) });
  },
  NodeInterrupted: (d, e, at) => {
    closeBar(d, e.node, e.attempt, at, { outcome: 'interrupted' });
    if (d.replay.get(e.node) === 'never') startWait(rowOf(d, e.node), 'held', at);
  },
  NodeReturned: (d, e, at) => closeBar(d, e.node, e.attempt, at, { outcome: 'given-back', why: e.reason }),
  NodeSkipped: (d, e, at) => rowOf(d, e.node).marks.push({ kind: 'skipped', at, text: e.reason }),
  NodeOverdue: (d, e, at) =>
    rowOf(d, e.node).marks.push({
      kind: 'overdue',
      at,
      text: `attempt ${e.attempt} past ${e.bound} ${e.limit} (at ${e.observed})`,
    }),
  NodeEscalated: (d, e, at) => {
    const row = rowOf(d, e.node);
    const budget = e.report.budget !== undefined;
    const why = budget
      ? e.report.budget!.limit.daily_usd !== undefined
        ? 'escalated: the repository is at its daily cost cap'
        : 'escalated: the run is at its budget'
      : e.report.cycles
        ? 'escalated: the loop ran its last cycle'
        : 'escalated: its last allowed attempt failed';
    row.marks.push({ kind: 'escalated', at, text: why });
    startWait(row, budget ? 'budget' : 'escalated', at);
  },
  NodeAwaitingApproval: (d, e, at) => startWait(rowOf(d, e.node), 'gate', at),
  NodeApproved: approve,
  RerunApproved: approve,
  NodeExpanded: (d, e, at) => {
    rowOf(d, e.node).span = { start: at, end: at, joined: false };
  },
  NodeJoined: (d, e, at) => {
    const row = rowOf(d, e.node);
    row.span = { start: row.span?.start ?? at, end: at, joined: true };
    // What the join let through waits for nobody any more.
    for (const t of e.tolerated)
      for (const [n, r] of d.rows) if (n === t || n.startsWith(`${t}/`)) endWait(r, at, 'tolerated', []);
  },
  NodeExpansionFailed: (d, e, at) =>
    rowOf(d, e.node).marks.push({
      kind: 'expansion-failed',
      at,
      text: (e.failures[0] && `${e.failures[0].check}: ${e.failures[0].message}`) || 'for_each failed',
    }),
  NodeCycleStarted: (d, e, at) => {
    d.cycle.set(e.node, e.cycle);
    rowOf(d, e.node).marks.push({ kind: 'cycle', at, text: `cycle ${e.cycle}` });
  },
  RerunFromApproved: (d, e, at) => {
    for (const n of e.nodes) d.cycle.delete(n);
    const by = `rerun from ${e.node} by ${e.approved_by}${e.guidance ? `: ${e.guidance}` : ''}`;
    rowOf(d, e.node).marks.push({ kind: 'rerun-from', at, text: by });
  },
  NodeCarriedOver: (d, e, at) =>
    rowOf(d, e.node).marks.push({
      kind: 'carried-over',
      at,
      text: `${e.state} in the run it was forked from`,
    }),
  RunFailed: (d, e, at) => {
    d.timeline.ended = { status: 'failed', at, reason: e.reason, by: e.by };
    for (const row of d.rows.values()) endWait(row, at, 'fail-run', [e.by]);
  },
  RunCompleted: (d, e, at) => {
    d.timeline.ended = { status: 'completed', at, reason: e.reason, by: e.by };
  },
  GraphChangeAllowed: (d, e, at) =>
    d.timeline.marks.push({ kind: 'graph-change', at, text: `graph change allowed by ${e.by}` }),
};

/** Applies one event to the draft. */
export function timelineStep(d: TimelineDraft, e: JournalEvent, at: number): void {
  const h = HANDLERS[e.type] as Handler<typeof e.type> | undefined;
  h?.(d, e as never, at);
}
