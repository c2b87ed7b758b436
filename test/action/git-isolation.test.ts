// The recommended setup runs its own recipe: the Claude Code recipe's git nodes (branch, the agent, commit) through
// the bundled action under the default isolation, in a real git checkout that belongs to the runner's user: once
// as root (nodes spawned as interlock-node) and once as a user with passwordless sudo, as GitHub-hosted runners
// run it (nodes through sudo). The agent's CLI and npm are only on the step's PATH, as setup-node puts them.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, type StepResult, worldLog } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { journalText } from '../support/journal-text.js';
import { giveTo, noSudoRunner, type RunnerUser, sudoRunner } from '../support/sudo-runner.js';
import { FULL, issueStep, JOURNAL_BRANCH, OWNER, REPO, readJournal, routeLabel } from './world.js';

const RECIPE = new URL(
  '../../examples/recipes/claude-code/.github/interlock/claude-fix.yml',
  import.meta.url,
);
const GRAPH = '.github/interlock/claude-fix.yml';
const LABEL = 'agent:fix';

/** Stand-ins on a PATH of their own: claude fixes calc.js and prints its JSON result; npm runs the test. */
function tools(): string {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-step-tools-'));
  const put = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  };
  put(
    'claude',
    `#!/usr/bin/env bash
cat > /dev/null
git status --porcelain > /dev/null # an agent looks around with git first
# A hostile agent looks for any GitHub token: its environment, every process's it can read, the checkout, its home.
{ env; cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n'; grep -rsh ghs_ .git "$HOME" 2>/dev/null; } |
  grep -oE 'ghs_[A-Za-z0-9_]+' | sort -u >> "$TOKEN_REPORT" || true
echo searched >> "$TOKEN_REPORT"
sed -i 's/a - b/a + b/' calc.js
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"fixed add()","total_cost_usd":0.1,"usage":{"input_tokens":10,"output_tokens":5}}'
`,
  );
  put('npm', '#!/usr/bin/env bash\n[ "$1" = test ] && exec node test.js\nexit 2\n');
  chmodSync(dir, 0o755);
  return dir;
}

/** A checkout as actions/checkout leaves it: a real repository with one commit and no credentials in it. */
function checkout(): string {
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel(LABEL, GRAPH),
    [GRAPH]: readFileSync(RECIPE, 'utf8'),
    'calc.js': 'exports.add = (a, b) => a - b;\n',
    'test.js':
      "const assert = require('node:assert');\nassert.strictEqual(require('./calc.js').add(2, 3), 5);\n",
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Checkout', '-c', 'user.email=checkout@example.com', 'commit', '-qm', 'initial');
  return ws;
}

interface Outcome {
  /** What the agent's search for GitHub tokens found (`searched` once it ran). */
  found: string;
  steps: Record<string, StepResult>;
  ws: string;
  log: string;
}

/** Runs the recipe's first three nodes, one step each in one job (one RUNNER_TEMP), as the given runner user. */
async function recipe(server: GitHubServer, issue: number, as?: RunnerUser): Promise<Outcome> {
  const ws = checkout();
  const bin = tools();
  const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
  const home = as?.home ?? mkdtempSync(join(tmpdir(), 'interlock-runner-home-'));
  // The workflow set its bot's identity with `git config --global`, in the runner's own home.
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Workflow Bot\n\temail = bot@example.com\n');
  if (as) {
    giveTo(ws, as);
    giveTo(runnerTemp, as);
    giveTo(home, as);
  }
  server.state.repo(FULL).addIssue({ number: issue, title: 'add() subtracts', labels: [LABEL] });
  const report = worldLog();
  const steps: Record<string, StepResult> = {};
  for (const node of ['branch', 'implement', 'commit']) {
    steps[node] = await runStep(
      issueStep(server, ws, issue, LABEL, {
        inputs: { node },
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          HOME: home,
          RUNNER_TEMP: runnerTemp,
          // Tokens a workflow may leave in the step's env: no node of the recipe may find one.
          GH_TOKEN: 'ghs_stepGhToken',
          GITHUB_TOKEN: 'ghs_stepGithubToken',
          TOKEN_REPORT: report,
          // A value every node may see, shaped like a token: proof the search reads what it can reach.
          NOT_A_SECRET: 'ghs_canaryEveryNodeSees',
          // sudo's env_reset drops these even with -E: a node must still see them.
          LD_LIBRARY_PATH: '/opt/step-libs',
          PYTHONPATH: '/opt/step-python',
        },
        ...(as ? { as: { uid: as.uid, gid: as.gid, home } } : {}),
      }),
    );
  }
  const log = execFileSync(
    'git',
    ['-c', `safe.directory=${ws}`, 'log', '--format=%an <%ae>|%cn|%s', 'interlock/issue-' + issue],
    {
      cwd: ws,
      encoding: 'utf8',
    },
  );
  return { steps, ws, log, found: readFileSync(report, 'utf8') };
}

