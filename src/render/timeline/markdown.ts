/** The timeline in Markdown (issue 38), for the job summary and the progress comment. */
import { throughDoor } from '../door.js';
import { timelineGantt } from './mermaid.js';
import type { Timeline } from './model.js';
import { duration, rowNotes } from './words.js';

/** At most this many of the timeline's notes (failures, waits) under its gantt; the rest are counted. */
const TIMELINE_NOTES = 12;

/** The run's timeline (issue 38): a Mermaid gantt, then its notes (made inert), shown or folded. */
export function timelineBlock(t: Timeline, opts: { folded: boolean; secrets?: readonly string[] }): string[] {
  const { gantt, leftOut } = timelineGantt(t);
  const inertMarkdown = (text: string, max?: number) =>
    throughDoor(text, 'line', { secrets: opts.secrets ?? [], ...(max ? { max } : {}) });
  const notes = t.rows.flatMap((r) => rowNotes(r, t.end));
  const items = notes.slice(0, TIMELINE_NOTES).map((n) => {
    const detail = n.detail ? ` — ${inertMarkdown(n.detail.split('\n').join(' · '), 200)}` : '';
    return `- ${inertMarkdown(n.node, 100)} +${duration(n.at - t.start)}: ${inertMarkdown(n.text)}${detail}`;
  });
  if (notes.length > TIMELINE_NOTES) items.push(`- … ${notes.length - TIMELINE_NOTES} more`);
  const body = [
    '```mermaid',
    gantt,
    '```',
    ...(leftOut ? ['', leftOut] : []),
    ...(items.length ? ['', ...items] : []),
  ];
  return opts.folded ? ['<details><summary>Timeline</summary>', '', ...body, '', '</details>'] : body;
}
