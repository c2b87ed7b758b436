// Nothing a node plants in git runs in a later node. Through the bundled action under the default isolation, in
// a real checkout: a node that holds no token plants a command where git will run it (its config and what that
// includes, hooks, attributes with a filter or diff driver, its own home's config, a whole new .git) and proves
// the planting works by running git itself; in a later step of the same job, a node granted GH_TOKEN runs
// ordinary git commands, and so do its `command` check and interlock's own `git` check. None may run the planted
// command or see the token. Needs root (nodes as a user of their own) and `npm run build`.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';

const TOKEN = 'ghs_grantedNodeOnlyToken';
const GRAPH = '.github/interlock/hostile-git.yml';
const ORIGIN = 'https://github.com/acme/widgets.git';

interface Planting {
  name: string;
  /** Bash run by the planting node in the checkout; `$PLANTED` is the command it plants (a script that says who ran it). */
  plant: string;
  /** Ordinary git, as the granted node, its check and the planter's own proof run it. */
  trigger?: string;
}

const STATUS = 'git status --porcelain > /dev/null';
const PLANTINGS: Planting[] = [
  { name: 'core.fsmonitor', plant: 'git config core.fsmonitor "$PLANTED"' },
  {
    name: 'credential.helper',
    plant: 'git config credential.helper "!$PLANTED"',
    trigger:
      "printf 'protocol=https\\nhost=github.com\\n\\n' | GIT_TERMINAL_PROMPT=0 git credential fill > /dev/null 2>&1 || true",
  },
  {
    name: 'url.insteadOf',
    plant: 'git config url."file://$PWD/.git/elsewhere/".insteadOf https://github.com/',
    trigger: `[ "$(git ls-remote --get-url origin)" = "${ORIGIN}" ] || "$PLANTED"`,
  },
  {
    name: 'core.hooksPath',
    plant:
      'mkdir -p .git/elsewhere-hooks && cp "$PLANTED" .git/elsewhere-hooks/pre-commit && git config core.hooksPath "$PWD/.git/elsewhere-hooks"',
    trigger: 'git commit -q --allow-empty -m "an ordinary commit"',
  },
  {
    name: '.git/hooks/pre-commit',
    plant: 'cp "$PLANTED" .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
    trigger: 'git commit -q --allow-empty -m "an ordinary commit"',
  },
  {
    name: 'filter.clean with .gitattributes',
    plant: 'git config filter.evil.clean "$PLANTED" && echo "*.txt filter=evil" >> .gitattributes',
    trigger: 'echo more >> notes.txt && git add notes.txt',
  },
  {
    name: 'filter.clean with .git/info/attributes',
    plant: 'git config filter.evil.clean "$PLANTED" && echo "*.txt filter=evil" >> .git/info/attributes',
    trigger: 'echo more >> notes.txt && git add notes.txt',
  },
  {
    name: 'diff.textconv',
    plant: 'git config diff.evil.textconv "$PLANTED" && echo "*.txt diff=evil" >> .git/info/attributes',
    trigger: 'echo more >> notes.txt && git diff > /dev/null',
  },
  {
    name: 'core.sshCommand',
    plant: 'git config core.sshCommand "$PLANTED"',
    trigger:
      'GIT_TERMINAL_PROMPT=0 timeout 10 git ls-remote ssh://git@example.invalid/x > /dev/null 2>&1 || true',
  },
  {
    name: 'core.pager',
    plant: 'git config core.pager "$PLANTED"',
    // A terminal, as an agent's shell may give git one.
    trigger: 'script -qec "git log -1" /dev/null > /dev/null 2>&1 || true',
  },
  { name: 'alias', plant: 'git config alias.st "!$PLANTED"', trigger: 'git st > /dev/null 2>&1 || true' },
  {
    name: 'include.path',
    plant:
      'printf "[core]\\n\\tfsmonitor = %s\\n" "$PLANTED" > .git/extra.cfg && git config include.path extra.cfg',
  },
  {
    name: 'includeIf',
    plant:
      'printf "[core]\\n\\tfsmonitor = %s\\n" "$PLANTED" > .git/extra.cfg && git config "includeIf.gitdir:/.path" extra.cfg',
  },
  {
    name: "the node's home ~/.gitconfig",
    plant: 'git config --global core.fsmonitor "$PLANTED"',
  },
  {
    name: 'a new .git',
    plant: 'mv .git .git-moved && git init -q && git config core.fsmonitor "$PLANTED"',
  },
];

/** Both nodes share one script: the planter plants and proves it; the granted node runs ordinary git. */
const graph = (p: Planting) => `interlock: 1
name: hostile-git
nodes:
  - id: plant
    replay: safe
    run: |
      PLANTED="$MARKS/planted.sh"
      ${p.plant.replace(/\n/g, '\n      ')}
      ${(p.trigger ?? STATUS).replace(/\n/g, '\n      ')}
  - id: granted
    depends_on: [plant]
    replay: safe
    run: |
      PLANTED="$MARKS/planted.sh"
      git status --porcelain > /dev/null
      ${(p.trigger ?? STATUS).replace(/\n/g, '\n      ')}
      git commit -q --allow-empty -m "the granted node's commit"
      echo "token-seen=$([ -n "$GH_TOKEN" ] && echo yes || echo no)" > "$MARKS/granted-ran"
    validates:
      - command: |
          PLANTED="$MARKS/planted.sh"; WHO=check
          export WHO
          git status --porcelain > /dev/null
          ${(p.trigger ?? STATUS).replace(/\n/g, '\n          ')}
      - git: { min_commits: 1 }
`;