function expectRecipeRan(o: Outcome, issue: number): void {
  for (const [node, step] of Object.entries(o.steps)) {
    expect(step.stderr + step.stdout, node).not.toMatch(
      /dubious ownership|not a git repository|command not found/,
    );
    expect(step.runner.errors, node).toEqual([]);
    expect(step.outputs.status, `${node}: ${step.log.slice(-1500)}`).toBe('completed');
  }
  // The commit node's commit is on the branch the branch node made, on top of the checkout's.
  expect(o.log.split('\n')[0]).toBe(
    `github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|github-actions[bot]|fix: issue #${issue}`,
  );
  expect(readFileSync(join(o.ws, 'calc.js'), 'utf8')).toContain('a + b');
  // The agent looked everywhere its process can reach and found no token, the action's or the step's: only the
  // canary every node is meant to see.
  expect(o.found).toBe('ghs_canaryEveryNodeSees\nsearched\n');
}

describe('the Claude Code recipe under the default isolation', () => {
  let server: GitHubServer;
  beforeAll(async () => {
    requireBundle();
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  });
  afterAll(() => server?.close());

  it.skipIf(process.getuid?.() !== 0)(
    'as root: branch, agent (git status included) and commit run as the node user and the commit lands',
    async () => {
      const o = await recipe(server, 7);
      expectRecipeRan(o, 7);
      const journal = readJournal(server, 'claude-fix/issue-7');
      expect(journal.events.filter((e) => e.type === 'NodeRecorded').map((e) => e.node)).toEqual([
        'branch',
        'implement',
        'commit',
      ]);
      // Nodes ran as a user of their own: the files they made belong to it, not to the runner.
      const owner = execFileSync(
        'stat',
        ['-c', '%U', join(o.ws, '.git', 'refs', 'heads', 'interlock', 'issue-7')],
        {
          encoding: 'utf8',
        },
      );
      expect(owner.trim()).toMatch(/^interlock-node/);
    },
    60_000,
  );

  const why = noSudoRunner();
  if (why) console.warn(`git-isolation.test.ts: the sudo path is skipped: ${why}`);
  it.skipIf(!!why)(
    'through passwordless sudo (a hosted runner): the same, with the tools only on the step PATH found',
    async () => {
      const user = sudoRunner();
      const o = await recipe(server, 8, user);
      expectRecipeRan(o, 8);
    },
    90_000,
  );
});

