// The git guard owns every git folder of the checkout, a submodule's too (issue 46). Through the bundled action
// under the default isolation, in a checkout with a submodule (`.git/modules/sub`):
// - a node moves the submodule's git folder away and puts a link to a root-owned folder in its place; the guard
//   puts nothing back through the link (before, it deleted that folder's `hooks/keep-me` and `info/attributes`,
//   rewrote its `config` and wrote the sample hooks there, as root), the attempt fails naming the folder, and the
//   next node does not start;
// - a node that holds no token plants `core.fsmonitor` in the submodule's config and a pre-commit hook in its
//   hooks, and proves both run; in a later step the node granted GH_TOKEN, its `command` check and interlock's own
//   git run ordinary git in the checkout and the submodule, and none runs either.
// - a node adds a git folder of its own (a submodule's, `.git/modules/new`, or a worktree's, `.git/worktrees/wt`),
//   and a later node replaces it with a link to a root-owned folder: the guard met the new folder before the later
//   node ran and recorded it, so the swap fails the attempt naming it, and nothing is written through the link
//   (before, a git folder made after the job's first interlock step was never looked at);
// - a node adds a submodule, a second plants core.fsmonitor in its git folder, and the granted third runs git in
//   it: the planted command runs for the planter only.
// As root and through passwordless sudo (the runner's user, as on GitHub's hosted runners). Needs
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
import { ORDER_CLOCK } from '../support/clock.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const TOKEN = 'ghs_grantedNodeOnlyToken';
const GRAPH = '.github/interlock/hostile-git-modules.yml';
const SAFE = `-c safe.directory='*'`;

/**
 * A node makes a submodule `new` with a git folder of its own, `.git/modules/new`, laid out as `git submodule
 * absorbgitdirs` lays one out (the worktree `new` holds a `gitdir:` file).
 */
const ADD_SUBMODULE = `mkdir -p .git/modules && git ${SAFE} init -q --separate-git-dir "$PWD/.git/modules/new" new`;

/**
 * Ways to aim the guard at a root-owned folder: a link in the submodule's git folder's place, or on its way; and,
 * after a first node made a git folder of its own (a submodule's, a worktree's), a link in that one's place.
 */
const SWAPS = [
  {
    name: "a link in the submodule's git folder's place",
    run: 'mv .git/modules/sub .git/modules/sub.moved && ln -s "$ROOT_DIR/sub" .git/modules/sub',
    folder: '.git/modules/sub',
  },
  {
    name: 'a link on the way to it (.git/modules)',
    run: 'mv .git/modules .git/modules.moved && ln -s "$ROOT_DIR" .git/modules',
    folder: '.git/modules/sub',
  },
  {
    name: 'a link in the place of a submodule git folder a node made',
    add: ADD_SUBMODULE,
    run: 'mv .git/modules/new .git/modules/new.moved && ln -s "$ROOT_DIR/sub" .git/modules/new',
    folder: '.git/modules/new',
  },
  {
    name: 'a link in the place of a worktree git folder a node made',
    add: `git ${SAFE} worktree add -q "$MARKS/wt"`,
    run: 'mv .git/worktrees/wt .git/worktrees/wt.moved && ln -s "$ROOT_DIR/sub" .git/worktrees/wt',
    folder: '.git/worktrees/wt',
  },
];

const swapGraph = (run: string, add?: string) => `interlock: 1
name: hostile-git-modules
nodes:
${add ? `  - id: add\n    run: ${add}\n` : ''}  - id: swap
${add ? '    depends_on: [add]\n' : ''}    run: ${run}
  - id: later
    depends_on: [swap]
    run: echo ran > "$MARKS/later-ran"
`;

/** A node adds a submodule, the next plants a command in its git folder's config, the granted last runs git there. */
const newPlantGraph = `interlock: 1
name: hostile-git-modules
nodes:
  - id: add
    run: ${ADD_SUBMODULE}
  - id: plant
    depends_on: [add]
    run: |
      git ${SAFE} -C new config core.fsmonitor "$MARKS/fsmonitor.sh"
      git ${SAFE} -C new status --porcelain > /dev/null
  - id: later
    depends_on: [plant]
    run: |
      git ${SAFE} -C new status --porcelain > /dev/null
      echo "token-seen=$([ -n "$GH_TOKEN" ] && echo yes || echo no)" > "$MARKS/later-ran"
`;

