// Writes docs/graph-reference.md and docs/journal-reference.md from the zod schemas, and README.md's inputs and
// outputs tables from action.yml (npm run docs).
import { readFileSync, writeFileSync } from 'node:fs';
import { withActionTables } from './docs/action-table.js';
import { formatMarkdown, PAGES, renderPage } from './docs/pages.js';

for (const [path] of PAGES) {
  writeFileSync(new URL(`../${path}`, import.meta.url), renderPage(path));
  console.log(`wrote ${path}`);
}

// The README's inputs and outputs tables, from action.yml.
const readme = new URL('../README.md', import.meta.url);
const actionYml = readFileSync(new URL('../action.yml', import.meta.url), 'utf8');
writeFileSync(readme, formatMarkdown('README.md', withActionTables(readFileSync(readme, 'utf8'), actionYml)));
console.log('wrote the inputs and outputs tables in README.md');
