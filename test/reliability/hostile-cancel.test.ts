// A node process that outlives a cancel (issue 46): it starts a session of its own (`setsid`) and ignores TERM,
// INT and HUP, so the process group the action stops does not hold it and the runner's KILL reaches only the
// action. Through the bundled action, as root and through sudo, default isolation: cancelled as the runner
// cancels (INT, TERM 7.5 s later, KILL 2.5 s after that), the survivor is gone when the main step exits; with the
// action KILLed outright it is gone after the post step; each says how many processes it ended. Needs
// `npm run build`.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive } from '../../src/os/processes.js';
import { FULL, issueStep, OWNER, REPO, routeLabel, waitForFile } from '../action/world.js';
import {
  DIST,
  makeWorkspace,
  runStep,
  type StepOptions,
  type StepResult,
  startStep,
} from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const GRAPH_FILE = '.github/interlock/cancel.yml';
const graph = (word: string) => `interlock: 1
name: cancel
nodes:
  - id: work
    run: |
      setsid bash -c 'trap "" TERM INT HUP; echo $$ > survivor.pid; while :; do sleep 1; done; : ${word}' \\
        < /dev/null > /dev/null 2>&1 &
      while [ ! -s survivor.pid ]; do sleep 0.05; done
      touch started
      sleep 60
`;

/** Whether `pid` still runs, polled until `ms` have passed (a kill takes a moment to land). */
async function stillRuns(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!processAlive(pid)) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return processAlive(pid);
}

/** Cancels the step as the runner does: INT, then TERM after 7.5 s, then KILL after 2.5 s more. */
async function cancelLikeRunner(child: ReturnType<typeof startStep>['child']): Promise<void> {
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const within = (ms: number) =>
    Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
  child.kill('SIGINT');
  if (await within(7500)) return;
  child.kill('SIGTERM');
  if (await within(2500)) return;
  child.kill('SIGKILL');
  await exited;
}

/**
 * The node user `name` (made as interlock makes it) with a home in the password database an earlier job left,
 * holding a file; its path.
 */
function leftHome(name: string): string {
  const quiet = { stdio: 'ignore' as const };
  try {
    execFileSync('id', ['-u', name], quiet);
  } catch {
    execFileSync('useradd', ['--create-home', '--user-group', '--shell', '/bin/bash', name], quiet);
  }
  const home = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).split(':')[5]!;
  execFileSync('sh', [
    '-c',
    'mkdir -p "$1" && echo left > "$1/left" && chown -R "$2:$2" "$1"',
    'sh',
    home,
    name,
  ]);
  return home;
}

interface Seen {
  main: StepResult;
  post: StepResult;
  pid: number;
  /** Whether the survivor ran once the main step had exited, and once the post step had. */
  afterMain: boolean;
  afterPost: boolean;
  /** The node user's home in the password database, and whether it was there after the main step and the post step. */
  home: string;
  homeAfterMain: boolean;
  homeAfterPost: boolean;
}

async function survive(
  server: GitHubServer,
  issue: number,
  viaSudo: boolean,
  how: 'runner' | 'kill',
): Promise<Seen> {
  server.state.repo(FULL).addIssue({ number: issue, title: 'Cancel', labels: ['agent:cancel'] });
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:cancel', GRAPH_FILE),
    [GRAPH_FILE]: graph(`survivor-${randomBytes(4).toString('hex')}`),
  });
  let as: Pick<StepOptions, 'as'> = {};
  if (viaSudo) {
    const user = sudoRunner();
    giveTo(ws, user);
    as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
  }
  const name = `interlock-cancel-${viaSudo ? 's' : 'r'}`;
  const home = leftHome(name);
  const opts = issueStep(server, ws, issue, 'agent:cancel', {
    inputs: { 'node-user': name },
    ...as,
  });
  const running = startStep(opts);
  await waitForFile(join(ws, 'started'));
  const pid = Number(readFileSync(join(ws, 'survivor.pid'), 'utf8'));
  if (how === 'runner') await cancelLikeRunner(running.child);
  else running.child.kill('SIGKILL');
  const main = await running.done;
  const afterMain = await stillRuns(pid, how === 'runner' ? 1000 : 0);
  const homeAfterMain = existsSync(home);
  const post = await runStep({ ...opts, entry: 'post.js', state: main.state });
  const afterPost = await stillRuns(pid, 1000);
  return { main, post, pid, afterMain, afterPost, home, homeAfterMain, homeAfterPost: existsSync(home) };
}

const cases: [string, boolean, 'runner' | 'kill', number][] = [
  ['as root, cancelled as the runner cancels', false, 'runner', 150],
  ['as root, the action KILLed', false, 'kill', 151],
  ['through sudo, cancelled as the runner cancels', true, 'runner', 152],
  ['through sudo, the action KILLed', true, 'kill', 153],
];

describe.each(cases)(
  'a node process that ignores TERM in a session of its own, %s',
  (_, viaSudo, how, issue) => {
    const skip = viaSudo ? noSudoRunner() : process.getuid?.() === 0 ? undefined : 'not root';
    let server: GitHubServer;
    let seen: Seen;
    beforeAll(async () => {
      if (skip) return;
      if (!existsSync(join(DIST, 'index.js')))
        throw new Error(`${DIST}/index.js is missing: run "npm run build" first`);
      server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
      seen = await survive(server, issue, viaSudo, how);
    }, 90_000);
    afterAll(async () => {
      // Whatever a failing run left is not left for the next test.
      if (seen && processAlive(seen.pid)) process.kill(seen.pid, 'SIGKILL');
      await server?.close();
    });

    if (how === 'runner')
      it.skipIf(!!skip)('is gone when the main step exits, which says how many processes it ended', () => {
        expect(seen.main.code).toBe(1);
        expect(seen.main.stdout).toContain('::error::interlock: SIGINT');
        expect(seen.afterMain).toBe(false);
        expect(seen.main.stdout).toMatch(
          /interlock: ended [1-9]\d* process\(es\) of node user interlock-cancel-\S+ when the step was cancelled \(SIGINT\)/,
        );
      });
    else
      it.skipIf(!!skip)(
        'outlives the KILLed action, and the post step says how many processes it ended',
        () => {
          expect(seen.main.signal).toBe('SIGKILL');
          expect(seen.afterMain).toBe(true);
          expect(seen.post.code).toBe(0);
          expect(seen.post.stdout).toMatch(
            /interlock post step: ended [1-9]\d* process\(es\) of node user interlock-cancel-\S+ after the main step ended/,
          );
        },
      );

    it.skipIf(!!skip)(
      "the node user's home is removed by the cancelled main step, or else by the post step",
      () => {
        expect(seen.homeAfterPost).toBe(false);
        if (how === 'runner') {
          expect(seen.homeAfterMain).toBe(false);
          expect(seen.main.stdout).toContain(`removed the node user's home ${seen.home}`);
        } else expect(seen.post.stdout).toContain(`removed the node user's home ${seen.home}`);
      },
    );

    it.skipIf(!!skip)('is gone after the post step, which marks the node interrupted', () => {
      expect(seen.afterPost).toBe(false);
      expect(seen.post.stdout).toContain('"work" was interrupted when the step stopped');
    });
  },
);