const plantGraph = `interlock: 1
name: hostile-git-modules
nodes:
  - id: plant
    run: |
      git ${SAFE} -C sub config core.fsmonitor "$MARKS/fsmonitor.sh"
      cp "$MARKS/hook.sh" .git/modules/sub/hooks/pre-commit && chmod +x .git/modules/sub/hooks/pre-commit
      git ${SAFE} -C sub status --porcelain > /dev/null
      git ${SAFE} -C sub commit -q --allow-empty -m "the planter's commit"
  - id: granted
    depends_on: [plant]
    run: |
      git ${SAFE} status --porcelain > /dev/null
      git ${SAFE} -C sub status --porcelain > /dev/null
      git ${SAFE} -C sub commit -q --allow-empty -m "the granted node's commit"
      git commit -q --allow-empty -m "the granted node's commit"
      echo "token-seen=$([ -n "$GH_TOKEN" ] && echo yes || echo no)" > "$MARKS/granted-ran"
    validates:
      - command: |
          WHO=check; export WHO
          git ${SAFE} status --porcelain > /dev/null
          git ${SAFE} -C sub status --porcelain > /dev/null
      - git: { min_commits: 1 }
`;

/** Every entry below `root`: its path, kind, mode, owner and bytes. */
function tree(root: string): string[] {
  const out: string[] = [];
  const visit = (p: string, rel: string) => {
    const st = lstatSync(p);
    const body = st.isFile() ? readFileSync(p, 'utf8') : '';
    out.push(`${rel} ${st.isDirectory() ? 'd' : 'f'} ${(st.mode & 0o7777).toString(8)} ${st.uid} ${body}`);
    if (st.isDirectory()) for (const e of readdirSync(p).sort()) visit(join(p, e), `${rel}/${e}`);
  };
  visit(root, '.');
  return out;
}

/** The submodule's origin repository. */
function originRepo(): string {
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });
  const origin = mkdtempSync(join(tmpdir(), 'interlock-sub-origin-'));
  git(origin, 'init', '-q', '-b', 'main');
  writeFileSync(join(origin, 'lib.txt'), 'lib\n');
  git(origin, 'add', '-A');
  git(origin, '-c', 'user.name=Lib', '-c', 'user.email=lib@example.com', 'commit', '-qm', 'lib');
  execFileSync('chmod', ['-R', 'a+rX', origin]);
  return origin;
}

/** A checkout with a submodule `sub` (its git folder `.git/modules/sub`), holding the graph `graph`. */
function checkout(graph: string): string {
  const origin = originRepo();
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });
  const id = ['-c', 'user.name=Checkout', '-c', 'user.email=c@example.com'];
  const ws = makeWorkspace({ '.github/interlock.yml': routeLabel('agent:git', GRAPH), [GRAPH]: graph });
  git(ws, 'init', '-q', '-b', 'main');
  git(ws, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', origin, 'sub');
  git(ws, 'add', '-A');
  git(ws, ...id, 'commit', '-qm', 'initial');
  git(ws, 'config', 'user.name', 'Checkout');
  git(ws, 'config', 'user.email', 'c@example.com');
  git(join(ws, 'sub'), 'config', 'user.name', 'Sub');
  git(join(ws, 'sub'), 'config', 'user.email', 'sub@example.com');
  return ws;
}

const setups = [
  { name: 'as root', sudo: false, issue: 470, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  { name: 'through passwordless sudo', sudo: true, issue: 471, skip: noSudoRunner() },
];

/** Runs `nodes` of the checkout `ws`, one step each, as the setup says; the step results. */
async function play(
  server: GitHubServer,
  ws: string,
  setup: (typeof setups)[number],
  issue: number,
  nodes: string[],
  env: Record<string, string>,
): Promise<StepResult[]> {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
  let as = {};
  if (setup.sudo) {
    const user = sudoRunner();
    giveTo(ws, user);
    giveTo(runnerTemp, user);
    as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
  }
  server.state.repo(FULL).addIssue({ number: issue, title: 'submodules', labels: ['agent:git'] });
  const steps: StepResult[] = [];
  for (const node of nodes)
    steps.push(
      await runStep(
        issueStep(server, ws, issue, 'agent:git', {
          inputs: { node, 'node-credentials': `GH_TOKEN=${nodes.includes('all') ? 'later' : 'granted'}` },
          env: { ...env, GH_TOKEN: TOKEN, RUNNER_TEMP: runnerTemp },
          ...as,
        }),
      ),
    );
  return steps;
}

/** A root-owned folder holding `sub`, laid out as a git folder: what the guard would "put back" through a link. */
function rootOwned(): string {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-root-owned-'));
  chmodSync(dir, 0o755);
  const sub = join(dir, 'sub');
  mkdirSync(join(sub, 'hooks'), { recursive: true, mode: 0o755 });
  mkdirSync(join(sub, 'info'), { mode: 0o755 });
  writeFileSync(join(sub, 'hooks', 'keep-me'), 'root keeps this\n', { mode: 0o644 });
  writeFileSync(join(sub, 'info', 'attributes'), '* -text\n', { mode: 0o644 });
  writeFileSync(join(sub, 'config'), '[core]\n\tbare = true\n', { mode: 0o600 });
  return dir;
}

/** A folder every node user may write, for a graph's marks. */
function marksDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-git-modules-'));
  chmodSync(dir, 0o777);
  return dir;
}

