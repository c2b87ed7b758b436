// SECURITY.md's inventory (issue 34): every path interlock opens, reads, writes, creates, removes, chowns or
// chmods on a node's behalf is a row, and each row names the test that holds it; this test checks that each named
// test file exists and holds the quoted words of the test's name, so a row cannot point at nothing.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = readFileSync(join(ROOT, 'SECURITY.md'), 'utf8');
const HEADING = "### What interlock does to a node's files (the inventory)";

interface Row {
  path: string;
  tests: Array<{ file: string; words?: string }>;
}

function rows(): Row[] {
  const start = DOC.indexOf(HEADING);
  if (start < 0) return [];
  const section = DOC.slice(start, DOC.indexOf('\n#', start + HEADING.length));
  const out: Row[] = [];
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells[0] === 'path' || /^-+$/.test(cells[0] ?? '')) continue;
    const held = cells[4] ?? '';
    const tests = [...held.matchAll(/`(test\/[^`]+\.ts)`(?: \("([^"]+)"\))?/g)].map((m) => ({
      file: m[1]!,
      ...(m[2] ? { words: m[2] } : {}),
    }));
    out.push({ path: cells[0]!, tests });
  }
  return out;
}

describe("SECURITY.md's inventory of a node's files", () => {
  it('has a row for every file interlock shares with a node', () => {
    const paths = rows()
      .map((r) => r.path)
      .join('\n');
    for (const p of [
      '$INTERLOCK_OUTPUT',
      '$INTERLOCK_USAGE',
      '$INTERLOCK_CONTEXT',
      '$INTERLOCK_OUTPUTS',
      'home',
      'session',
      'journal',
    ])
      expect(paths, p).toContain(p);
  });

  it('names for each row a test that exists, holding the words it quotes', () => {
    const all = rows();
    expect(all.length).toBeGreaterThanOrEqual(10);
    for (const r of all) {
      expect(r.tests.length, `${r.path} names no test`).toBeGreaterThan(0);
      for (const t of r.tests) {
        expect(existsSync(join(ROOT, t.file)), `${r.path}: ${t.file} does not exist`).toBe(true);
        expect(t.words, `${r.path}: ${t.file} quotes no test name`).toBeDefined();
        expect(
          readFileSync(join(ROOT, t.file), 'utf8'),
          `${r.path}: ${t.file} has no "${t.words}"`,
        ).toContain(t.words);
      }
    }
  });
});
