// One section of docs/BENCHMARKS.md measured alone: it replaces that section in place (from its heading, its first
// line, to the next heading) or is appended, and the page is formatted by the repository's formatter, which owns
// Markdown tables, as bench/run.ts does for the whole page.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BENCHMARKS_MD = fileURLToPath(new URL('../docs/BENCHMARKS.md', import.meta.url));

export function writeSection(lines: string[], file = BENCHMARKS_MD): void {
  const heading = lines[0]!;
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`${heading}\n`);
  const section = `${lines.join('\n').trimEnd()}\n`;
  if (start < 0) writeFileSync(file, `${text.trimEnd()}\n\n${section}`);
  else {
    const next = text.indexOf('\n## ', start + heading.length);
    writeFileSync(file, text.slice(0, start) + section + (next < 0 ? '' : text.slice(next)));
  }
  formatPage(file);
}

export function formatPage(file: string): void {
  const biome = fileURLToPath(new URL('../node_modules/@biomejs/biome/bin/biome', import.meta.url));
  execFileSync(process.execPath, [biome, 'format', '--write', file], { stdio: 'ignore' });
}
