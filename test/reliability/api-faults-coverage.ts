/**
 * Which REST requests src/ can make, read from the source: every `octokit.rest.<scope>.<method>` (and
 * `octokit.<scope>.<method>`, `paginate(…rest.<scope>.<method>…)`) resolved to its method and URL template through
 * Octokit's own endpoint table, and every `.request('METHOD /url')`. The fault suite must meet each of them in a
 * recorded flow (api-faults.test.ts), and `npm run reliability` reports how many it faulted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Octokit } from '@octokit/rest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `METHOD /url-template` of every REST request named in the given TypeScript sources. Pure but for reading. */
export function requestsInSource(dir = join(ROOT, 'src')): string[] {
  const octokit = new Octokit() as unknown as {
    rest: Record<string, Record<string, { endpoint?: { DEFAULTS: { method: string; url: string } } }>>;
  };
  const kinds = new Set<string>();
  for (const f of tsFiles(dir)) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/octokit(?:\.rest)?\.([a-zA-Z]+)\.([a-zA-Z]+)/g)) {
      const d = octokit.rest[m[1]!]?.[m[2]!]?.endpoint?.DEFAULTS;
      if (d) kinds.add(`${d.method} ${d.url}`);
    }
    for (const m of text.matchAll(/\.request\(\s*'([A-Z]+ \/[^']+)'/g)) kinds.add(m[1]!);
  }
  return [...kinds].sort();
}
