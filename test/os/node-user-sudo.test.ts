// The sudo path of `isolation` through the bundled action, as a GitHub-hosted runner runs it: the action is not
// root, its user has passwordless sudo, and nodes run as `node-user` (made with `sudo useradd` when missing)
// through sudo. As root (this machine, CI) the suite makes such a runner user (test/support/sudo-runner.ts) and runs
// the action as it; as a non-root user with passwordless sudo it runs as that user; elsewhere it says why it skips.
// It needs `npm run build`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { DIST, makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, sudoRunner as makeRunner, noSudoRunner, type RunnerUser } from '../support/sudo-runner.js';

const why = noSudoRunner();
if (why) console.warn(`node-user-sudo.test.ts skipped: ${why}`);
const sudoRunner = !why;
let runnerUser: RunnerUser | undefined;
/** The step as the runner's user, its checkout given to that user as a checkout belongs to the runner. */
function asRunner(ws: string) {
  runnerUser ??= makeRunner();
  giveTo(ws, runnerUser);
  return { as: { uid: runnerUser.uid, gid: runnerUser.gid, home: runnerUser.home } };
}

const NODE_USER = 'interlock-sudo-test';
const TOKEN = 'ghs_sudoPathActionToken';
const GRAPH_FILE = '.github/interlock/sudo.yml';
// The node says who it is, looks for the action's token in every process's environment it can read, writes the
// workspace, and leaves a process behind that the action must sweep.
const GRAPH = `interlock: 1
name: sudo
nodes:
  - id: isolated
    outputs: [user, token]
    run: |
      echo "user=$(id -un)" >> "$INTERLOCK_OUTPUT"
      # The token, pieced together here: sudo puts this script in SUDO_COMMAND, so it must not hold it whole.
      token="${TOKEN.slice(0, 8)}"; token="\${token}${TOKEN.slice(8)}"
      found=$(grep -l "$token" /proc/[0-9]*/environ 2>/dev/null | head -n 1 || true)
      echo "token=\${found:-none}" >> "$INTERLOCK_OUTPUT"
      echo made > made-by-node.txt
      setsid sleep 300 > /dev/null 2>&1 < /dev/null &
      echo $! > left-behind.pid
`;

/** Whether a process runs (a killed one that nobody reaped yet, a zombie, has ended). */
function alive(pid: string): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Processes of `uid` still running. */
function processesOf(uid: number): string[] {
  const uidOf = (pid: string) => {
    try {
      return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    } catch {
      return undefined;
    }
  };
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e) && uidOf(e) === uid && alive(e));
}

describe.skipIf(!sudoRunner)('isolation through passwordless sudo (not root)', () => {
  let server: GitHubServer;
  let ws: string;
  let step: StepResult;

  beforeAll(async () => {
    if (!existsSync(join(DIST, 'index.js')))
      throw new Error(`${DIST}/index.js is missing: run "npm run build" first`);
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: 90, title: 'Sudo', labels: ['agent:sudo'] });
    ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:sudo', GRAPH_FILE),
      [GRAPH_FILE]: GRAPH,
    });
    step = await runStep(
      issueStep(server, ws, 90, 'agent:sudo', {
        inputs: { isolation: 'user', 'node-user': NODE_USER },
        token: TOKEN,
        ...asRunner(ws),
      }),
    );
  }, 60_000);
  afterAll(async () => server?.close());

  it('runs the node as the node user, made through sudo', () => {
    expect(step.code, step.stdout).toBe(0);
    expect(step.outputs).toMatchObject({ node: 'isolated', status: 'completed', 'output-user': NODE_USER });
  });

  it("leaves the node no way to read the action's token from /proc", () => {
    expect(step.outputs['output-token']).toBe('none');
  });

  it('shares the workspace: the node wrote it as its own user', () => {
    const uid = Number(execFileSync('id', ['-u', NODE_USER], { encoding: 'utf8' }).trim());
    expect(statSync(join(ws, 'made-by-node.txt')).uid).toBe(uid);
  });

  it('kills what the node left running when the attempt ends (sudo kill)', () => {
    const uid = Number(execFileSync('id', ['-u', NODE_USER], { encoding: 'utf8' }).trim());
    const pid = readFileSync(join(ws, 'left-behind.pid'), 'utf8').trim();
    expect(pid).toMatch(/^\d+$/);
    expect(alive(pid)).toBe(false);
    expect(processesOf(uid)).toEqual([]);
  });
});

// A node that ignores SIGTERM past its timeout: the group's signals reach sudo, not the node user's processes, so
// the action must kill them as that user or the attempt would wait on their open output for ever.
const STUBBORN = `interlock: 1
name: sudo
nodes:
  - id: isolated
    timeout_minutes: 0.05
    run: |
      trap '' TERM
      echo $$ > stubborn.pid
      while true; do sleep 1; done
`;

describe.skipIf(!sudoRunner)('a node past its timeout, through sudo', () => {
  let server: GitHubServer;
  let ws: string;
  let step: StepResult;
  let ms: number;

  beforeAll(async () => {
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: 91, title: 'Stubborn', labels: ['agent:sudo'] });
    ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:sudo', GRAPH_FILE),
      [GRAPH_FILE]: STUBBORN,
    });
    const t0 = Date.now();
    step = await runStep(
      issueStep(server, ws, 91, 'agent:sudo', {
        inputs: { isolation: 'user', 'node-user': NODE_USER },
        token: TOKEN,
        ...asRunner(ws),
      }),
    );
    ms = Date.now() - t0;
  }, 90_000);
  afterAll(async () => server?.close());

  it('fails the attempt as timed out instead of waiting for the node', () => {
    expect(step.stdout).toMatch(/killed after timeout_minutes 0.05/);
    // 3 s of timeout and 3 s of grace; the loop runs for ever unless it is killed as the node user.
    expect(ms).toBeLessThan(60_000);
  });

  it('leaves nothing of the node user running', () => {
    const uid = Number(execFileSync('id', ['-u', NODE_USER], { encoding: 'utf8' }).trim());
    const pid = readFileSync(join(ws, 'stubborn.pid'), 'utf8').trim();
    expect(alive(pid)).toBe(false);
    expect(processesOf(uid)).toEqual([]);
  });
});
