/**
 * Which GitHub requests src/ can make, read from the source: every `<client>.rest.<scope>.<method>` on any client
 * (the Action's, the App's installation, a person's own token on the maintainers' page; and
 * `octokit.<scope>.<method>`, `paginate(…rest.<scope>.<method>…)`) resolved to its method and URL template through
 * Octokit's own endpoint table, every `.request('METHOD /url')`, and every plain `fetch(\`${root}/path\`, …)` to a
 * GitHub root (the page's token exchange, setup's manifest conversion), its method read from the call's options
 * (GET when none) and each `${…}` in the path taken as one parameter. A `fetch` of a variable URL is not GitHub's
 * (the CLI's `receive` posts to the App itself). The fault suite must meet each of them in a recorded flow
 * (api-faults.test.ts), and `npm run reliability` reports how many it faulted.
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

/**
 * Requests of a face no recorded flow plays (the fault suite's flows are the Action's, the App's, the page's and
 * setup's), each faulted by a test of its own, named here: `interlock replay` fetching an Action's recording.
 */
export const FAULTED_ELSEWHERE: Record<string, string> = {
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts': 'test/agents/replay-artifact.test.ts',
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}':
    'test/agents/replay-artifact.test.ts',
};

/** A request kind with its parameters unnamed (`{}`), to compare the source's names with the log's. */
export const unnamed = (kind: string): string => kind.replace(/\{[^}]*\}/g, '{}');

/** `METHOD /path` of each plain `fetch` of a template URL rooted at a variable (`${apiUrl}/…`). */
function fetchesIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/fetch\(\s*`\$\{[^}]+\}(\/[^`]*)`\s*(,\s*\{)?/g)) {
    const options = m[2] ? text.slice(m.index + m[0].length, m.index + m[0].length + 400) : '';
    const method = /^\s*method:\s*'([A-Z]+)'/m.exec(options.split(/\n\s*\}\)/)[0] ?? '')?.[1] ?? 'GET';
    const path = m[1]!.replace(/\$\{[^}]*\}/g, '{}').replace(/\?.*$/, '');
    out.push(`${method} ${path}`);
  }
  return out;
}

/** `METHOD /url-template` of every GitHub request named in the given TypeScript sources. Pure but for reading. */
export function requestsInSource(dir = join(ROOT, 'src')): string[] {
  const octokit = new Octokit() as unknown as {
    rest: Record<string, Record<string, { endpoint?: { DEFAULTS: { method: string; url: string } } }>>;
  };
  const kinds = new Set<string>();
  for (const f of tsFiles(dir)) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/(?:\.rest|\boctokit(?!\.rest\b))\.([a-zA-Z]+)\.([a-zA-Z]+)/g)) {
      const d = octokit.rest[m[1]!]?.[m[2]!]?.endpoint?.DEFAULTS;
      if (d) kinds.add(`${d.method} ${d.url}`);
    }
    for (const m of text.matchAll(/\.request\(\s*'([A-Z]+ \/[^']+)'/g)) kinds.add(m[1]!);
    for (const k of fetchesIn(text)) kinds.add(k);
  }
  return [...kinds].sort();
}
