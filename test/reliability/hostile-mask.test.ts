// The node's own output in the step log (issue 46): what a node prints goes to the step's log as it is, inside
// stop-commands. A node granted GH_TOKEN prints it, a line of a granted multi-line key, and the token's base64;
// the runner, told before any node ran to mask each of them, shows `***` wherever they stand. The log is read as
// the runner reads it (each `::add-mask::` masks every later line), through the bundled action, as root and
// through sudo. Needs `npm run build`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, OWNER, REPO, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, type StepResult } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const TOKEN = 'ghs_maskedGrantedToken42';
const KEY_LINE = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC';
const KEY = `-----BEGIN PRIVATE KEY-----\n${KEY_LINE}\n-----END PRIVATE KEY-----`;
const GRAPH = '.github/interlock/mask.yml';

const graph = `interlock: 1
name: mask
nodes:
  - id: leak
    run: |
      echo "the token is $GH_TOKEN"
      printf '%s\\n' "$DEPLOY_KEY"
      printf 'x%s' "$GH_TOKEN" | base64
      echo "$GH_TOKEN" >&2
`;

/** The log as the runner shows it: each `::add-mask::` value is masked in every line after it. */
function shown(log: string): string {
  const masks: string[] = [];
  const out: string[] = [];
  for (const line of log.split(/\r?\n/)) {
    const m = /^::add-mask::(.*)$/.exec(line);
    if (m) masks.push(m[1]!.replace(/%0D/g, '\r').replace(/%25/g, '%'));
    else out.push(masks.reduce((l, v) => (v ? l.split(v).join('***') : l), line));
  }
  return out.join('\n');
}

const setups = [
  { name: 'as root', sudo: false, issue: 560, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  { name: 'through passwordless sudo', sudo: true, issue: 561, skip: noSudoRunner() },
];

describe.each(setups)("a granted secret a node prints, in the step's log, $name", (setup) => {
  let server: GitHubServer;
  let step: StepResult;
  beforeAll(async () => {
    if (setup.skip) return;
    requireBundle();
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: setup.issue, title: 'mask', labels: ['agent:mask'] });
    const ws = makeWorkspace({ '.github/interlock.yml': routeLabel('agent:mask', GRAPH), [GRAPH]: graph });
    const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
    let as = {};
    if (setup.sudo) {
      const user = sudoRunner();
      giveTo(ws, user);
      giveTo(runnerTemp, user);
      as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
    }
    step = await runStep(
      issueStep(server, ws, setup.issue, 'agent:mask', {
        inputs: { node: 'all', 'node-credentials': 'GH_TOKEN=leak DEPLOY_KEY=leak' },
        env: { GH_TOKEN: TOKEN, DEPLOY_KEY: KEY, RUNNER_TEMP: runnerTemp },
        ...as,
      }),
    );
  }, 120_000);
  afterAll(() => server?.close());

  it.skipIf(setup.skip)('the node printed them (the raw log holds them)', () => {
    expect(step.outputs.status, step.log.slice(-3000)).toBe('completed');
    expect(step.log).toContain(`the token is ${TOKEN}`);
    expect(step.log).toContain(KEY_LINE);
  });

  it.skipIf(setup.skip)('the log the runner shows holds none of them, nor the base64 of the token', () => {
    const log = shown(step.log);
    expect(log).toContain('the token is ***');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(KEY_LINE);
    const b64 = Buffer.from(`x${TOKEN}`).toString('base64');
    expect(step.log).toContain(b64);
    expect(log).not.toContain(b64.slice(4, 28));
  });
});
