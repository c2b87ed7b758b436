// Writes docs/graph-reference.md and docs/journal-reference.md from the zod schemas, and
// docs/action-reference.md from action.yml (npm run docs).
import { writeFileSync } from 'node:fs';
import { PAGES, renderPage } from './docs/pages.js';

for (const [path] of PAGES) {
  writeFileSync(new URL(`../${path}`, import.meta.url), renderPage(path));
  console.log(`wrote ${path}`);
}
