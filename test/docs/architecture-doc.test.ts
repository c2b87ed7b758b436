// docs/ARCHITECTURE.md is the design: every rule it lists is worded as the describe of a test that exists, and
// every file it names exists, so a reader who follows it lands on the code that decides.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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

  it('has a glossary that gives each overloaded word one meaning', () => {
    const words = DOC.slice(DOC.indexOf('## Words'), DOC.indexOf('## The rules'));
    for (const w of ['dispatch', "a person's command", 'executor', '`approval: before`', 'decision'])
      expect(words.split('\n').some((l) => l.startsWith(`| ${w} `))).toBe(true);
  });
});
