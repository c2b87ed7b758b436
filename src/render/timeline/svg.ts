/**
 * The timeline as SVG made without a browser (issue 38): fixed-size rows and a fixed label column, so no text is
 * measured (labels are cut by characters in a monospace font). Each attempt a bar coloured by its outcome, each
 * wait a pale dashed span, each mark a small diamond; every shape carries a `<title>` (what a hover shows). All
 * journal text is XML-escaped. `timelineSvg` is the one call the pages use.
 */
import type { Journal } from '../../journal/events/events.js';
import type { Timeline, TimelineRow } from './model.js';
import { timelineOf } from './timeline-of.js';
import { barWords, duration, headline, waitWords } from './words.js';

const WIDTH = 960;
const LABEL = 220;
const CHART_X = LABEL + 10;
const CHART_W = WIDTH - CHART_X - 20;
const ROW = 22;
const TOP = 48;
const LABEL_CHARS = 30;

const SVG_COLOURS = {
  completed: '#2da44e',
  failed: '#cf222e',
  interrupted: '#bf8700',
  'given-back': '#8c959f',
  running: '#0969da',
  wait: '#fff8c5',
  span: '#ddf4ff',
  mark: '#8250df',
} as const;

/** Text made safe inside an XML element or a quoted attribute. */
function xml(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function rowShapes(row: TimelineRow, i: number, t: Timeline): string[] {
  const span = Math.max(1, t.end - t.start);
  const x = (at: number) => CHART_X + ((at - t.start) / span) * CHART_W;
  const w = (a: number, b: number) => Math.max(2, x(b) - x(a));
  const y = TOP + i * ROW;
  const f = (n: number) => n.toFixed(1);
  const title = (s: string) => `<title>${xml(`${row.node}: ${s}`)}</title>`;
  const out = [
    `<g class="row" data-node="${xml(row.node)}">`,
    `<text class="label" x="${8 + row.depth * 12}" y="${y + 15}">${xml(cut(row.node, LABEL_CHARS - row.depth * 2))}</text>`,
  ];
  if (row.span)
    out.push(
      `<rect class="span" x="${f(x(row.span.start))}" y="${y + 9}" width="${f(w(row.span.start, row.span.end))}" height="4" fill="${SVG_COLOURS.span}"/>`,
    );
  for (const wt of row.waits) {
    const end = wt.end ?? t.end;
    out.push(
      `<rect class="wait ${wt.kind}" x="${f(x(wt.start))}" y="${y + 4}" width="${f(w(wt.start, end))}" height="${ROW - 8}" fill="${SVG_COLOURS.wait}" stroke="#9a6700" stroke-dasharray="3 2">${title(waitWords(wt, t.end) + (wt.guidance ? `\nguidance: ${wt.guidance}` : ''))}</rect>`,
    );
  }
  for (const b of row.bars)
    out.push(
      `<rect class="bar ${b.outcome}" x="${f(x(b.start))}" y="${y + 3}" width="${f(w(b.start, b.end))}" height="${ROW - 6}" rx="2" fill="${SVG_COLOURS[b.outcome]}">${title(barWords(b) + (b.why ? `\n${b.why}` : ''))}</rect>`,
    );
  for (const m of row.marks) {
    if (m.kind === 'cycle') continue;
    const cx = x(m.at);
    const cy = y + ROW / 2;
    out.push(
      `<path class="mark ${m.kind}" d="M${f(cx)} ${f(cy - 5)} L${f(cx + 5)} ${f(cy)} L${f(cx)} ${f(cy + 5)} L${f(cx - 5)} ${f(cy)} Z" fill="${SVG_COLOURS.mark}">${title(m.text)}</path>`,
    );
  }
  out.push('</g>');
  return out;
}

const LEGEND: [keyof typeof SVG_COLOURS, string][] = [
  ['completed', 'completed'],
  ['failed', 'failed'],
  ['interrupted', 'interrupted'],
  ['given-back', 'given back'],
  ['running', 'running'],
  ['wait', 'waiting for a person'],
  ['mark', 'mark'],
];

/** The axis (start, quarters, end) and the legend, below the rows. */
function frame(t: Timeline, bottom: number): string[] {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((q) => {
    const tx = CHART_X + q * CHART_W;
    return `<line x1="${tx.toFixed(1)}" y1="${TOP - 4}" x2="${tx.toFixed(1)}" y2="${bottom}" stroke="#d0d7de"/><text class="tick" x="${tx.toFixed(1)}" y="${TOP - 8}" text-anchor="middle">${xml(q ? `+${duration(q * (t.end - t.start))}` : '0')}</text>`;
  });
  const legend = legendPlaces().map(
    ({ colour, word, x }) =>
      `<rect x="${x}" y="${bottom + 10}" width="12" height="12" fill="${SVG_COLOURS[colour]}"/><text x="${x + 16}" y="${bottom + 20}">${word}</text>`,
  );
  return [...ticks, `<g class="legend">`, ...legend, '</g>'];
}

/**
 * The widest a character of the font is drawn (monospace at 12 px: 0.6 em; a margin for fonts a little wider):
 * no text is measured, so the legend is laid out from its words' lengths.
 */
export const CHAR_W = 7.5;
const LEGEND_GAP = 18;

/** Where each legend entry starts: one after the other, each as wide as its swatch and its word, from the left. */
export function legendPlaces(): { colour: keyof typeof SVG_COLOURS; word: string; x: number }[] {
  let x = 8;
  return LEGEND.map(([colour, word]) => {
    const at = { colour, word, x };
    x += 16 + Math.ceil(word.length * CHAR_W) + LEGEND_GAP;
    return at;
  });
}

/** The timeline drawn as an SVG document of a fixed width and a height of one row per node. */
export function timelineSvgOf(t: Timeline): string {
  const bottom = TOP + t.rows.length * ROW;
  const height = bottom + 36;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" font-family="ui-monospace, SFMono-Regular, Menlo, monospace" font-size="12">`,
    `<title>${xml(headline(t))}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text class="headline" x="8" y="18" font-weight="bold">${xml(cut(headline(t), 120))}</text>`,
    ...frame(t, bottom),
    ...t.rows.flatMap((r, i) => rowShapes(r, i, t)),
    '</svg>',
    '',
  ].join('\n');
}

/** The run's timeline as an SVG string, from its journal alone (`now`, in ms, for a run not ended). */
export function timelineSvg(journal: Journal, opts: { now?: number } = {}): string {
  return timelineSvgOf(timelineOf(journal, opts));
}
