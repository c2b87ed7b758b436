// A session's transcripts are written by the nodes of that session alone (issue 46). Every node of a step runs
// as the same node user, so a node outside the session can find the session's folder beside its own home and
// rewrite the conversation the session's next node resumes. Each attempt of a session records the SHA-256 of the
// transcripts folder as its agent left it (`transcripts_sha256`); the next node resumes only a folder that still
// hashes to it. Through the bundled action as root, with the real Claude Code CLI against the scripted model
// server: `meddle`, outside the session, rewrites plan's transcript between plan and build; build does not resume
// it, says why, and the model never sees the forged words.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, worldLog } from '../support/action-process.js';
import { claudeBin, claudeEnv, missing } from '../support/agent-clis.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

const GRAPH_FILE = '.github/interlock/sessions.yml';
const why =
  missing('claude') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);
if (why) console.warn(`isolated-session-bound.test.ts skipped: ${why}`);

describe.skipIf(!!why)("a session's transcript rewritten by a node outside the session", () => {
  let github: GitHubServer;
  let model: ModelServer;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    model = await startModelServer({ script: [{ text: 'PLAN-ANSWER noted.' }, { text: 'BUILD-ANSWER' }] });
  });
  afterAll(async () => {
    await github?.close();
    await model?.close();
  });

  it('is not resumed: the next node of the session starts afresh, saying why, and the forged words reach no model', async () => {
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
    github.state.repo(FULL).addIssue({ number: 6, title: 'sessions', labels: ['agent:s'] });
    const env = claudeEnv(model.url, '/nonexistent-runner-config');
    const step = await runStep(
      issueStep(github, ws, 6, 'agent:s', { inputs: { node: 'all' }, env: { ...env, MARKS: marks } }),
    );
    expect(step.outputs.status, step.log.slice(-2500)).toBe('completed');
    // The rewrite happened: meddle found plan's transcript and changed it.
    expect(readFileSync(marks, 'utf8')).toMatch(/meddled=[1-9]/);
    const j = readJournal(github, 'sessions/issue-6');
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
  }, 120_000);
});
