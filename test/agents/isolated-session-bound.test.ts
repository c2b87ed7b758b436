// A session's transcripts are written by the nodes of that session alone (issue 46). Every node of a step runs
// as the same node user, so a node outside the session can find the session's folder beside its own home and
// rewrite the conversation the session's next node resumes. Each attempt of a session records the SHA-256 of the
// transcripts folder as its agent left it (`transcripts_sha256`); the next node resumes only a folder that still
// hashes to it. Through the bundled action as root and through passwordless sudo, with the real Claude Code CLI
// against the scripted model server: `meddle`, outside the session, rewrites plan's transcript between plan and
// build; build does not resume it, says why, and the model never sees the forged words.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, worldLog } from '../support/action-process.js';
import { claudeBin, claudeEnv, missing } from '../support/agent-clis.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const GRAPH_FILE = '.github/interlock/sessions.yml';
const why =
  missing('claude') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);
if (why) console.warn(`isolated-session-bound.test.ts skipped: ${why}`);
const noSudo = noSudoRunner();
if (noSudo) console.warn(`isolated-session-bound.test.ts: the sudo case skipped: ${noSudo}`);
const SETUPS = [
  { setup: 'as root', issue: 6, sudo: false },
  ...(noSudo ? [] : [{ setup: 'through passwordless sudo', issue: 7, sudo: true }]),
];

describe.skipIf(!!why)("a session's transcript rewritten by a node outside the session", () => {
  let github: GitHubServer;
  let model: ModelServer | undefined;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  });
  afterAll(async () => {
    await github?.close();
    await model?.close();
  });

  it.each(SETUPS)(
    '$setup: is not resumed; the next node of the session starts afresh, saying why, and the forged words reach no model',
    async ({ issue, sudo }) => {
      await model?.close();
      model = await startModelServer({ script: [{ text: 'PLAN-ANSWER noted.' }, { text: 'BUILD-ANSWER' }] });
      const marks = worldLog();
      const agent = [claudeBin!, '-p'].map(shellWord).join(' ').replace(/'/g, "''");
      const graph = `interlock: 1
name: sessions
defaults:
  engine: claude-code
nodes:
  - id: plan
    session: work
    agent: '${agent}'
    prompt: PLAN-PROMPT remember the word kumquat.
  - id: meddle
    depends_on: [plan]
    run: |
      n=0
      for f in $(find "$(dirname "$HOME")/sessions/work/claude-code/projects" -name '*.jsonl'); do
        sed -i 's/kumquat/FORGED-WORD/g' "$f" && n=$((n + 1))
      done
      echo "meddled=$n" >> "$MARKS"
  - id: build
    session: work
    depends_on: [meddle]
    agent: '${agent}'
    prompt: BUILD-PROMPT which word did I ask you to remember?
`;
      const ws = makeWorkspace({
        '.github/interlock.yml': routeLabel('agent:s', GRAPH_FILE),
        [GRAPH_FILE]: graph,
      });
      github.state.repo(FULL).addIssue({ number: issue, title: 'sessions', labels: ['agent:s'] });
      const env: Record<string, string> = {
        ...claudeEnv(model.url, '/nonexistent-runner-config'),
        MARKS: marks,
      };
      let as = {};
      if (sudo) {
        // As a hosted runner runs the action: the checkout, the job's temporary folder and the home are the runner's.
        const user = sudoRunner();
        const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
        for (const p of [ws, runnerTemp, user.home]) giveTo(p, user);
        Object.assign(env, { RUNNER_TEMP: runnerTemp, HOME: user.home });
        as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
      }
      const step = await runStep(
        issueStep(github, ws, issue, 'agent:s', { inputs: { node: 'all' }, env, ...as }),
      );
      expect(step.outputs.status, step.log.slice(-2500)).toBe('completed');
      // The rewrite happened: meddle found plan's transcript and changed it.
      expect(readFileSync(marks, 'utf8')).toMatch(/meddled=[1-9]/);
      const j = readJournal(github, `sessions/issue-${issue}`);
      const plan = eventsOf(j, 'NodeRecorded', 'plan')[0]!;
      const build = eventsOf(j, 'NodeRecorded', 'build')[0]!;
      expect(plan.transcripts_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(build.resumed_session, step.log.slice(-2500)).toBeUndefined();
      expect(step.log).toMatch(
        /session "work": its transcripts are not as the session's last attempt left them \(SHA-256 [0-9a-f]{12}…, the journal recorded [0-9a-f]{12}…\): a node outside the session changed them, so "build" does not resume session/,
      );
      // build's request carries nothing of the rewritten conversation.
      const second = JSON.stringify(model.calls[1]?.body?.messages);
      expect(second).toContain('BUILD-PROMPT');
      expect(second).not.toContain('FORGED-WORD');
      expect(second).not.toContain('PLAN-PROMPT');
    },
    120_000,
  );
});
