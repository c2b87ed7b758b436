// docs/ARCHITECTURE.md is the design: every rule it lists is worded as the describe of a test that exists, and
// every file it names exists, so a reader who follows it lands on the code that decides.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EventSchema } from '../../src/journal/events/events.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');

/** The rows of each table under "## The rules", with the test file its heading names. */
function ruleRows(): Array<{ describe: string; decidedIn: string; testFile: string }> {
  const section = DOC.slice(
    DOC.indexOf('## The rules'),
    DOC.indexOf('\n## ', DOC.indexOf('## The rules') + 1),
  );
  const rows: Array<{ describe: string; decidedIn: string; testFile: string }> = [];
  let testFile = '';
  for (const line of section.split('\n')) {
    const heading = /^### .*\(`(test\/[^`]+)`/.exec(line);
    if (heading) testFile = heading[1]!;
    if (!line.startsWith('|')) continue;
    // The formatter pads the cells: split on the bars and trim.
    const [first, second] = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (!first || !second || first === "rule (its test's describe)" || /^-+$/.test(first)) continue;
    rows.push({ describe: first, decidedIn: second, testFile });
  }
  return rows;
}

describe('docs/ARCHITECTURE.md', () => {
  it('lists the rules, each with the file that decides it', () => {
    const rows = ruleRows();
    expect(rows.length).toBeGreaterThanOrEqual(20);
    for (const r of rows) expect(r.decidedIn, r.describe).toMatch(/`src\/[^`]+\.ts`/);
  });

  it("words each rule as its test's describe, in the test file it names", () => {
    for (const r of ruleRows()) {
      // A row may name its own test file ("test in `test/...`"); else the heading's.
      const own = /test in `(test\/[^`]+)`/.exec(r.decidedIn)?.[1];
      const text = readFileSync(join(ROOT, own ?? r.testFile), 'utf8');
      const quoted = [`'${r.describe}'`, `"${r.describe}"`, `\`${r.describe}\``];
      expect(
        quoted.some((q) => text.includes(`describe(${q}`)),
        `${own ?? r.testFile} has no describe(${quoted[0]})`,
      ).toBe(true);
    }
  });

  it('names, for each rule, a function the deciding file defines', () => {
    for (const r of ruleRows()) {
      // "`src/x.ts` (`name`…": the name in the parenthesis is defined in the file before it.
      const m = /^`(src\/[^`]+)` \(`(\w+)`/.exec(r.decidedIn);
      if (!m) continue;
      const text = readFileSync(join(ROOT, m[1]!), 'utf8');
      expect(text, `${m[1]} defines ${m[2]}`).toMatch(new RegExp(`(function|const|let) ${m[2]}\\b`));
    }
  });

  it('names only files that exist', () => {
    const paths = [...DOC.matchAll(/`((?:src|test)\/[\w./-]+)`/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('names every journal event the format defines (public surface)', () => {
    const types = EventSchema().options.map((o) => o.shape.type.value);
    expect(types.length).toBeGreaterThanOrEqual(22);
    expect(types.filter((t) => !DOC.includes(`\`${t}\``))).toEqual([]);
  });

  it('has a glossary that gives each overloaded word one meaning', () => {
    const words = DOC.slice(DOC.indexOf('## Words'), DOC.indexOf('## The rules'));
    for (const w of ['dispatch', "a person's command", 'executor', '`approval: before`', 'decision'])
      expect(words.split('\n').some((l) => l.startsWith(`| ${w} `))).toBe(true);
  });
});

/** The layer boxes of the diagram under "## Layers": `runner["runner/: ... effects/, attempt/"]` -> label. */
function diagramBoxes(): Map<string, string> {
  const diagram = DOC.slice(DOC.indexOf('```mermaid', DOC.indexOf('## Layers')));
  const body = diagram.slice(0, diagram.indexOf('```', 3));
  return new Map([...body.matchAll(/\b([a-z-]+)\["\1\/([^"]*)"\]/g)].map((m) => [m[1]!, m[2]!]));
}

const folders = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

describe("docs/ARCHITECTURE.md's diagram", () => {
  it('draws every layer of src/, each with exactly the folders it has', () => {
    const boxes = diagramBoxes();
    const drift: string[] = [];
    for (const layer of folders('src')) {
      const label = boxes.get(layer);
      if (label === undefined) {
        drift.push(`src/${layer}/ has no box ${layer}["${layer}/..."]`);
        continue;
      }
      const drawn = new Set([...label.matchAll(/(?<![\w./])([a-z-]+)\//g)].map((m) => m[1]!));
      const there = new Set(folders(join('src', layer)));
      for (const f of there) if (!drawn.has(f)) drift.push(`${layer}'s box does not name ${f}/`);
      for (const f of drawn)
        if (!there.has(f)) drift.push(`${layer}'s box names ${f}/, which src/${layer}/ lacks`);
    }
    for (const layer of boxes.keys())
      if (!existsSync(join(ROOT, 'src', layer))) drift.push(`the box ${layer} names no folder of src/`);
    expect(drift).toEqual([]);
  });
});
