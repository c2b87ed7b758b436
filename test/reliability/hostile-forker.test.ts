// The forking survivor (issue 34): a node leaves a process that starts a fresh copy of itself every few
// milliseconds and exits, so one pass that lists /proc and then kills always misses the newest copy. Through the
// bundled action, as root and through sudo (as GitHub's hosted runners run it): nothing of it runs after the
// node's script (the next node sees it still), nor after the step. Needs `npm run build`.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { DIST, makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const GRAPH_FILE = '.github/interlock/forker.yml';
// Each copy notes its pid in the beat file, starts the next one in a session of its own at once, and exits a
// little later: a fresh copy is born every few milliseconds, while the one before it still runs.
const FORKER = `echo "$$" >> "$1"
setsid bash "$0" "$1" < /dev/null > /dev/null 2>&1 &
sleep 0.01
`;
const graph = (forker: string) => `interlock: 1
name: forker
nodes:
  - id: plant
    run: |
      setsid bash ${forker} "$PWD/beat" < /dev/null > /dev/null 2>&1 &
      sleep 0.5
      test -s beat
  - id: later
    depends_on: [plant]
    outputs: [grew]
    run: |
      a=$(wc -c < beat); sleep 1; b=$(wc -c < beat)
      echo "grew=$((b - a))" >> "$INTERLOCK_OUTPUT"
`;

/** Running processes whose command line names `word`. */
function running(word: string): number[] {
  const found: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${e}/status`, 'utf8'))) continue;
      if (readFileSync(`/proc/${e}/cmdline`, 'latin1').includes(word)) found.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

interface Seen {
  step: StepResult;
  ws: string;
  forker: string;
  /** Bytes the beat file grew by in the 1.5 s after the step ended. */
  grewAfter: number;
  left: number[];
}

async function plantForker(server: GitHubServer, issue: number, viaSudo: boolean): Promise<Seen> {
  const forker = `forker-${randomBytes(4).toString('hex')}.sh`;
  server.state.repo(FULL).addIssue({ number: issue, title: 'Forker', labels: ['agent:forker'] });
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:forker', GRAPH_FILE),
    [GRAPH_FILE]: graph(forker),
    [forker]: FORKER,
  });
  let as: { as: { uid: number; gid: number; home: string } } | Record<string, never> = {};
  if (viaSudo) {
    const user = sudoRunner();
    giveTo(ws, user);
    as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
  }
  const step = await runStep(
    issueStep(server, ws, issue, 'agent:forker', {
      inputs: { node: 'all', isolation: 'user', 'node-user': 'interlock-forker' },
      ...as,
    }),
  );
  const beat = join(ws, 'beat');
  const before = existsSync(beat) ? statSync(beat).size : 0;
  await new Promise((r) => setTimeout(r, 1500));
  const grewAfter = (existsSync(beat) ? statSync(beat).size : 0) - before;
  return { step, ws, forker, grewAfter, left: running(forker) };
}

const cases: [string, boolean, number][] = [
  ['as root', false, 140],
  ['through sudo', true, 141],
];

describe.each(cases)('a node that leaves a forking survivor, %s', (how, viaSudo, issue) => {
  const skip = viaSudo ? noSudoRunner() : process.getuid?.() === 0 ? undefined : 'not root';
  let server: GitHubServer;
  let seen: Seen;
  beforeAll(async () => {
    if (skip) return;
    if (!existsSync(join(DIST, 'index.js')))
      throw new Error(`${DIST}/index.js is missing: run "npm run build" first`);
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    seen = await plantForker(server, issue, viaSudo);
  }, 90_000);
  afterAll(async () => {
    // Whatever a failing run left is not left for the next test.
    for (const pid of seen?.left ?? []) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await server?.close();
  });

  it.skipIf(!!skip)(`the survivor did run (${how}), and the step completed`, () => {
    expect(statSync(join(seen.ws, 'beat')).size, seen.step.stdout).toBeGreaterThan(0);
    expect(seen.step.outputs.status, seen.step.stdout).toBe('completed');
  });

  it.skipIf(!!skip)('nothing of it runs while the next node runs', () => {
    expect(seen.step.outputs['output-grew']).toBe('0');
  });

  it.skipIf(!!skip)('nothing of it runs after the step', () => {
    expect(seen.grewAfter).toBe(0);
    expect(seen.left).toEqual([]);
  });
});