interface Case {
  planting: Planting;
  steps: StepResult[];
  /** Who ran the planted command, each with the GH_TOKEN it saw. */
  ran: Record<string, string>;
  grantedRan: boolean;
  marks: string;
}

async function play(server: GitHubServer, p: Planting, issue: number): Promise<Case> {
  const marks = mkdtempSync(join(tmpdir(), 'interlock-hostile-git-'));
  chmodSync(marks, 0o777);
  // The planted command: leaves a mark named for who ran it, holding the token that process could see.
  const script = join(marks, 'planted.sh');
  execFileSync('bash', [
    '-c',
    `printf '#!/bin/sh\\necho "\${GH_TOKEN:-none}" > "%s/ran-\${WHO:-$INTERLOCK_NODE}"\\ncat > /dev/null 2>&1 || true\\n' "${marks}" > "${script}"; chmod 755 "${script}"`,
  ]);
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:git', GRAPH),
    [GRAPH]: graph(p),
    'notes.txt': 'notes\n',
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('remote', 'add', 'origin', ORIGIN);
  git('add', '-A');
  git('-c', 'user.name=Checkout', '-c', 'user.email=c@example.com', 'commit', '-qm', 'initial');
  const home = mkdtempSync(join(tmpdir(), 'interlock-runner-home-'));
  execFileSync('bash', [
    '-c',
    `printf '[user]\\n\\tname = Bot\\n\\temail = bot@example.com\\n' > ${home}/.gitconfig`,
  ]);
  const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
  server.state.repo(FULL).addIssue({ number: issue, title: p.name, labels: ['agent:git'] });
  const steps: StepResult[] = [];
  for (const node of ['plant', 'granted'])
    steps.push(
      await runStep(
        issueStep(server, ws, issue, 'agent:git', {
          inputs: { node, 'node-credentials': 'GH_TOKEN=granted' },
          env: { GH_TOKEN: TOKEN, MARKS: marks, HOME: home, RUNNER_TEMP: runnerTemp },
        }),
      ),
    );
  const ran: Record<string, string> = {};
  for (const f of readdirSync(marks))
    if (f.startsWith('ran-')) ran[f.slice(4)] = readFileSync(join(marks, f), 'utf8').trim();
  return { planting: p, steps, ran, grantedRan: existsSync(join(marks, 'granted-ran')), marks };
}

const asRoot = process.getuid?.() === 0;
if (!asRoot) console.warn('hostile-git.test.ts skipped: nodes run as a user of their own only as root here');

describe.skipIf(!asRoot)('a planting in git never runs in a later node', () => {
  let server: GitHubServer;
  const cases: Case[] = [];
  beforeAll(async () => {
    requireBundle();
    server = await startGitHubServer({
      // Fifteen plantings, each a run of its own, share one server and one token within a minute: more than
      // GitHub's 80 content-creating requests a minute, as fifteen repositories would be, not one run. The rest
      // of the like-GitHub model stays on.
      likeGitHub: { secondaryLimit: false, ...ORDER_CLOCK },
      repos: [{ owner: OWNER, name: REPO }],
    });
    let issue = 100;
    for (const p of PLANTINGS) cases.push(await play(server, p, ++issue));
  }, 240_000);
  afterAll(() => server?.close());

  it.each(PLANTINGS.map((p, i) => [p.name, i] as const))(
    '%s: runs for the node that planted it, and never for the granted node, its check or interlock',
    (_name, i) => {
      const c = cases[i]!;
      const [plantStep, grantedStep] = c.steps;
      // The planting works: git ran it for the node that made it (which holds no token).
      expect(c.ran, plantStep!.log.slice(-2000)).toHaveProperty('plant', 'none');
      expect(Object.keys(c.ran)).toEqual(['plant']);
      expect(Object.values(c.ran).join(' ')).not.toContain(TOKEN);
      if (c.planting.name === 'a new .git') {
        // Nothing runs in a checkout whose .git a node replaced: the step stops and says why.
        expect(c.grantedRan).toBe(false);
        expect(grantedStep!.log).toMatch(
          /\.git was replaced by the node user|is not the git directory interlock saw/,
        );
        return;
      }
      expect(grantedStep!.outputs.status, grantedStep!.log.slice(-2000)).toBe('completed');
      expect(c.grantedRan).toBe(true);
      expect(readFileSync(join(c.marks, 'granted-ran'), 'utf8')).toContain('token-seen=yes');
      // The step says what it put back (a node's own home is not put back: each script has a new one).
      if (!c.planting.name.includes('home'))
        expect(grantedStep!.runner.annotations.map((a) => a.message).join('\n')).toMatch(/put back/);
    },
  );
});
