// The timeline of each golden journal (test/fixtures/journals/), drawn on every face, against the files under
// test/fixtures/timelines/<journal>/: terminal text at 80 and 120 columns, the Mermaid gantt (which Mermaid's own
// parser must read into exactly the tasks drawn) and the SVG (one row group per node, one bar per attempt).
// A change to a picture is reviewed as a diff of these files (`npx vitest run -u` rewrites them).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJournal } from '../../src/journal/parse.js';
import { ganttText, timelineGantt } from '../../src/render/timeline/mermaid.js';
import { timelineSvgOf } from '../../src/render/timeline/svg.js';
import { timelineText } from '../../src/render/timeline/text.js';
import { timelineOf } from '../../src/render/timeline/timeline-of.js';
import { ganttTasks, svgShape } from './timeline-support.js';

const dir = new URL('../fixtures/journals/', import.meta.url).pathname;
const out = new URL('../fixtures/timelines/', import.meta.url).pathname;
const goldens = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

const timeline = (name: string) => {
  const file = join(dir, name, 'journal.json');
  return timelineOf(parseJournal(readFileSync(file, 'utf8'), file));
};

describe('the timeline of each golden journal', () => {
  for (const name of goldens) {
    it(`${name}: terminal text at 80 and 120 columns fits the width`, async () => {
      const t = timeline(name);
      for (const width of [80, 120]) {
        const text = timelineText(t, width);
        for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(width);
        expect(text.split('\n').filter((l) => l.includes(' |')).length).toBe(t.rows.length);
        await expect(`${text}\n`).toMatchFileSnapshot(join(out, name, `text-${width}.txt`));
      }
    });

    it(`${name}: the gantt is read by Mermaid into one task per attempt, wait and mark drawn`, async () => {
      const t = timeline(name);
      const { gantt, leftOut } = timelineGantt(t);
      expect(leftOut).toBe('');
      const tasks = await ganttTasks(gantt);
      const drawn = gantt.split('\n').filter((l) => /^ {4}[^ ].* :/.test(l) && !l.includes('section'));
      expect(tasks.length).toBe(drawn.length);
      const bars = t.rows.reduce((s, r) => s + r.bars.length + r.waits.length, 0);
      expect(tasks.filter((x) => !x.milestone).length).toBe(bars);
      const marked = (r: (typeof t.rows)[number]) =>
        r.marks.some((m) => ['skipped', 'overdue', 'expansion-failed'].includes(m.kind));
      const sections = t.rows
        .filter((r) => r.bars.length + r.waits.length > 0 || marked(r))
        .map((r) => ganttText(`${'- '.repeat(r.depth)}${r.node}`));
      expect([...new Set(tasks.map((x) => x.section))]).toEqual(sections);
      await expect(`${gantt}\n`).toMatchFileSnapshot(join(out, name, 'gantt.mmd'));
    });

    it(`${name}: the SVG has a row group per node and a bar per attempt, and is well formed`, async () => {
      const t = timeline(name);
      const svg = timelineSvgOf(t);
      const shape = svgShape(svg);
      expect(shape.balanced).toBe(true);
      expect(shape.rows).toEqual(t.rows.map((r) => r.node));
      expect(shape.bars).toBe(t.rows.reduce((s, r) => s + r.bars.length, 0));
      expect(shape.waits).toBe(t.rows.reduce((s, r) => s + r.waits.length, 0));
      await expect(svg).toMatchFileSnapshot(join(out, name, 'timeline.svg'));
    });
  }
});
