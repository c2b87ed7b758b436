// The egress allowlist through the bundled action (issue 27), under the default isolation, as root and through
// passwordless sudo: a node with `network: { allow: [127.0.0.2] }` reaches the server on 127.0.0.2 and not the one
// on 127.0.0.3, its `command` check runs under the same allowlist, the journal records what each attempt asked for,
// and the step log says it; a node without `network:` keeps the open network, which the log says once. Needs root
// (or passwordless sudo) and `npm run build`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/events/events.js';
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
    outputs: [granted, other, direct, proxy, user, token, home]
    run: |
      echo "user=$(id -un)" >> "$INTERLOCK_OUTPUT"
      echo "token=\${GH_TOKEN:-none}" >> "$INTERLOCK_OUTPUT"
      echo "home=$HOME" >> "$INTERLOCK_OUTPUT"
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
    step = await runStep(
      issueStep(server, ws, 27, 'agent:egress', {
        inputs: { node: 'all' },
        env: { GH_TOKEN: 'ghs_stepTokenNoNodeIsGranted' },
        ...as,
      }),
    );
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
    // Under the default isolation the node still runs as a user of its own, inside the namespace.
    expect(outputs.user).toMatch(/^interlock-node/);
    // ... with the environment isolation gives it: no token it was not granted, a home of its own.
    expect(outputs.token).toBe('none');
    expect(outputs.home).toMatch(/interlock-node-homes-.*\/home-/);
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

/** A runner's user with neither root nor sudo (a self-hosted runner's), made here as root. */
function plainUser(): { uid: number; gid: number; home: string } {
  const name = 'interlock-nosudo';
  const quiet = { stdio: 'pipe' as const, encoding: 'utf8' as const };
  try {
    execFileSync('id', ['-u', name], quiet);
  } catch {
    execFileSync('useradd', ['--create-home', '--user-group', '--shell', '/bin/bash', name], quiet);
  }
  const home = mkdtempSync(join(tmpdir(), 'interlock-nosudo-home-'));
  const uid = Number(execFileSync('id', ['-u', name], quiet).trim());
  const gid = Number(execFileSync('id', ['-g', name], quiet).trim());
  execFileSync('chown', [`${uid}:${gid}`, home], quiet);
  return { uid, gid, home };
}

describe('a node with network: where no namespace can be made (no root, no sudo)', () => {
  const skip = process.getuid?.() === 0 ? undefined : 'needs root, to make a user without sudo';
  let server: GitHubServer;
  let ws: string;
  let step: StepResult;
  let events: JournalEvent[];

  beforeAll(async () => {
    if (skip) return;
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: 28, title: 'No namespace', labels: ['agent:egress'] });
    ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:egress', GRAPH_FILE),
      [GRAPH_FILE]: `interlock: 1
name: egress
nodes:
  - id: fetch
    network: { allow: [registry.npmjs.org] }
    run: touch ran.txt
`,
    });
    const as = plainUser();
    execFileSync('chown', ['-R', `${as.uid}:${as.gid}`, ws]);
    step = await runStep(issueStep(server, ws, 28, 'agent:egress', { as }));
    const text = journalText(server, 'egress/issue-28');
    events = text ? parseJournal(text, 'egress/issue-28').events : [];
  }, 120_000);
  afterAll(async () => server?.close());

  it.skipIf(!!skip)('fails the attempt before its command runs, saying why: never the open network', () => {
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);
    const failed = events.find((e) => e.type === 'NodeFailed' && e.node === 'fetch');
    expect(failed?.type === 'NodeFailed' && failed.failures).toEqual([
      {
        check: 'network',
        message:
          'node "fetch" has network: but no network namespace can be made here (this process is not root and has no passwordless sudo), so it did not run: interlock never runs it on the open network. Run the step as root or as a user with passwordless sudo, or remove network: from the node',
      },
    ]);
    expect(step.log).toContain('no network namespace can be made here');
  });
});
