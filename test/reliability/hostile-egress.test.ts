// A hostile node with `network: { allow: [127.0.0.2] }` through the bundled action under the default isolation,
// as root and through passwordless sudo (issue 27): every try to reach another host, or to keep a way out past the
// attempt (test/reliability/hostile-egress.ts), must have no effect. Needs root and `npm run build`.
// HOSTILE_EGRESS_TABLE_OUT=<file> writes the table for docs/RELIABILITY.md.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { DIST, makeWorkspace, runStep } from '../support/action-process.js';
import { startEgressHost } from '../support/egress-hosts.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';
import { EGRESS_ATTEMPTS, type EgressObserved, egressTable } from './hostile-egress.js';
import type { Outcome } from './hostile-node.js';

const GRAPH_FILE = '.github/interlock/hostile-egress.yml';
const SCRIPT = readFileSync(new URL('./hostile-egress.mjs', import.meta.url), 'utf8');
const outcomes: { root: Outcome[]; sudo: Outcome[] } = { root: [], sudo: [] };

async function observe(sudo: boolean): Promise<EgressObserved> {
  const granted = await startEgressHost('127.0.0.2');
  const other = await startEgressHost('127.0.0.3');
  const v6 = await startEgressHost('::1');
  const server: GitHubServer = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  try {
    server.state.repo(FULL).addIssue({ number: 31, title: 'Exfiltrate', labels: ['agent:egress'] });
    const graph = `interlock: 1
name: hostile-egress
nodes:
  - id: agent
    network: { allow: [127.0.0.2] }
    env: { GRANTED_URL: "${granted.url}", OTHER_URL: "${other.url}", V6_PORT: "${v6.port}" }
    run: node hostile-egress.mjs
`;
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:egress', GRAPH_FILE),
      [GRAPH_FILE]: graph,
      'hostile-egress.mjs': SCRIPT,
    });
    const reportDir = mkdtempSync(join(tmpdir(), 'interlock-hostile-egress-'));
    chmodSync(reportDir, 0o777);
    const reportFile = join(reportDir, 'report.jsonl');
    let as = {};
    if (sudo) {
      const user = sudoRunner();
      giveTo(ws, user);
      as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
    }
    const step = await runStep(
      issueStep(server, ws, 31, 'agent:egress', { env: { HOSTILE_REPORT: reportFile }, ...as }),
    );
    const stepEnded = Date.now();
    expect(step.code, step.log).toBe(0);
    // Long enough for the held tunnel's writer (every 100 ms) to show it still got through, if it did.
    await new Promise((r) => setTimeout(r, 1500));
    const report = new Map<string, string>();
    if (existsSync(reportFile))
      for (const line of readFileSync(reportFile, 'utf8').split('\n').filter(Boolean)) {
        const { row, found } = JSON.parse(line) as { row: string; found: string };
        report.set(row, found);
      }
    return { report, granted, other, v6, stepEnded };
  } finally {
    await Promise.all([server.close(), granted.close(), other.close(), v6.close()]);
  }
}

const setups = [
  { name: 'as root', key: 'root' as const, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  { name: 'through passwordless sudo', key: 'sudo' as const, skip: noSudoRunner() },
];

describe.each(setups)('a hostile node with network: allow [127.0.0.2], $name', ({ key, skip }) => {
  let observed: EgressObserved | undefined;
  beforeAll(async () => {
    if (!skip && !existsSync(join(DIST, 'index.js'))) throw new Error('run "npm run build" first');
    if (!skip) observed = await observe(key === 'sudo');
    if (observed) outcomes[key] = EGRESS_ATTEMPTS.map((a) => a.outcome(observed!));
  }, 120_000);

  it.skipIf(!!skip)('the node ran every try and said what it got', () => {
    expect([...observed!.report.keys()]).toHaveLength(EGRESS_ATTEMPTS.length);
  });
  it.skipIf(!!skip).each(EGRESS_ATTEMPTS.map((a, i) => [a.attempt, i] as const))(
    '%s: has no effect',
    (_n, i) => {
      const o = outcomes[key][i]!;
      expect(o.blocked, o.what).toBe(true);
    },
  );
});

afterAll(() => {
  const out = process.env.HOSTILE_EGRESS_TABLE_OUT;
  if (out) writeFileSync(out, `${egressTable(outcomes)}\n`);
});
