// A `.git` a node made anew is refused whichever node user made it (issue 34): two interlock steps of one job may
// hold different node users (another step on the machine held the first one's), and a `.git` owned by the first
// step's node user must not pass for one a workflow step made. Through the bundled action as root, the planting
// step held `interlock-forker` and the later step the default node user. Needs root and `npm run build`.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';

const GRAPH = '.github/interlock/hostile-git.yml';
const graph = `interlock: 1
name: hostile-git
nodes:
  - id: plant
    run: |
      mv .git .git-moved && git init -q && git config core.fsmonitor "$MARKS/planted.sh"
      git status --porcelain > /dev/null
  - id: granted
    depends_on: [plant]
    run: |
      git status --porcelain > /dev/null
      echo ran > "$MARKS/granted-ran"
`;

const asRoot = process.getuid?.() === 0;
if (!asRoot)
  console.warn('hostile-git-replaced.test.ts skipped: nodes run as a user of their own only as root');

describe.skipIf(!asRoot)('a .git made anew by a node under another node user', () => {
  let server: GitHubServer;
  let steps: StepResult[];
  let marks: string;
  beforeAll(async () => {
    requireBundle();
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    marks = mkdtempSync(join(tmpdir(), 'interlock-hostile-git-'));
    chmodSync(marks, 0o777);
    writeFileSync(join(marks, 'planted.sh'), `#!/bin/sh\necho ran > "${marks}/ran-$INTERLOCK_NODE"\n`, {
      mode: 0o755,
    });
    const ws = makeWorkspace({ '.github/interlock.yml': routeLabel('agent:git', GRAPH), [GRAPH]: graph });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('-c', 'user.name=Checkout', '-c', 'user.email=c@example.com', 'commit', '-qm', 'initial');
    const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
    server.state.repo(FULL).addIssue({ number: 450, title: 'new .git', labels: ['agent:git'] });
    steps = [];
    for (const [node, user] of [
      ['plant', 'interlock-forker'],
      ['granted', 'interlock-node'],
    ] as const)
      steps.push(
        await runStep(
          issueStep(server, ws, 450, 'agent:git', {
            inputs: { node, 'node-user': user },
            env: { MARKS: marks, RUNNER_TEMP: runnerTemp },
          }),
        ),
      );
  }, 60_000);
  afterAll(() => server?.close());

  it('is refused: nothing more runs in the checkout, and the planting ran only for its planter', () => {
    const ran = readdirSync(marks).filter((f) => f.startsWith('ran-'));
    expect(ran, steps[0]!.log.slice(-2000)).toEqual(['ran-plant']);
    expect(existsSync(join(marks, 'granted-ran'))).toBe(false);
    expect(steps[1]!.log).toMatch(/\.git was replaced by the node user/);
  });
});
