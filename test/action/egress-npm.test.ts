// `npm ci` through the egress proxy (issue 27), through the bundled action under the default isolation: a node
// with `network: { allow: [registry.npmjs.org] }` installs a one-dependency project from the real registry over
// CONNECT, and the same install with nothing allowed fails, refused by the proxy. Needs root (or passwordless
// sudo), `npm run build` and the npm registry (skipped, saying so, where this machine cannot reach it).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/events/events.js';
import { parseJournal } from '../../src/journal/parse.js';
import { makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { FULL, issueStep, journalText, OWNER, REPO, routeLabel } from './world.js';

const FIXTURE = new URL('../fixtures/egress-npm/', import.meta.url);
const GRAPH_FILE = '.github/interlock/npm.yml';
// The node has a home of its own: npm's cache goes there, not where the step's npm_config_cache points.
const INSTALL = 'npm ci --no-audit --no-fund --cache "$HOME/.npm"';
const GRAPH = `interlock: 1
name: npm
nodes:
  - id: install
    network: { allow: [registry.npmjs.org] }
    outputs: [is_number]
    run: |
      ${INSTALL}
      echo "is_number=$(node -p "require('is-number')(5)")" >> "$INTERLOCK_OUTPUT"
  - id: refused
    depends_on: [install]
    network: { allow: [] }
    timeout_minutes: 2
    run: |
      mkdir again && cp package.json package-lock.json again/ && cd again
      ${INSTALL} --fetch-retries=0
`;

function registryReachable(): string | undefined {
  try {
    execFileSync('curl', [
      '-fsS',
      '-o',
      '/dev/null',
      '--max-time',
      '15',
      'https://registry.npmjs.org/is-number',
    ]);
    return undefined;
  } catch (e) {
    return `the npm registry is not reachable from this machine (${(e as Error).message.split('\n')[0]})`;
  }
}

const skip = process.getuid?.() !== 0 ? 'not root' : registryReachable();
if (skip) console.warn(`egress-npm.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('npm ci through the egress proxy', () => {
  let server: GitHubServer;
  let ws: string;
  let step: StepResult;
  let events: JournalEvent[];

  beforeAll(async () => {
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: 29, title: 'Install', labels: ['agent:npm'] });
    ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:npm', GRAPH_FILE),
      [GRAPH_FILE]: GRAPH,
      'package.json': readFileSync(new URL('package.json', FIXTURE), 'utf8'),
      'package-lock.json': readFileSync(new URL('package-lock.json', FIXTURE), 'utf8'),
    });
    step = await runStep(issueStep(server, ws, 29, 'agent:npm', { inputs: { node: 'all' } }));
    const text = journalText(server, 'npm/issue-29');
    events = text ? parseJournal(text, 'npm/issue-29').events : [];
  }, 300_000);
  afterAll(async () => server?.close());

  it('installs from the allowed registry over CONNECT, and journals it', () => {
    const recorded = events.find((e) => e.type === 'NodeRecorded' && e.node === 'install');
    expect(recorded, step.log).toBeDefined();
    expect(recorded?.type === 'NodeRecorded' && recorded.outputs.is_number).toBe('true');
    const connections = recorded?.type === 'NodeRecorded' ? (recorded.connections ?? []) : [];
    expect(connections.filter((c) => !c.allowed)).toEqual([]);
    expect(connections.find((c) => c.host === 'registry.npmjs.org')).toMatchObject({
      port: 443,
      allowed: true,
    });
  });

  it('fails the same install with nothing allowed: the proxy refuses the registry', () => {
    const failed = events.find((e) => e.type === 'NodeFailed' && e.node === 'refused');
    expect(failed, step.log).toBeDefined();
    const connections = failed?.type === 'NodeFailed' ? (failed.connections ?? []) : [];
    expect(connections.find((c) => c.host === 'registry.npmjs.org')).toMatchObject({
      port: 443,
      allowed: false,
    });
    expect(connections.every((c) => !c.allowed)).toBe(true);
  });
});
