// The git guard is nobody's deputy (issue 34's rule), through the bundled action under the default isolation,
// in one step (`node: all`): nodes replace `.git/config` with a link to a root-only file, `.git/hooks` with a link
// to a root-only folder, then `.git/config` with a FIFO while `.git/info/exclude` grows to a 1 GB sparse file;
// before each later script the guard puts `.git/` back. The root-only file and folder keep their bytes, mode and
// owner, the last node's git and its `command` check run (a FIFO left as the config would hang them), and the step
// completes. As root and through passwordless sudo (the runner's user, as on GitHub's hosted runners). Needs
// `npm run build`.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const GRAPH = '.github/interlock/hostile-git-links.yml';
const graph = `interlock: 1
name: hostile-git-links
nodes:
  - id: config-link
    run: rm -f .git/config && ln -s "$ROOT_ONLY" .git/config
  - id: hooks-link
    depends_on: [config-link]
    run: rm -rf .git/hooks && ln -s "$ROOT_DIR" .git/hooks
  - id: fifo-and-sparse
    depends_on: [hooks-link]
    run: rm -f .git/config && mkfifo .git/config && truncate -s 1G .git/info/exclude
  - id: later
    depends_on: [fifo-and-sparse]
    run: timeout 20 git status --porcelain > /dev/null && echo ok > "$MARKS/later-git"
    validates:
      - command: "timeout 20 git status --porcelain > /dev/null"
`;

const facts = (p: string) => {
  const st = lstatSync(p);
  const body = st.isDirectory() ? readdirSync(p).join(',') : readFileSync(p, 'utf8');
  return `${body} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
};

const setups = [
  { name: 'as root', sudo: false, issue: 460, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  { name: 'through passwordless sudo', sudo: true, issue: 461, skip: noSudoRunner() },
];

describe.each(setups)(
  'links and FIFOs a node puts in .git/ are never followed by the guard, $name',
  ({ sudo, issue, skip }) => {
    let server: GitHubServer;
    let step: StepResult;
    let ws: string;
    const marks = mkdtempSync(join(tmpdir(), 'interlock-git-links-'));
    const rootOnly = join(marks, 'root', 'secret');
    const rootDir = join(marks, 'root', 'folder');
    let before: string[];
    beforeAll(async () => {
      if (skip) return;
      requireBundle();
      chmodSync(marks, 0o777);
      mkdirSync(join(marks, 'root'), { mode: 0o700 });
      writeFileSync(rootOnly, 'root only\n', { mode: 0o600 });
      mkdirSync(rootDir, { mode: 0o700 });
      before = [facts(rootOnly), facts(rootDir)];
      server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
      ws = makeWorkspace({ '.github/interlock.yml': routeLabel('agent:git', GRAPH), [GRAPH]: graph });
      const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'ignore' });
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('-c', 'user.name=Checkout', '-c', 'user.email=c@example.com', 'commit', '-qm', 'initial');
      writeFileSync(join(ws, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
      let as = {};
      if (sudo) {
        const user = sudoRunner();
        giveTo(ws, user);
        giveTo(runnerTemp, user);
        as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
      }
      server.state.repo(FULL).addIssue({ number: issue, title: 'links in .git', labels: ['agent:git'] });
      step = await runStep(
        issueStep(server, ws, issue, 'agent:git', {
          inputs: { node: 'all' },
          env: { MARKS: marks, ROOT_ONLY: rootOnly, ROOT_DIR: rootDir, RUNNER_TEMP: runnerTemp },
          ...as,
        }),
      );
    }, 120_000);
    afterAll(() => server?.close());

    it.skipIf(skip)(
      'the root-only file and folder keep their bytes, mode and owner; the later node and its check run git',
      () => {
        expect([facts(rootOnly), facts(rootDir)]).toEqual(before);
        expect(existsSync(join(marks, 'later-git')), step.log.slice(-3000)).toBe(true);
        // Each planting was there to undo: the link and the FIFO in the config's place, the link in the hooks'.
        expect(step.log.match(/put back [^\n]*\.git\/config/g)?.length).toBe(2);
        expect(step.log).toMatch(/put back [^\n]*\.git\/hooks/);
        expect(step.outputs.status, step.log.slice(-3000)).toBe('completed');
        expect(lstatSync(join(ws, '.git', 'config')).isFile()).toBe(true);
        expect(readFileSync(join(ws, '.git', 'hooks', 'pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
        expect(lstatSync(join(ws, '.git', 'info', 'exclude')).size).toBeLessThan(4096);
      },
    );
  },
);
