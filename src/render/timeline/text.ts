/**
 * The timeline as terminal text that fits a width (`interlock status --timeline`): a label column, then one
 * character per slice of time, one letter per outcome, a legend and the notes. Plain ASCII, so it reads the same
 * without colour.
 */
import type { Timeline, TimelineRow } from './model.js';
import { duration, headline, rowNotes } from './words.js';

/** One character per thing drawn, and its place in the legend; later entries are drawn over earlier ones. */
const GLYPHS = [
  ['span', '-', 'for_each or sub-graph under way'],
  ['wait:gate', '?', 'awaiting approval'],
  ['wait:held', '.', 'held or escalated, waiting for a person'],
  ['wait:escalated', '.', ''],
  ['wait:budget', '$', 'stopped at a budget or the daily cap'],
  ['wait:cap', '$', ''],
  ['completed', '#', 'completed'],
  ['given-back', '~', 'given back'],
  ['running', '>', 'running'],
  ['interrupted', '!', 'interrupted'],
  ['failed', 'X', 'failed'],
  ['mark:skipped', 's', 'skipped'],
  ['mark:overdue', 'o', 'overdue'],
  ['mark:expansion-failed', 'X', ''],
  ['mark:carried-over', 'c', 'carried over'],
  ['mark:rerun-from', 'r', 'rerun from here'],
] as const;
const RANK = new Map<string, number>(GLYPHS.map(([k], i) => [k, i]));
const CHAR = new Map<string, string>(GLYPHS.map(([k, c]) => [k, c]));

/** Characters that could move the cursor or colour a terminal are dropped from what the journal says. */
const plain = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

function clip(s: string, width: number): string {
  return s.length > width ? `${s.slice(0, Math.max(0, width - 1))}…` : s;
}

/** The row's cells: each thing drawn over the columns its time covers, higher ranks over lower. */
function cells(row: TimelineRow, t: Timeline, cols: number): string {
  const span = Math.max(1, t.end - t.start);
  const col = (at: number) => Math.min(cols - 1, Math.max(0, Math.floor(((at - t.start) / span) * cols)));
  const out: string[] = new Array(cols).fill(' ');
  const rank: number[] = new Array(cols).fill(-1);
  const paint = (key: string, from: number, to: number) => {
    const r = RANK.get(key) ?? -1;
    for (let c = col(from); c <= col(to); c++)
      if (r >= rank[c]!) {
        rank[c] = r;
        out[c] = CHAR.get(key)!;
      }
  };
  if (row.span) paint('span', row.span.start, row.span.end);
  for (const w of row.waits) paint(`wait:${w.kind}`, w.start, w.end ?? t.end);
  for (const b of row.bars) paint(b.outcome, b.start, b.end);
  for (const m of row.marks) if (RANK.has(`mark:${m.kind}`)) paint(`mark:${m.kind}`, m.at, m.at);
  return out.join('');
}

/** The legend: only the glyphs this picture uses, wrapped at the width. */
function legend(chart: string[], width: number): string[] {
  const used = new Set(chart.join(''));
  const parts = GLYPHS.filter(([, c, word]) => word && used.has(c)).map(([, c, word]) => `${c} ${word}`);
  const lines: string[] = [];
  for (const p of parts) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + 2 + p.length <= width) lines[lines.length - 1] = `${last}  ${p}`;
    else lines.push(clip(`${lines.length ? '        ' : 'legend: '}${p}`, width));
  }
  return lines;
}

/** At most this many notes under the picture; the rest are counted. */
const MAX_NOTES = 20;

/** The timeline as text at most `width` columns wide (at least 40). */
export function timelineText(t: Timeline, width = 80): string {
  const w = Math.max(40, width);
  const label = (r: TimelineRow) => plain(`${'  '.repeat(r.depth)}${r.node}`);
  const labelWidth = Math.min(Math.max(4, ...t.rows.map((r) => label(r).length)), Math.floor(w * 0.3));
  const cols = w - labelWidth - 3;
  const chart = t.rows.map((r) => cells(r, t, cols));
  const lines = t.rows.map((r, i) => `${clip(label(r), labelWidth).padEnd(labelWidth)} |${chart[i]}|`);
  const total = duration(t.end - t.start);
  const axis = `${' '.repeat(labelWidth)} 0${total.padStart(cols + 1)}`;
  const notes = t.rows.flatMap((r) => rowNotes(r, t.end));
  const noteLines = notes.slice(0, MAX_NOTES).flatMap((n) => {
    const at = `+${duration(n.at - t.start)}`;
    const head = clip(plain(`  ${n.node} ${at}: ${n.text}`), w);
    const detail = n.detail ? plain(n.detail.split('\n')[0]!) : '';
    return detail ? [head, clip(`      ${detail}`, w)] : [head];
  });
  if (notes.length > MAX_NOTES) noteLines.push(`  … ${notes.length - MAX_NOTES} more`);
  const runMarks = t.marks.map((m) => clip(plain(`  +${duration(m.at - t.start)}: ${m.text}`), w));
  const key = legend(chart, w);
  return [
    clip(plain(headline(t)), w),
    '',
    ...lines,
    axis,
    ...key,
    ...(noteLines.length || runMarks.length ? ['', ...runMarks, ...noteLines] : []),
  ].join('\n');
}
