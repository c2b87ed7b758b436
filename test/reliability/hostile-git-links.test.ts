// The git guard is nobody's deputy (issue 34's rule), through the bundled action as root under the default
// isolation, in one step (`node: all`): nodes replace `.git/config` with a link to a root-only file, `.git/hooks`
// with a link to a root-only folder, `.git/config` with a FIFO and a hook with a 1 GB sparse file; before each
// later script the guard puts `.git/` back. The root-only file and folder keep their bytes, mode and owner, the
// last node's git and its `command` check run (a FIFO left as the config would hang them), and the step completes.
// Needs root and `npm run build`.
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
    run: rm -f .git/config && mkfifo .git/config && truncate -s 1G .git/hooks/pre-commit
  - id: later
    depends_on: [fifo-and-sparse]
    run: timeout 20 git status --porcelain > /dev/null && echo ok > "$MARKS/later-git"
    validates:
      - command: "timeout 20 git status --porcelain > /dev/null"
`;

const asRoot = process.getuid?.() === 0;
if (!asRoot)
  console.warn('hostile-git-links.test.ts skipped: nodes run as a user of their own only as root here');

const facts = (p: string) => {
  const st = lstatSync(p);
  const body = st.isDirectory() ? readdirSync(p).join(',') : readFileSync(p, 'utf8');
  return `${body} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
};

describe.skipIf(!asRoot)('links and FIFOs a node puts in .git/ are never followed by the guard', () => {
  let server: GitHubServer;
  let step: StepResult;
  let ws: string;
  const marks = mkdtempSync(join(tmpdir(), 'interlock-git-links-'));
  const rootOnly = join(marks, 'root', 'secret');
  const rootDir = join(marks, 'root', 'folder');
  let before: string[];
  beforeAll(async () => {
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
    server.state.repo(FULL).addIssue({ number: 460, title: 'links in .git', labels: ['agent:git'] });
    step = await runStep(
      issueStep(server, ws, 460, 'agent:git', {
        inputs: { node: 'all' },
        env: {
          MARKS: marks,
          ROOT_ONLY: rootOnly,
          ROOT_DIR: rootDir,
          RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'interlock-job-temp-')),
        },
      }),
    );
  }, 120_000);
  afterAll(() => server?.close());

  it('the root-only file and folder keep their bytes, mode and owner; the later node and its check run git', () => {
    expect([facts(rootOnly), facts(rootDir)]).toEqual(before);
    expect(existsSync(join(marks, 'later-git')), step.log.slice(-3000)).toBe(true);
    // Each planting was there to undo: the link and the FIFO in the config's place, the link in the hooks'.
    expect(step.log.match(/put back [^\n]*\.git\/config/g)?.length).toBe(2);
    expect(step.log).toMatch(/put back [^\n]*\.git\/hooks/);
    expect(step.outputs.status, step.log.slice(-3000)).toBe('completed');
    expect(lstatSync(join(ws, '.git', 'config')).isFile()).toBe(true);
    expect(readFileSync(join(ws, '.git', 'hooks', 'pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  });
});
