// The timeline model (issue 38): what each kind of event draws, read from real golden journals and from small
// journals written here; hostile text made inert on every face; the gantt summarised past its bound.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/events/events.js';
import { parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { timelineBlock } from '../../src/render/timeline/markdown.js';
import { GANTT_MAX_TASKS, timelineGantt } from '../../src/render/timeline/mermaid.js';
import { CHAR_W, legendPlaces, timelineSvg } from '../../src/render/timeline/svg.js';
import { timelineText } from '../../src/render/timeline/text.js';
import { timelineOf } from '../../src/render/timeline/timeline-of.js';
import { ganttTasks, svgShape } from './timeline-support.js';

const dir = new URL('../fixtures/journals/', import.meta.url).pathname;
const golden = (name: string) => {
  const file = join(dir, name, 'journal.json');
  return parseJournal(readFileSync(file, 'utf8'), file);
};
const row = (name: string, node: string) => timelineOf(golden(name)).rows.find((r) => r.node === node)!;

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const RUNNER = { kind: 'local' as const, host: 'vm', pid: 1 };
/** A journal from events given as [seconds after the start, event without seq and at]. */
function journal(events: [number, Record<string, unknown>][]): Journal {
  const graph = { name: 'g', hash: 'sha256:x', path: 'g.yml' };
  const all: [number, Record<string, unknown>][] = [
    [0, { type: 'RunStarted', graph, intent: 'cli', subject: 'local', runner: RUNNER }],
    ...events,
  ];
  const text = JSON.stringify({
    format: 'interlock.journal/1',
    run_id: 'g',
    graph,
    events: all.map(([s, e], i) => ({ seq: i + 1, at: new Date(T0 + s * 1000).toISOString(), ...e })),
  });
  return parseJournal(text, 'test');
}
const dispatched = (node: string, attempt: number, replay = 'safe') => ({
  type: 'NodeDispatched',
  node,
  attempt,
  replay,
  approach: 'default',
  runner: RUNNER,
});
const failed = (node: string, attempt: number, message: string, excerpt?: string) => ({
  type: 'NodeFailed',
  node,
  attempt,
  failures: [{ check: 'exit', message, ...(excerpt ? { excerpt } : {}) }],
  usage: { wall_ms: 1 },
});

describe('the timeline model: a row per node, a bar per attempt, waits with who ended them', () => {
  it('a gate is a wait ended by the approvers it needed, with their guidance', () => {
    const publish = row('gate', 'publish');
    expect(publish.waits.map((w) => [w.kind, w.how, w.by])).toEqual([
      ['gate', 'approve', ['bob', 'carol']],
      ['escalated', 'approve-rerun', ['bob', 'carol']],
    ]);
    expect(publish.waits[0]!.guidance).toContain('bob: Publish to the staging registry first.');
    expect(publish.bars.map((b) => b.outcome)).toEqual(['failed', 'failed', 'completed']);
  });

  it('an interrupted never node is held until a person settles it; a safe one is not held', () => {
    const deploy = row('cli', 'deploy');
    expect(deploy.bars.map((b) => b.outcome)).toEqual(['interrupted']);
    expect(deploy.waits.map((w) => [w.kind, w.how, w.by])).toEqual([['held', 'settle', ['bob']]]);
    const docs = row('action-demo', 'docs');
    expect(docs.bars.map((b) => b.outcome)).toEqual(['interrupted', 'completed']);
    expect(docs.waits).toEqual([]);
  });

  it("a chain's node given back, a loop's cycles in one row, an overdue mark, a tolerated instance", () => {
    expect(row('serialized', 'ship').bars[0]).toMatchObject({ outcome: 'given-back' });
    expect(row('loops', 'review').bars.map((b) => b.cycle ?? 1)).toEqual([1, 2, 2, 1]);
    expect(row('soft', 'slow').marks.map((m) => m.kind)).toEqual(['overdue']);
    expect(row('for-each', 'work[b]').waits[0]).toMatchObject({ kind: 'escalated', how: 'tolerated' });
    const t = timelineOf(golden('subgraphs'));
    expect(t.rows.map((r) => [r.node, r.depth]).slice(0, 5)).toEqual([
      ['plan', 0],
      ['work', 0],
      ['work[a]', 1],
      ['work[a]/build', 2],
      ['work[a]/check', 2],
    ]);
  });

  it('an attempt still in flight runs to now; a failure keeps its first line and excerpt', () => {
    const j = journal([
      [1, dispatched('build', 1)],
      [3, failed('build', 1, 'exited 2', 'npm ERR! missing script: test\nmore')],
      [4, dispatched('build', 2)],
    ]);
    const t = timelineOf(j, { now: T0 + 60_000 });
    const [first, second] = t.rows[0]!.bars;
    expect(first).toMatchObject({
      outcome: 'failed',
      why: 'exit: exited 2\nnpm ERR! missing script: test\nmore',
    });
    expect(second).toMatchObject({ outcome: 'running', start: T0 + 4000, end: T0 + 60_000 });
    expect(timelineText(t, 80)).toContain('> running');
  });
});

describe('hostile text in a journal is inert on every face', () => {
  const evil =
    'mallory\n    section pwned\n    x :crit, 0, 1\n%%{init: {"theme":"dark"}}%% <script>alert(1)</script> @alice';
  const j = journal([
    [1, dispatched('deploy', 1, 'never')],
    [2, failed('deploy', 1, '</title></rect><script>alert(1)</script>', '\u001b[2J</details> @everyone')],
    [3, dispatched('deploy', 2, 'never')],
    [4, { type: 'NodeInterrupted', node: 'deploy', attempt: 2, observed_usage: { wall_ms: 1 } }],
    [9, { type: 'RunFailed', reason: evil, by: evil }],
  ]);

  it('the gantt has only the sections and tasks interlock drew', async () => {
    const { gantt } = timelineGantt(timelineOf(j));
    const tasks = await ganttTasks(gantt);
    expect([...new Set(tasks.map((t) => t.section))]).toEqual(['deploy']);
    expect(tasks.map((t) => t.task)).toEqual([
      'held 5.0s, fail-run by mallory section pwned x crit, 0, 1 init theme dark script',
      'attempt 1 failed',
      'attempt 2 interrupted',
    ]);
    expect(gantt.split('\n').slice(4).join('\n')).not.toMatch(/[%<>@#;{}]/);
  });

  it('the SVG escapes it and stays well formed', () => {
    const svg = timelineSvg(j);
    expect(svgShape(svg)).toMatchObject({ balanced: true, rows: ['deploy'], bars: 2, waits: 1 });
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;/title&gt;&lt;/rect&gt;&lt;script&gt;');
  });

  it('the folded Markdown block: one details, the gantt, notes with no tag, mention or link of theirs', () => {
    const md = timelineBlock(timelineOf(j), { folded: true }).join('\n');
    expect(md.match(/<\/?details>/g)).toEqual(['<details>', '</details>']);
    expect(md).toContain('```mermaid\ngantt\n');
    expect(md).not.toMatch(/<script|@everyone|@alice/);
    expect(md).toContain('&lt;/details&gt; @\u200beveryone');
  });

  it('the terminal text carries no control characters', () => {
    const text = timelineText(timelineOf(j), 120);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(text).toContain('fail-run by mallory');
  });
});

describe('the gantt stays within its bound', () => {
  it('past GANTT_MAX_TASKS it draws one task per node and says so', async () => {
    const events: [number, Record<string, unknown>][] = [];
    for (let n = 0; n < 80; n++)
      for (let a = 1; a <= 2; a++) {
        events.push([n * 10 + a * 2, dispatched(`node-${n}`, a)]);
        events.push([n * 10 + a * 2 + 1, failed(`node-${n}`, a, 'exited 1')]);
      }
    const t = timelineOf(journal(events));
    const { gantt, leftOut } = timelineGantt(t);
    const tasks = await ganttTasks(gantt);
    expect(tasks.length).toBeLessThanOrEqual(GANTT_MAX_TASKS);
    expect(tasks[0]!.task).toBe('2 attempts, last failed');
    expect(leftOut).toBe(
      '160 bars are more than a diagram shows well: one bar per node, and 20 more nodes not drawn.',
    );
    expect(gantt.length).toBeLessThan(20_000);
    expect(serializeJournal(journal(events)).length).toBeGreaterThan(gantt.length);
  });
});

describe("the SVG timeline's legend", () => {
  it('draws no entry over the next one and ends inside the picture, whatever the words measure', () => {
    const places = legendPlaces();
    expect(places.length).toBeGreaterThan(5);
    // The picture's own width, read from it.
    const svg = timelineSvg(journal([]));
    const width = Number(/<svg [^>]*\bwidth="(\d+)"/.exec(svg)?.[1]);
    expect(width).toBeGreaterThan(500);
    for (let i = 0; i < places.length; i++) {
      const end = places[i]!.x + 16 + places[i]!.word.length * CHAR_W;
      const next = places[i + 1]?.x ?? width;
      expect(end, `"${places[i]!.word}" runs into what follows it`).toBeLessThanOrEqual(next - 4);
    }
    // The picture draws the places computed here.
    for (const p of places) expect(svg).toContain(`<text x="${p.x + 16}"`);
  });
});
