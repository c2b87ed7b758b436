// The node user's home in the password database (issue 46): HOME is fresh per script, but ssh and git's ssh read
// the home `getent passwd` names. A `~/.ssh/config` with a ProxyCommand there, left by an earlier job (a self-hosted
// runner keeps it) or planted by an ungranted node, would run in a later node granted NPM_TOKEN and hand the token
// over. Through the bundled action, as root and through sudo, default isolation: the first node finds nothing
// there and cannot plant; the granted node's ssh reads no ProxyCommand and nothing is captured; after the step the
// planted file is gone, and so is the home itself (removed at the step's end). Needs root and `npm run build`.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { DIST, makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const GRAPH_FILE = '.github/interlock/home.yml';
const TOKEN = 'npm_homeGrantedToken';
const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };

/** An ssh config whose ProxyCommand writes the environment of the ssh that reads it into `capture`. */
const sshConfig = (capture: string) => `Host *\n  ProxyCommand sh -c 'env > ${capture}/env-$$; exit 1'\n`;

const graph = (capture: string) => `interlock: 1
name: home
nodes:
  - id: plant
    run: |
      h=$(getent passwd "$(id -u)" | cut -d: -f6)
      echo "$h" > home
      if [ -e "$h/.ssh/config" ]; then echo yes; else echo no; fi > plant-found
      if mkdir -p "$h/.ssh" 2>/dev/null && printf '%s' "$CONFIG" > "$h/.ssh/config" 2>/dev/null; then
        chmod 600 "$h/.ssh/config"; echo yes
      else echo no; fi > planted
    env:
      CONFIG: ${JSON.stringify(sshConfig(capture))}
  - id: later
    depends_on: [plant]
    run: |
      h=$(getent passwd "$(id -u)" | cut -d: -f6)
      if [ -e "$h/.ssh/config" ]; then echo yes; else echo no; fi > later-found
      ssh -G planted.invalid 2>&1 | grep -i '^proxycommand' > later-proxy || true
      git ls-remote ssh://git@planted.invalid/x.git > /dev/null 2>&1 || true
`;

/** The node user a case uses, made now (as interlock would) so that a leftover can be planted in its home first. */
function homeOf(name: string): string {
  try {
    execFileSync('id', ['-u', name], quiet);
  } catch {
    execFileSync('useradd', ['--create-home', '--user-group', '--shell', '/bin/bash', name], quiet);
  }
  return execFileSync('getent', ['passwd', name], quiet).split(':')[5]!;
}

interface Seen {
  step: StepResult;
  ws: string;
  home: string;
  capture: string;
  /** Whether the planted ssh config is there after the step. */
  leftAfter: boolean;
}

async function plantInHome(
  server: GitHubServer,
  issue: number,
  name: string,
  viaSudo: boolean,
): Promise<Seen> {
  const home = homeOf(name);
  const capture = mkdtempSync(join(tmpdir(), 'interlock-home-capture-'));
  chmodSync(capture, 0o1777);
  // What an earlier job left: the node user's own home (an earlier step of this suite removed it) and its
  // .ssh/config, as a node of that job planted it.
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh/config'), sshConfig(capture), { mode: 0o600 });
  execFileSync('chown', ['-R', `${name}:${name}`, home], quiet);
  chmodSync(home, 0o750);
  server.state.repo(FULL).addIssue({ number: issue, title: 'Home', labels: ['agent:home'] });
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:home', GRAPH_FILE),
    [GRAPH_FILE]: graph(capture),
  });
  let as: { as: { uid: number; gid: number; home: string } } | Record<string, never> = {};
  if (viaSudo) {
    const user = sudoRunner();
    giveTo(ws, user);
    as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
  }
  const step = await runStep(
    issueStep(server, ws, issue, 'agent:home', {
      inputs: { node: 'all', 'node-user': name, 'node-credentials': 'NPM_TOKEN=later' },
      env: { NPM_TOKEN: TOKEN },
      ...as,
    }),
  );
  return { step, ws, home, capture, leftAfter: existsSync(join(home, '.ssh/config')) };
}

const cases: [string, boolean, number, string][] = [
  ['as root', false, 146, 'interlock-home-r'],
  ['through sudo', true, 147, 'interlock-home-s'],
];

describe.each(cases)("a ProxyCommand in the node user's passwd home, %s", (how, viaSudo, issue, name) => {
  const skip = viaSudo ? noSudoRunner() : process.getuid?.() === 0 ? undefined : 'not root';
  let server: GitHubServer;
  let seen: Seen;
  const read = (file: string) => readFileSync(join(seen.ws, file), 'utf8').trim();
  beforeAll(async () => {
    if (skip) return;
    if (!existsSync(join(DIST, 'index.js')))
      throw new Error(`${DIST}/index.js is missing: run "npm run build" first`);
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    seen = await plantInHome(server, issue, name, viaSudo);
  }, 90_000);
  afterAll(async () => {
    if (seen) rmSync(seen.capture, { recursive: true, force: true });
    await server?.close();
  });

  it.skipIf(!!skip)(`the step completed (${how}), its nodes running as the node user`, () => {
    expect(seen.step.outputs.status, seen.step.stdout).toBe('completed');
    expect(read('home')).toBe(seen.home);
  });

  it.skipIf(!!skip)('the first node finds nothing an earlier job left there, and cannot plant', () => {
    expect(read('plant-found')).toBe('no');
    expect(read('planted')).toBe('no');
  });

  it.skipIf(!!skip)("the granted node's ssh reads no ProxyCommand", () => {
    expect(read('later-found')).toBe('no');
    expect(read('later-proxy')).toBe('');
  });

  it.skipIf(!!skip)("the granted node's token is captured nowhere", () => {
    const captured = execFileSync('sh', ['-c', `cat ${seen.capture}/* 2>/dev/null || true`], quiet);
    expect(captured).not.toContain(TOKEN);
    expect(execFileSync('ls', ['-A', seen.capture], quiet)).toBe('');
  });

  it.skipIf(!!skip)('after the step the home is gone, and the step says it removed it', () => {
    expect(seen.leftAfter).toBe(false);
    expect(existsSync(seen.home)).toBe(false);
    expect(seen.step.stdout).toContain(`interlock: removed the node user's home ${seen.home}`);
  });
});
