// One session across nodes under the default isolation, through the bundled action as root, with the real Claude
// Code CLI against the scripted model server: each script has a home of its own, yet the nodes of a session share
// its engine folder, so the second node resumes the first's conversation; and of what the first left in that
// folder, only the transcripts carry over (a settings file it planted, with a hook, is gone before the second).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep, worldLog } from '../support/action-process.js';
import { claudeBin, claudeEnv, GEMINI_MODEL, geminiBin, missing } from '../support/agent-clis.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

const GRAPH_FILE = '.github/interlock/sessions.yml';
const why =
  missing('claude') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);
if (why) console.warn(`isolated-session.test.ts skipped: ${why}`);

describe.skipIf(!!why)('a session under the default isolation', () => {
  let github: GitHubServer;
  let model: ModelServer;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
    model = await startModelServer({ script: [{ text: 'PLAN-ANSWER noted.' }, { text: 'BUILD-ANSWER' }] });
  });
  afterAll(async () => {
    await github?.close();
    await model?.close();
  });

  it("build resumes plan's conversation; what plan planted beside its transcript is gone", async () => {
    const marks = worldLog();
    const agent = [claudeBin!, '-p'].map(shellWord).join(' ');
    // plan's agent command also plants a settings file with a hook in the engine's folder, and records the
    // folder; build's records what is in the folder when it starts.
    const graph = `interlock: 1
name: sessions
defaults:
  engine: claude-code
nodes:
  - id: plan
    session: work
    agent: 'printf "{\\"hooks\\":{}}" > "$CLAUDE_CONFIG_DIR/settings.json"; ${agent.replace(/'/g, "''")}'
    prompt: PLAN-PROMPT remember the word kumquat.
  - id: build
    session: work
    depends_on: [plan]
    agent: 'ls -A "$CLAUDE_CONFIG_DIR" >> "$MARKS"; echo "home=$HOME dir=$CLAUDE_CONFIG_DIR" >> "$MARKS"; ${agent.replace(/'/g, "''")}'
    prompt: BUILD-PROMPT which word did I ask you to remember?
`;
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:s', GRAPH_FILE),
      [GRAPH_FILE]: graph,
    });
    github.state.repo(FULL).addIssue({ number: 5, title: 'sessions', labels: ['agent:s'] });
    const env = claudeEnv(model.url, '/nonexistent-runner-config');
    const step = await runStep(
      issueStep(github, ws, 5, 'agent:s', { inputs: { node: 'all' }, env: { ...env, MARKS: marks } }),
    );
    expect(step.outputs.status, step.log.slice(-2500)).toBe('completed');
    const j = readJournal(github, 'sessions/issue-5');
    const plan = eventsOf(j, 'NodeRecorded', 'plan')[0]!;
    const build = eventsOf(j, 'NodeRecorded', 'build')[0]!;
    expect(build.resumed_session).toBe(plan.session_id);
    // build's request carries plan's messages: the conversation went on, across two homes.
    const second = JSON.stringify(model.calls[1]?.body?.messages);
    expect(second).toContain('PLAN-PROMPT');
    expect(second).toContain('PLAN-ANSWER');
    const seen = readFileSync(marks, 'utf8');
    // Only the transcripts stayed: no settings.json (nor anything else plan's run left beside them).
    expect(seen.split('\n')[0]).toBe('projects');
    expect(seen).not.toContain('settings.json');
    // Each script had its own home; the session's folder is not inside it.
    expect(seen).toMatch(
      /home=\S*interlock-node-homes-\S+\/home-\S+ dir=\S*interlock-node-homes-\S+\/sessions\/work\/claude-code/,
    );
  }, 120_000);
});

const geminiWhy =
  missing('gemini') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);

describe.skipIf(!!geminiWhy)('a Gemini CLI session under the default isolation', () => {
  let github: GitHubServer;
  let model: ModelServer;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
    model = await startModelServer({ script: [{ text: 'PLAN-ANSWER noted.' }, { text: 'BUILD-ANSWER' }] });
  });
  afterAll(async () => {
    await github?.close();
    await model?.close();
  });

  it("build resumes plan's session; of .gemini only tmp/ stays, and settings.json is interlock's one setting", async () => {
    const marks = worldLog();
    const agent = [geminiBin!].map(shellWord).join(' ');
    // plan plants settings with a hook (its auth kept, so its own run works) and files of its own in Gemini CLI's
    // folder; build records what is there.
    const planted = '{"security":{"auth":{"selectedType":"gemini-api-key"}},"hooks":{}}';
    const plant = `mkdir -p "$GEMINI_CLI_HOME/.gemini"; printf %s '${planted}' > "$GEMINI_CLI_HOME/.gemini/settings.json"; touch "$GEMINI_CLI_HOME/.gemini/planted" "$GEMINI_CLI_HOME/planted"`;
    const look =
      'ls -A "$GEMINI_CLI_HOME" >> "$MARKS"; ls -A "$GEMINI_CLI_HOME/.gemini" >> "$MARKS"; cat "$GEMINI_CLI_HOME/.gemini/settings.json" >> "$MARKS"';
    const graph = `interlock: 1
name: sessions
defaults:
  engine: gemini
nodes:
  - id: plan
    session: work
    agent: '${plant.replace(/'/g, "''")}; ${agent}'
    prompt: PLAN-PROMPT remember the word kumquat.
  - id: build
    session: work
    depends_on: [plan]
    agent: '${look.replace(/'/g, "''")}; ${agent}'
    prompt: BUILD-PROMPT which word did I ask you to remember?
`;
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:g', GRAPH_FILE),
      [GRAPH_FILE]: graph,
    });
    github.state.repo(FULL).addIssue({ number: 6, title: 'sessions', labels: ['agent:g'] });
    const env = { GEMINI_API_KEY: 'scripted-gemini-key', GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_MODEL };
    const step = await runStep(
      issueStep(github, ws, 6, 'agent:g', { inputs: { node: 'all' }, env: { ...env, MARKS: marks } }),
    );
    expect(step.outputs.status, step.log.slice(-2500)).toBe('completed');
    const j = readJournal(github, 'sessions/issue-6');
    const plan = eventsOf(j, 'NodeRecorded', 'plan')[0]!;
    const build = eventsOf(j, 'NodeRecorded', 'build')[0]!;
    expect(build.resumed_session).toBe(plan.session_id);
    expect(build.session_id).toBe(plan.session_id);
    const second = JSON.stringify(model.calls[1]?.body?.contents);
    expect(second).toContain('PLAN-PROMPT');
    expect(second).toContain('PLAN-ANSWER');
    expect(readFileSync(marks, 'utf8').split('\n')).toEqual([
      '.gemini',
      'settings.json',
      'tmp',
      '{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false}}',
      '',
    ]);
  }, 180_000);
});
