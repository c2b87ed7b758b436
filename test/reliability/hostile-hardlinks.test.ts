// A hard link left in the workspace is not handed to the node user (issue 46). Where `fs.protected_hardlinks` is
// 0 a node can link a root-only file into the workspace; the next step's share of the workspace then gave that
// file the node user's group and made it group-readable and writable. Here the link is made by the test (this
// machine has the protection on), as a node would have. Through the bundled action under the default isolation,
// as root and through passwordless sudo: the linked file keeps its owner, group, mode and bytes, the node cannot
// read it, the step says which file it left as it was, and every other file is handed over. A file of another
// owner (a uid that is neither the runner's user, the workspace's owner nor a node user) is not handed over
// either. Needs `npm run build`.
import { chmodSync, chownSync, linkSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const GRAPH = '.github/interlock/hostile-hardlinks.yml';
const graph = `interlock: 1
name: hostile-hardlinks
nodes:
  - id: reader
    run: |
      { cat linked 2>/dev/null || echo refused; } > "$MARKS/read"
      { echo node-was-here >> linked 2>/dev/null && echo wrote || echo refused; } > "$MARKS/write"
      { cat foreign 2>/dev/null || echo refused; } > "$MARKS/read-foreign"
      { echo node-was-here >> foreign 2>/dev/null && echo wrote || echo refused; } > "$MARKS/write-foreign"
      echo shared > ordinary.txt
`;

/** A uid no account of this machine has: the owner of a file another account left in the workspace. */
const FOREIGN_UID = 4242;

const setups = [
  { name: 'as root', sudo: false, issue: 480, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  { name: 'through passwordless sudo', sudo: true, issue: 481, skip: noSudoRunner() },
];

const ownerModeBytes = (p: string) => {
  const st = statSync(p);
  return `${st.uid}:${st.gid} ${(st.mode & 0o7777).toString(8)} ${st.nlink} ${readFileSync(p, 'utf8')}`;
};

describe.each(setups)('a hard link left in the workspace, $name', (setup) => {
  let server: GitHubServer;
  let step: StepResult;
  let marks: string;
  let target: string;
  let before: string;
  let foreign: string;
  let foreignBefore: string;
  beforeAll(async () => {
    if (setup.skip) return;
    requireBundle();
    marks = mkdtempSync(join(tmpdir(), 'interlock-hardlinks-'));
    chmodSync(marks, 0o777);
    const outside = mkdtempSync(join(tmpdir(), 'interlock-root-only-'));
    target = join(outside, 'secret');
    writeFileSync(target, 'root only\n', { mode: 0o600 });
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:links', GRAPH),
      [GRAPH]: graph,
      'ordinary.txt': 'ordinary\n',
    });
    const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
    let as = {};
    if (setup.sudo) {
      const user = sudoRunner();
      giveTo(ws, user);
      giveTo(runnerTemp, user);
      as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
    }
    // After the checkout is the runner's: chown -R would give the linked file away too.
    linkSync(target, join(ws, 'linked'));
    before = ownerModeBytes(target);
    // A file of another owner (root's through sudo, a docker step's, another account's): not the runner's to give.
    writeFileSync(join(ws, 'foreign'), "not the runner user's\n", { mode: 0o600 });
    chownSync(join(ws, 'foreign'), FOREIGN_UID, FOREIGN_UID);
    foreign = join(ws, 'foreign');
    foreignBefore = ownerModeBytes(foreign);
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: setup.issue, title: 'hard links', labels: ['agent:links'] });
    step = await runStep(
      issueStep(server, ws, setup.issue, 'agent:links', {
        inputs: { node: 'reader' },
        env: { MARKS: marks, RUNNER_TEMP: runnerTemp },
        ...as,
      }),
    );
  }, 120_000);
  afterAll(() => server?.close());

  it.skipIf(setup.skip)(
    'is not handed over: the file it names is unchanged and unreadable to the node, and the step names it',
    () => {
      expect(ownerModeBytes(target), step.log.slice(-3000)).toBe(before);
      expect(readFileSync(join(marks, 'read'), 'utf8')).toBe('refused\n');
      expect(readFileSync(join(marks, 'write'), 'utf8')).toBe('refused\n');
      expect(step.outputs.status, step.log.slice(-3000)).toBe('completed');
      expect(step.runner.annotations.map((a) => a.message).join('\n')).toMatch(
        /left [^\n]*\/linked[, ][^\n]*in the workspace as it was, not handed to node-user/,
      );
    },
  );

  it.skipIf(setup.skip)(
    'a file of another owner is not handed over: it keeps owner, group and mode, the node cannot read it, the step names it',
    () => {
      expect(ownerModeBytes(foreign), step.log.slice(-3000)).toBe(foreignBefore);
      expect(readFileSync(join(marks, 'read-foreign'), 'utf8')).toBe('refused\n');
      expect(readFileSync(join(marks, 'write-foreign'), 'utf8')).toBe('refused\n');
      expect(step.runner.annotations.map((a) => a.message).join('\n')).toMatch(
        /left [^\n]*\/foreign[, ][^\n]*in the workspace as it was, not handed to node-user/,
      );
    },
  );
});
