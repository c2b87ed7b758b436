// The generated documentation pages, as they are written to docs/.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { actionReference } from './action-reference.js';
import { graphReference } from './graph-reference.js';
import { journalReference } from './journal-reference.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIOME = fileURLToPath(new URL('../../node_modules/@biomejs/biome/bin/biome', import.meta.url));

/** The generated pages: path from the repository root, and what writes it. */
export const PAGES: ReadonlyArray<readonly [string, () => string]> = [
  ['docs/graph-reference.md', graphReference],
  ['docs/journal-reference.md', journalReference],
  ['docs/action-reference.md', actionReference],
];

/** Markdown as biome formats it (it aligns tables), so a generated page passes `npm run lint` as written. */
export function formatMarkdown(path: string, text: string): string {
  return execFileSync(process.execPath, [BIOME, 'format', `--stdin-file-path=${path}`], {
    cwd: ROOT,
    input: text,
    encoding: 'utf8',
  });
}

/** A generated page exactly as `npm run docs` writes it. */
export function renderPage(path: string): string {
  const page = PAGES.find(([p]) => p === path);
  if (!page) throw new Error(`${path} is not a generated page`);
  return formatMarkdown(path, page[1]());
}
