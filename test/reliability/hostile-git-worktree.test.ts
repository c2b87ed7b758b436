// The git guard in a linked worktree (issue 34): the checkout's `.git` is a file (`gitdir: <main>/.git/worktrees/
// <name>`) and git reads the configuration and hooks of the repository's common directory (`commondir`). Through
// the bundled action under the default isolation, a node that holds no token plants a command in the common
// directory's config and hooks, and proves it runs; in a later step of the same job the node granted GH_TOKEN,
// its `command` check and interlock's own git run ordinary git, and none may run it. The common directory is
// made writable to the node here, as a runner that shares it would. Needs root and `npm run build`.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';

const TOKEN = 'ghs_grantedNodeOnlyToken';
const GRAPH = '.github/interlock/hostile-git.yml';
const COMMIT = 'git commit -q --allow-empty -m "an ordinary commit"';

const PLANTINGS = [
  { name: "core.fsmonitor in the common directory's config", plant: 'git config core.fsmonitor "$PLANTED"' },
  {
    name: "a pre-commit hook in the common directory's hooks",
    plant:
      'h="$(git rev-parse --git-common-dir)/hooks"; cp "$PLANTED" "$h/pre-commit"; chmod +x "$h/pre-commit"',
  },
];

const graph = (plant: string) => `interlock: 1
name: hostile-git
nodes:
  - id: plant
    replay: safe
    run: |
      PLANTED="$MARKS/planted.sh"
      ${plant}
      git status --porcelain > /dev/null
      ${COMMIT}
  - id: granted
    depends_on: [plant]
    replay: safe
    run: |
      git status --porcelain > /dev/null
      ${COMMIT}
      echo ran > "$MARKS/granted-ran"
    validates:
      - command: |
          WHO=check; export WHO
          git status --porcelain > /dev/null
      - git: { min_commits: 1 }
`;

interface Case {
  steps: StepResult[];
  ran: string[];
  grantedRan: boolean;
}

/** A main repository and a linked worktree of it (the checkout), the common directory writable to the node. */
function worktree(plant: string): string {
  const main = mkdtempSync(join(tmpdir(), 'interlock-main-'));
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });
  git(main, 'init', '-q', '-b', 'main');
  writeFileSync(join(main, 'notes.txt'), 'notes\n');
  git(main, 'add', '-A');
  git(main, '-c', 'user.name=Checkout', '-c', 'user.email=c@example.com', 'commit', '-qm', 'initial');
  const ws = join(mkdtempSync(join(tmpdir(), 'interlock-wt-')), 'checkout');
  git(main, 'worktree', 'add', '-q', '-b', 'work', ws);
  execFileSync('mkdir', ['-p', join(ws, '.github/interlock')]);
  writeFileSync(join(ws, '.github/interlock.yml'), routeLabel('agent:git', GRAPH));
  writeFileSync(join(ws, GRAPH), graph(plant));
  chmodSync(main, 0o755);
  execFileSync('chmod', ['-R', 'a+rwX', join(main, '.git')]);
  return ws;
}

async function play(server: GitHubServer, plant: string, issue: number): Promise<Case> {
  const marks = mkdtempSync(join(tmpdir(), 'interlock-hostile-git-'));
  chmodSync(marks, 0o777);
  const script = join(marks, 'planted.sh');
  writeFileSync(
    script,
    `#!/bin/sh\necho ran > "${marks}/ran-\${WHO:-$INTERLOCK_NODE}"\ncat > /dev/null 2>&1 || true\n`,
  );
  chmodSync(script, 0o755);
  const ws = worktree(plant);
  const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: ws,
    encoding: 'utf8',
  }).trim();
  const home = mkdtempSync(join(tmpdir(), 'interlock-runner-home-'));
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Bot\n\temail = bot@example.com\n');
  const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
  server.state.repo(FULL).addIssue({ number: issue, title: 'worktree', labels: ['agent:git'] });
  const steps: StepResult[] = [];
  for (const node of ['plant', 'granted']) {
    // Each step may hold another node user (another step on this machine holds the first): the common directory
    // stays writable to whichever, as the workspace is shared again with each step's.
    execFileSync('chmod', ['-R', 'a+rwX', common]);
    steps.push(
      await runStep(
        issueStep(server, ws, issue, 'agent:git', {
          inputs: { node, 'node-credentials': 'GH_TOKEN=granted' },
          env: { GH_TOKEN: TOKEN, MARKS: marks, HOME: home, RUNNER_TEMP: runnerTemp },
        }),
      ),
    );
  }
  const ran = readdirSync(marks)
    .filter((f) => f.startsWith('ran-'))
    .map((f) => f.slice(4))
    .sort();
  return { steps, ran, grantedRan: existsSync(join(marks, 'granted-ran')) };
}

const asRoot = process.getuid?.() === 0;
if (!asRoot)
  console.warn('hostile-git-worktree.test.ts skipped: nodes run as a user of their own only as root');

describe.skipIf(!asRoot)(
  "a planting in a linked worktree's common directory never runs in a later node",
  () => {
    let server: GitHubServer;
    const cases: Case[] = [];
    beforeAll(async () => {
      requireBundle();
      server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
      let issue = 400;
      for (const p of PLANTINGS) cases.push(await play(server, p.plant, ++issue));
    }, 120_000);
    afterAll(() => server?.close());

    it.each(PLANTINGS.map((p, i) => [p.name, i] as const))(
      '%s: runs for the node that planted it, and never for the granted node, its check or interlock',
      (_name, i) => {
        const c = cases[i]!;
        const [plantStep, grantedStep] = c.steps;
        expect(c.ran, plantStep!.log.slice(-2000)).toEqual(['plant']);
        expect(grantedStep!.outputs.status, grantedStep!.log.slice(-2000)).toBe('completed');
        expect(c.grantedRan).toBe(true);
        expect(grantedStep!.runner.annotations.map((a) => a.message).join('\n')).toMatch(/put back/);
      },
    );
  },
);