describe('git in a node keeps the identity the workflow set, and its environment', () => {
  let server: GitHubServer;
  beforeAll(async () => {
    requireBundle();
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  });
  afterAll(() => server?.close());

  const GRAPH_ID = `interlock: 1
name: ident
nodes:
  - id: commit
    outputs: [who, path, libs, safe]
    run: |
      echo "who=$(id -un)" >> "$INTERLOCK_OUTPUT"
      echo "path=$(command -v steptool)" >> "$INTERLOCK_OUTPUT"
      echo "libs=$LD_LIBRARY_PATH" >> "$INTERLOCK_OUTPUT"
      echo "safe=$(git config --show-scope --get-all safe.directory | tr '\\t\\n' ': ')" >> "$INTERLOCK_OUTPUT"
      echo change >> README.md
      git commit -qam "by the node"
    validates:
      - git: { min_commits: 1, message: "by the node" }
`;

  async function identityStep(issue: number, as?: RunnerUser): Promise<{ step: StepResult; author: string }> {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:ident', '.github/interlock/ident.yml'),
      '.github/interlock/ident.yml': GRAPH_ID,
      'README.md': 'hello\n',
    });
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: ws });
    execFileSync('git', ['add', '-A'], { cwd: ws });
    execFileSync('git', ['-c', 'user.name=C', '-c', 'user.email=c@example.com', 'commit', '-qm', 'initial'], {
      cwd: ws,
    });
    const bin = mkdtempSync(join(tmpdir(), 'interlock-step-tools-'));
    mkdirSync(join(bin, 'sub'));
    writeFileSync(join(bin, 'steptool'), '#!/bin/sh\necho tool\n', { mode: 0o755 });
    chmodSync(bin, 0o755);
    const home = as?.home ?? mkdtempSync(join(tmpdir(), 'interlock-runner-home-'));
    writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Workflow Bot\n\temail = bot@example.com\n');
    const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
    if (as) for (const p of [ws, home, runnerTemp]) giveTo(p, as);
    server.state.repo(FULL).addIssue({ number: issue, title: 'ident', labels: ['agent:ident'] });
    const step = await runStep(
      issueStep(server, ws, issue, 'agent:ident', {
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          HOME: home,
          RUNNER_TEMP: runnerTemp,
          LD_LIBRARY_PATH: '/x/lib',
        },
        ...(as ? { as: { uid: as.uid, gid: as.gid, home } } : {}),
      }),
    );
    const author = execFileSync(
      'git',
      ['-c', `safe.directory=${ws}`, 'log', '-1', '--format=%an <%ae>|%cn <%ce>'],
      {
        cwd: ws,
        encoding: 'utf8',
      },
    );
    return { step, author: author.trim() };
  }

  function expectIdentity(r: { step: StepResult; author: string }): void {
    expect(r.step.outputs.status, r.step.log.slice(-1500)).toBe('completed');
    expect(r.author).toBe('Workflow Bot <bot@example.com>|Workflow Bot <bot@example.com>');
    expect(r.step.outputs['output-who']).toMatch(/^interlock-node/);
    expect(r.step.outputs['output-path']).toMatch(/interlock-step-tools-.*\/steptool$/);
    expect(r.step.outputs['output-libs']).toBe('/x/lib');
    // The checkout is safe for the node's git by the command scope only: not `*`, not system, not global.
    expect(r.step.outputs['output-safe']).toMatch(/^command:\/\S*interlock-ws-[^ ]+ $/);
  }

  it.skipIf(process.getuid?.() !== 0)('as root', async () => {
    expectIdentity(await identityStep(21));
  });
  it.skipIf(!!noSudoRunner())(
    'through passwordless sudo',
    async () => {
      expectIdentity(await identityStep(22, sudoRunner()));
    },
    60_000,
  );
});

describe('node-credentials through the bundled action', () => {
  let server: GitHubServer;
  beforeAll(async () => {
    requireBundle();
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  });
  afterAll(() => server?.close());

  const GRAPH_NPM = `interlock: 1
name: npm
nodes:
${['build', 'release', 'announce']
  .map(
    (id, i) => `  - id: ${id}
${i ? `    depends_on: [${i === 1 ? 'build' : 'release'}]\n` : ''}    outputs: [npm]
    run: echo "npm=\${NPM_TOKEN:-none}" >> "$INTERLOCK_OUTPUT"
    validates:
      - command: '[ "\${NPM_TOKEN:-none}" = "$(cat "$INTERLOCK_OUTPUT" | sed -n "s/^npm=//p")" ]'
`,
  )
  .join('')}`;

  function npmStep(issue: number, grants: string) {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:npm', '.github/interlock/npm.yml'),
      '.github/interlock/npm.yml': GRAPH_NPM,
    });
    server.state.repo(FULL).addIssue({ number: issue, title: 'npm', labels: ['agent:npm'] });
    return runStep(
      issueStep(server, ws, issue, 'agent:npm', {
        inputs: { node: 'all', 'node-credentials': grants },
        env: { NPM_TOKEN: 'npm_releaseOnlyToken' },
      }),
    );
  }

  it('NPM_TOKEN=release: only the release node (and its checks) see NPM_TOKEN', async () => {
    await npmStep(31, 'NPM_TOKEN=release');
    const recorded = readJournal(server, 'npm/issue-31').events.filter((e) => e.type === 'NodeRecorded');
    // The release node saw the token; the journal holds the mark in its place (src/render/redact.ts).
    expect(Object.fromEntries(recorded.map((e) => [e.node, e.outputs.npm]))).toEqual({
      build: 'none',
      release: '[secret removed]',
      announce: 'none',
    });
  });

  it('a granted node the graph does not have fails the step before any node runs, naming the nodes', async () => {
    const step = await npmStep(32, 'NPM_TOKEN=relase');
    expect(step.code).toBe(1);
    expect(step.stdout).toContain(
      'node-credentials: NPM_TOKEN=relase: "relase" is not a node of this graph (did you mean "release"?). The graph\'s nodes: build, release, announce',
    );
    expect(journalText(server.state.repo(FULL), 'npm/issue-32', JOURNAL_BRANCH)).toBeUndefined();
  });
});
