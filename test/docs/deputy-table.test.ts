// docs/RELIABILITY.md's deputy tables are the data the hostile tests run (issues 34 and 46), not a copy kept by
// hand. The attempt-file table is deputyTable() over what each row must come to (hostile-deputy.test.ts asserts
// each row of a run comes to it); the second round's table is deputyTable()'s `outlasting`, one row per attack
// with the test file that proves it (npm run reliability counts each row's tests from the same rows). A row in the
// doc and not in the data fails here, and the other way round; so does a row whose test file does not hold the
// titles its columns are counted by, and a test file that says it is of issue 46 but is no row's.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPUTY_ROWS, deputyTable, expectedOutcome, OUTLASTING } from '../reliability/hostile-deputy.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const DOC = 'docs/RELIABILITY.md';
const doc = readFileSync(join(ROOT, DOC), 'utf8');

/** A Markdown table row's cells (these tables hold no escaped pipe). */
const cells = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

/** The table of `markdown` that starts with the header row of `table` (a generated one), as cells, its separator left out. */
function tableIn(markdown: string, table: string): string[][] {
  const header = cells(table.split('\n')[0]!).join('\0');
  const lines = markdown.split('\n');
  const at = lines.findIndex((l) => l.trim().startsWith('|') && cells(l).join('\0') === header);
  if (at < 0) return [];
  const end = lines.findIndex((l, i) => i > at && !l.trim().startsWith('|'));
  return lines
    .slice(at, end < 0 ? undefined : end)
    .map(cells)
    .filter((_, i) => i !== 1);
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return testFiles(p);
    return p.endsWith('.test.ts') ? [relative(ROOT, p)] : [];
  });
}

const outcomes = DEPUTY_ROWS.map(expectedOutcome);
const tables = deputyTable({ root: outcomes, sudo: outcomes });

describe(`${DOC}'s deputy tables`, () => {
  it('the attempt-file table is deputyTable() over what each row comes to, as root and through sudo', () => {
    const made = tableIn(tables.files, tables.files);
    expect(made).toHaveLength(DEPUTY_ROWS.length + 1);
    expect(tableIn(doc, tables.files)).toEqual(made);
  });

  it("the second round's table is deputyTable()'s, row for row (HOSTILE_DEPUTY_TABLE_OUT writes it)", () => {
    const made = tableIn(tables.outlasting, tables.outlasting);
    expect(made).toHaveLength(OUTLASTING.length + 1);
    expect(tableIn(doc, tables.outlasting)).toEqual(made);
  });

  it.each(OUTLASTING.map((r, i) => [i + 1, r.test, r] as const))(
    'row %i: %s holds the titles its columns are counted by',
    (_i, file, r) => {
      const source = readFileSync(join(ROOT, file), 'utf8');
      const picks = Object.values(r.pick).filter((p) => p !== '');
      expect(picks.length + (r.pick.any === '' ? 1 : 0)).toBeGreaterThan(0);
      for (const p of picks) expect(source, `${file}: "${p}"`).toContain(p);
    },
  );

  it('every test file that says it is of issue 46 is a row of the second round', () => {
    const ofIssue = testFiles(join(ROOT, 'test')).filter((f) =>
      /\(issue 46\)/.test(readFileSync(join(ROOT, f), 'utf8').split('\n')[0]!),
    );
    expect(ofIssue.length).toBeGreaterThan(0);
    const rows = new Set(OUTLASTING.map((r) => r.test));
    expect(ofIssue.filter((f) => !rows.has(f))).toEqual([]);
  });
});