/** `dir` with the commands a node plants: each writes the token it sees to `ran-<what>-<who>` there. */
function withScripts(dir: string): string {
  for (const what of ['fsmonitor', 'hook'])
    writeFileSync(
      join(dir, `${what}.sh`),
      `#!/bin/sh\necho "\${GH_TOKEN:-none}" > "${dir}/ran-${what}-\${WHO:-$INTERLOCK_NODE}"\ncat > /dev/null 2>&1 || true\n`,
      { mode: 0o755 },
    );
  return dir;
}

interface Swapped {
  step: StepResult;
  marks: string;
  root: string;
  before: string[];
}

describe.each(setups)('a git folder of a submodule, $name', (setup) => {
  let server: GitHubServer;
  const marks = marksDir();
  const newMarks = marksDir();
  const swapped: Swapped[] = [];
  let plant: StepResult[];
  let newPlant: StepResult;
  beforeAll(async () => {
    if (setup.skip) return;
    requireBundle();
    withScripts(marks);
    withScripts(newMarks);
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
    for (const [i, s] of SWAPS.entries()) {
      const root = rootOwned();
      const before = tree(root);
      const m = marksDir();
      const [step] = await play(server, checkout(swapGraph(s.run, s.add)), setup, setup.issue + i, ['all'], {
        MARKS: m,
        ROOT_DIR: root,
      });
      swapped.push({ step: step!, marks: m, root, before });
    }
    plant = await play(server, checkout(plantGraph), setup, setup.issue + 10, ['plant', 'granted'], {
      MARKS: marks,
    });
    [newPlant] = (await play(server, checkout(newPlantGraph), setup, setup.issue + 11, ['all'], {
      MARKS: newMarks,
    })) as [StepResult];
  }, 300_000);
  afterAll(() => server?.close());

  it.skipIf(setup.skip).each(SWAPS.map((s, i) => [s.name, i] as const))(
    '%s: never restored through; the linked folder is unchanged, the attempt fails naming it, the next node does not start',
    (_name, i) => {
      const { step, marks: m, root, before } = swapped[i]!;
      expect(tree(root), step.log.slice(-3000)).toEqual(before);
      // The node's result says what was refused: the later node's attempts fail naming the folder, and it waits for
      // a person.
      const folder = SWAPS[i]!.folder.replaceAll('.', '\\.').replaceAll('/', '\\/');
      expect(step.summary, step.log.slice(-3000)).toMatch(
        new RegExp(`\\| later \\| escalated \\|[^\\n]*${folder} is not the git folder interlock saw`),
      );
      expect(existsSync(join(m, 'later-ran'))).toBe(false);
      expect(step.outputs.status, step.log.slice(-3000)).toBe('escalated');
    },
  );

  it.skipIf(setup.skip)(
    'planted config and hooks run for the node that planted them, never for the granted node, its check or interlock',
    () => {
      const ran = readdirSync(marks)
        .filter((f) => f.startsWith('ran-'))
        .sort();
      expect(ran, plant[0]!.log.slice(-3000)).toEqual(['ran-fsmonitor-plant', 'ran-hook-plant']);
      for (const f of ran) expect(readFileSync(join(marks, f), 'utf8')).not.toContain(TOKEN);
      expect(plant[1]!.outputs.status, plant[1]!.log.slice(-3000)).toBe('completed');
      expect(readFileSync(join(marks, 'granted-ran'), 'utf8')).toContain('token-seen=yes');
      expect(plant[1]!.log).toMatch(/put back [^\n]*\.git\/modules\/sub\/config/);
    },
  );

  it.skipIf(setup.skip)(
    'a submodule a node added: what a later node plants in its git folder runs for the planter, never for the granted node',
    () => {
      const ran = readdirSync(newMarks).filter((f) => f.startsWith('ran-'));
      expect(ran, newPlant.log.slice(-3000)).toEqual(['ran-fsmonitor-plant']);
      expect(readFileSync(join(newMarks, 'ran-fsmonitor-plant'), 'utf8')).not.toContain(TOKEN);
      expect(newPlant.outputs.status, newPlant.log.slice(-3000)).toBe('completed');
      expect(readFileSync(join(newMarks, 'later-ran'), 'utf8')).toContain('token-seen=yes');
      expect(newPlant.log).toMatch(/put back [^\n]*\.git\/modules\/new\/config/);
    },
  );
});
