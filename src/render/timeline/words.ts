/** The timeline in words, shared by its faces (text, Mermaid, SVG): durations, outcomes, waits, notes. */
import type { BarOutcome, Timeline, TimelineBar, TimelineRow, TimelineWait, WaitKind } from './model.js';

/** `120ms`, `4.2s`, `3.5m`, `2.1h`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)}m`;
  return `${(ms / 3_600_000).toFixed(1)}h`;
}

export const OUTCOME_WORD: Record<BarOutcome, string> = {
  completed: 'completed',
  failed: 'failed',
  interrupted: 'interrupted',
  'given-back': 'given back',
  running: 'running',
};

const WAIT_WORD: Record<WaitKind, string> = {
  gate: 'awaiting approval',
  held: 'held',
  escalated: 'escalated',
  budget: 'at the run budget',
  cap: 'at the daily cost cap',
};

/** `attempt 2 (cycle 3)`. */
export function attemptName(b: TimelineBar): string {
  return `attempt ${b.attempt}${b.cycle ? ` (cycle ${b.cycle})` : ''}`;
}

/** `attempt 2 failed, 1.2s`. */
export function barWords(b: TimelineBar): string {
  return `${attemptName(b)} ${OUTCOME_WORD[b.outcome]}, ${duration(b.end - b.start)}`;
}

/** `escalated 4.1s, approve-rerun by bob, carol` or `awaiting approval 2.0s, still waiting`. */
export function waitWords(w: TimelineWait, end: number): string {
  const took = duration((w.end ?? end) - w.start);
  const how =
    w.how === 'tolerated'
      ? 'let through by the join (tolerated_failures)'
      : w.how
        ? `${w.how} by ${(w.by ?? []).join(', ')}`
        : 'still waiting';
  return `${WAIT_WORD[w.kind]} ${took}, ${how}`;
}

/** The run's headline: `run gate (graph gate): completed, 6.4s`. */
export function headline(t: Timeline): string {
  const state = !t.ended
    ? 'not ended'
    : t.ended.status === 'failed'
      ? `failed by ${t.ended.by} (${t.ended.reason})`
      : 'completed';
  return `run ${t.run_id} (graph ${t.graph}): ${state}, ${duration(t.end - t.start)}`;
}

/** A note under the picture: what a failed, interrupted or given-back attempt said, and each wait. */
interface TimelineNote {
  node: string;
  at: number;
  text: string;
  /** Untrusted detail (an excerpt, guidance): shown only where it is made inert. */
  detail?: string;
}

/** The notes of a row, in time order: the attempts that did not complete, the waits, the marks. */
export function rowNotes(row: TimelineRow, end: number): TimelineNote[] {
  const notes: TimelineNote[] = [];
  for (const b of row.bars)
    if (b.outcome !== 'completed')
      notes.push({ node: row.node, at: b.start, text: barWords(b), ...(b.why ? { detail: b.why } : {}) });
  for (const w of row.waits)
    notes.push({
      node: row.node,
      at: w.start,
      text: waitWords(w, end),
      ...(w.guidance ? { detail: `guidance: ${w.guidance}` } : {}),
    });
  for (const m of row.marks)
    if (m.kind !== 'cycle' && m.kind !== 'escalated') notes.push({ node: row.node, at: m.at, text: m.text });
  return notes.sort((a, b) => a.at - b.at);
}
