// Figures the README and the docs quote are the ones the measuring pages hold: docs/RELIABILITY.md (written by
// `npm run reliability`) and docs/BENCHMARKS.md (by `npm run bench`). When a run rewrites a page, the quotes
// must follow, or this fails naming the figure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const num = (s: string) => Number(s.replace(/,/g, ''));

/** The value cell of the measuring page's table row whose figure cell starts with `figure`. */
function row(page: string, figure: string): string {
  const line = page.split('\n').find((l) => {
    const cells = l.split('|').map((c) => c.trim());
    return cells.some((c) => c.startsWith(figure));
  });
  if (!line) throw new Error(`no row "${figure}" in the measuring page`);
  const cells = line.split('|').map((c) => c.trim());
  const at = cells.findIndex((c) => c.startsWith(figure));
  return cells[at + 1]!;
}

/** The first match of `re` in `text`, or a failure naming what the docs should say. */
function quoted(text: string, re: RegExp, what: string): RegExpExecArray {
  const m = re.exec(text.replace(/\s+/g, ' '));
  if (!m) throw new Error(`${what} is not quoted where it was (${re})`);
  return m;
}

const reliability = read('docs/RELIABILITY.md');
const benchmarks = read('docs/BENCHMARKS.md');

describe('figures quoted in the docs come from the pages that measure them', () => {
  it("README: crash scenarios and boundaries are docs/RELIABILITY.md's", () => {
    const m = quoted(
      read('README.md'),
      /([\d,]+) crash scenarios \(a real SIGKILL at each of (\d+) boundaries\)/,
      'the crash matrix',
    );
    expect(num(m[1]!), 'crash scenarios').toBe(num(row(reliability, 'distinct scenarios run')));
    expect(num(m[2]!), 'boundaries').toBe(num(row(reliability, 'boundaries')));
  });

  it("README: requests per node step and the fold's time are docs/BENCHMARKS.md's", () => {
    const readme = read('README.md');
    const steps = quoted(
      readme,
      /a node step costs (\d+) API requests on the git store/,
      'requests per step',
    );
    expect(num(steps[1]!)).toBe(num(row(benchmarks, 'git store, a later step, no GitHub evidence check')));
    const fold = quoted(readme, /folding 100,000 events takes about (\d+) ms/, "the fold's time");
    const measured = Number(
      benchmarks
        .split('\n')
        .find((l) => l.startsWith('| fold 100,000 events'))!
        .split('|')[3],
    );
    // "about": within a quarter of the measured figure.
    expect(
      Math.abs(num(fold[1]!) - measured) / measured,
      `about ${fold[1]} ms, measured ${measured} ms`,
    ).toBeLessThanOrEqual(0.25);
  });

  it("docs/DEPLOY.md: the App's memory at 20 repositories, 200 runs and 100 sessions is docs/BENCHMARKS.md's", () => {
    const line = benchmarks.split('\n').find((l) => /^\| 20 +\| 200 +\| 100 +\|/.test(l));
    if (!line)
      throw new Error('no memory row for 20 repositories, 200 runs, 100 sessions in docs/BENCHMARKS.md');
    const [started, , after, peak] = line
      .split('|')
      .slice(4, 8)
      .map((c) => num(c.trim()));
    const m = quoted(
      read('docs/DEPLOY.md'),
      /one process is (\d+) MB once started, and with 20 repositories, 200 runs and 100 people who each loaded the page \(each a writer in every repository\) it held (\d+) MB \(peak (\d+) MB\)/,
      "the App's memory",
    );
    expect([num(m[1]!), num(m[2]!), num(m[3]!)]).toEqual([started, after, peak]);
  });

  it("docs/effects.md: the effects' crash matrix is docs/RELIABILITY.md's", () => {
    const m = quoted(
      read('docs/effects.md'),
      /(\d+) scenarios, (\d+) of them killed there/,
      "the effects' matrix",
    );
    const value = row(reliability, "at an effect's requests");
    const measured = /(\d+) kills in (\d+) scenarios/.exec(value)!;
    expect([num(m[1]!), num(m[2]!)]).toEqual([num(measured[2]!), num(measured[1]!)]);
  });
});

describe('warnings the README quotes are the ones interlock prints', () => {
  it("the demo's isolation warning is the one src/os/node-user/node-user.ts says where it cannot switch users", async () => {
    const { CANNOT_SWITCH } = await import('../../src/os/node-user/node-user.js');
    const readme = read('README.md').replace(/\s+/g, ' ');
    expect(readme).toContain(`\`isolation: auto: ${CANNOT_SWITCH}, …\``);
    expect(readme).not.toMatch(/warns? "isolation: none"/);
  });
});
