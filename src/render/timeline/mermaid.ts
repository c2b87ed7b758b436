/**
 * The timeline as a Mermaid `gantt` (issue 38), for the job summary and, folded, the progress comment: GitHub
 * draws it. A section per node, a task per attempt and per wait, a milestone per mark. What a task or section
 * says comes from the journal (node names, logins given with `--by`): only letters, digits and a few harmless
 * characters reach Mermaid, so no text ends a task, starts a directive or a comment, or carries markup. Past a
 * bound it summarises: one task per node, then only the first nodes, saying how many it left out.
 */
import { withoutSecrets } from '../door.js';
import type { Timeline, TimelineBar, TimelineRow } from './model.js';
import { attemptName, duration, OUTCOME_WORD, waitWords } from './words.js';

/** The most tasks drawn (GitHub's renderer has a text size limit; a comment, 65,536 characters). */
export const GANTT_MAX_TASKS = 120;
/** The most nodes drawn once the picture is summarised. */
const GANTT_MAX_ROWS = 60;

/** Text as Mermaid may read it in a task or section name: anything else becomes a space. */
export function ganttText(s: string): string {
  // What the journal holds has lost the step's secrets; a token of a known shape goes here (src/render/door.ts).
  const kept = withoutSecrets(s)
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N} ._,()[\]/+='-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return kept.slice(0, 80) || '-';
}

const TAG: Record<TimelineBar['outcome'], string> = {
  completed: 'done, ',
  failed: 'crit, ',
  interrupted: 'crit, active, ',
  'given-back': '',
  running: 'active, ',
};

/** A task: a name, its tags, and its start and end in milliseconds (`dateFormat x`); never shorter than 1 ms. */
function task(name: string, tags: string, start: number, end: number): string {
  return `    ${ganttText(name)} :${tags}${start}, ${Math.max(end, start + 1)}`;
}

function rowTasks(row: TimelineRow, t: Timeline): string[] {
  const tasks: string[] = [];
  for (const w of row.waits) tasks.push(task(waitWords(w, t.end), '', w.start, w.end ?? t.end));
  for (const b of row.bars)
    tasks.push(task(`${attemptName(b)} ${OUTCOME_WORD[b.outcome]}`, TAG[b.outcome], b.start, b.end));
  for (const m of row.marks)
    if (m.kind === 'skipped' || m.kind === 'overdue' || m.kind === 'expansion-failed')
      tasks.push(
        `    ${ganttText(m.kind === 'overdue' ? `overdue: ${m.text}` : m.kind)} :milestone, ${m.at}, 0ms`,
      );
  return tasks;
}

/** One task for a whole node: from its first attempt or wait to its last, named by what ended it. */
function summaryTask(row: TimelineRow, t: Timeline): string[] {
  const times = [
    ...row.bars.flatMap((b) => [b.start, b.end]),
    ...row.waits.flatMap((w) => [w.start, w.end ?? t.end]),
  ];
  if (!times.length) return [];
  const last = row.bars[row.bars.length - 1];
  const waited = row.waits.reduce((s, w) => s + ((w.end ?? t.end) - w.start), 0);
  const name = `${row.bars.length} attempts${last ? `, last ${OUTCOME_WORD[last.outcome]}` : ''}${waited ? `, waited ${duration(waited)}` : ''}`;
  return [task(name, last ? TAG[last.outcome] : '', Math.min(...times), Math.max(...times))];
}

/** The gantt's lines, and a sentence for what it left out (empty when it drew everything). */
export function timelineGantt(t: Timeline): { gantt: string; leftOut: string } {
  const full = t.rows.map((r) => rowTasks(r, t));
  const count = full.reduce((s, x) => s + x.length, 0);
  const summarised = count > GANTT_MAX_TASKS;
  const rows = summarised ? t.rows.slice(0, GANTT_MAX_ROWS) : t.rows;
  const lines = [
    'gantt',
    `    title ${ganttText(`run ${t.run_id}, ${duration(t.end - t.start)}`)}`,
    '    dateFormat x',
    `    axisFormat ${t.end - t.start > 3_600_000 ? '%H:%M' : '%H:%M:%S'}`,
  ];
  rows.forEach((r, i) => {
    const tasks = summarised ? summaryTask(r, t) : full[i]!;
    if (tasks.length) lines.push(`    section ${ganttText(`${'- '.repeat(r.depth)}${r.node}`)}`, ...tasks);
  });
  const hidden = t.rows.length - rows.length;
  const leftOut = summarised
    ? `${count} bars are more than a diagram shows well: one bar per node${hidden ? `, and ${hidden} more nodes not drawn` : ''}.`
    : '';
  return { gantt: lines.join('\n'), leftOut };
}
