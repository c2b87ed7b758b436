// Writes docs/graph-reference.md and docs/journal-reference.md from the zod schemas (npm run docs).
import { writeFileSync } from 'node:fs';
import { graphReference } from './docs/graph-reference.js';
import { journalReference } from './docs/journal-reference.js';

const files: Array<[string, () => string]> = [
  ['docs/graph-reference.md', graphReference],
  ['docs/journal-reference.md', journalReference],
];
for (const [path, write] of files) {
  writeFileSync(new URL(`../${path}`, import.meta.url), write());
  console.log(`wrote ${path}`);
}
