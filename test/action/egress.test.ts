// The egress allowlist through the bundled action (issue 27), under the default isolation, as root and through
// passwordless sudo: a node with `network: { allow: [127.0.0.2] }` reaches the server on 127.0.0.2 and not the one
// on 127.0.0.3, its `command` check runs under the same allowlist, the journal records what each attempt asked for,
// and the step log says it; a node without `network:` keeps the open network, which the log says once. Needs root
// (or passwordless sudo) and `npm run build`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/events.js';
import { parseJournal } from '../../src/journal/parse.js';
import { DIST, makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type EgressHost, startEgressHost } from '../support/egress-hosts.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';
import { FULL, issueStep, journalText, OWNER, REPO, routeLabel } from './world.js';

const GRAPH_FILE = '.github/interlock/egress.yml';
const graph = (granted: EgressHost, other: EgressHost) => `interlock: 1
name: egress
nodes:
  - id: fetch
    network: { allow: [127.0.0.2] }
    env: { GRANTED: "${granted.url}/granted", OTHER: "${other.url}/other" }
    outputs: [granted, other, direct, proxy]
    run: |
      echo "proxy=$HTTPS_PROXY $NO_PROXY" >> "$INTERLOCK_OUTPUT"
      echo "granted=$(curl -sS "$GRANTED")" >> "$INTERLOCK_OUTPUT"
      echo "other=$(curl -sS -o /dev/null -w '%{http_code}' "$OTHER")" >> "$INTERLOCK_OUTPUT"
      echo "direct=$(curl -sS --noproxy '*' "$GRANTED" 2>&1 >/dev/null | head -c 80 || true)" >> "$INTERLOCK_OUTPUT"
    validates:
      - command: curl -fsS "$GRANTED" && ! curl -fsS "$OTHER"
  - id: open
    depends_on: [fetch]
    run: curl -fsS "${other.url}/open"
  - id: open-too
    depends_on: [open]
    run: "true"
`;

const setups = [
  { name: 'as root', sudo: false },
  { name: 'through passwordless sudo', sudo: true },
];

describe.each(setups)('a node with network: through the bundled action, $name', ({ sudo }) => {
  const skip = sudo ? noSudoRunner() : process.getuid?.() === 0 ? undefined : 'not root';
  let server: GitHubServer;
  let granted: EgressHost;
  let other: EgressHost;
  let step: StepResult;
  let events: JournalEvent[];

  beforeAll(async () => {
    if (skip) return;
    if (!existsSync(join(DIST, 'index.js')))
      throw new Error(`${DIST}/index.js is missing: run "npm run build"`);
    granted = await startEgressHost('127.0.0.2');
    other = await startEgressHost('127.0.0.3');
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: 27, title: 'Egress', labels: ['agent:egress'] });
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:egress', GRAPH_FILE),
      [GRAPH_FILE]: graph(granted, other),
    });
    let as = {};
    if (sudo) {
      const user = sudoRunner();
      giveTo(ws, user);
      as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
    }
    step = await runStep(issueStep(server, ws, 27, 'agent:egress', { inputs: { node: 'all' }, ...as }));
    const text = journalText(server, 'egress/issue-27');
    events = text ? parseJournal(text, 'egress/issue-27').events : [];
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await granted?.close();
    await other?.close();
  });

  it.skipIf(!!skip)('reaches the allowed host through the proxy, and only through it', () => {
    expect(step.code, step.log).toBe(0);
    const recorded = events.find((e) => e.type === 'NodeRecorded' && e.node === 'fetch');
    expect(recorded?.type === 'NodeRecorded' && recorded.outputs).toMatchObject({
      granted: 'hello from 127.0.0.2',
      other: '403',
    });
    const outputs = recorded?.type === 'NodeRecorded' ? recorded.outputs : {};
    expect(outputs.proxy).toMatch(/^http:\/\/127\.0\.0\.1:\d+ 127\.0\.0\.1,localhost,::1$/);
    // Without the proxy there is no route at all: the namespace has a loopback and nothing else.
    expect(outputs.direct).toMatch(/Couldn't connect|Failed to connect/);
    expect(granted.requests.map((r) => r.path)).toEqual(['/granted', '/granted']);
  });

  it.skipIf(!!skip)('never reaches the host it does not allow', () => {
    expect(other.requests.filter((r) => r.path !== '/open')).toEqual([]);
  });

  it.skipIf(!!skip)(
    'journals what the attempt asked for, its check included, and says it in the step log',
    () => {
      const recorded = events.find((e) => e.type === 'NodeRecorded' && e.node === 'fetch');
      expect(recorded?.type === 'NodeRecorded' ? recorded.connections : undefined).toEqual([
        { host: '127.0.0.2', port: granted.port, allowed: true, count: 2 },
        { host: '127.0.0.3', port: other.port, allowed: false, count: 2 },
      ]);
      expect(step.log).toContain(
        `"fetch" attempt 1 connected through the egress proxy: 127.0.0.2:${granted.port} allowed ×2, 127.0.0.3:${other.port} refused ×2`,
      );
    },
  );

  it.skipIf(!!skip)('leaves a node without network: the open network, and says so once', () => {
    const open = events.find((e) => e.type === 'NodeRecorded' && e.node === 'open');
    expect(open?.type === 'NodeRecorded' && open.connections).toBe(undefined);
    expect(other.requests.map((r) => r.path)).toEqual(['/open']);
    expect(step.log.match(/has no network: in the graph/g)).toHaveLength(1);
  });
});
