// The real Claude Code CLI as a node with `network:` (issue 27), under the default isolation, through the bundled
// action as root, against the scripted model server on 127.0.0.2. Under the defaults the key proxy holds the model
// key and the engine's API is always reachable through it: a node with nothing allowed still gets its answer, while
// its own commands reach nothing. With the key proxy off (`agent-credentials: ""`), the allowlist alone decides:
// with the model's host allowed the agent answers through the egress proxy (it reads HTTP_PROXY itself), and the
// journal shows the one host it asked for; with nothing allowed it cannot reach the model at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { claudeBin, claudeEnv, copilotBin, GEMINI_MODEL, geminiBin, missing } from '../support/agent-clis.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

const GRAPH_FILE = '.github/interlock/agent-network.yml';
const why =
  missing('claude') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);
if (why) console.warn(`agents/network.test.ts skipped: ${why}`);

describe.skipIf(!!why)('Claude Code as a node with network: under the defaults (the key proxy on)', () => {
  let github: GitHubServer;
  let model: ModelServer;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
    model = await startModelServer({ host: '127.0.0.2', script: [{ text: 'THROUGH-THE-KEY-PROXY' }] });
  });
  afterAll(async () => {
    await github?.close();
    await model?.close();
  });

  it('reaches the model through the key proxy with nothing allowed; its own commands reach nothing', async () => {
    const agent = [claudeBin!, '-p', '--output-format', 'json'].map(shellWord).join(' ');
    const url = `${model.url}/v1/messages`;
    const graph = `interlock: 1
name: agent-network
defaults:
  network: { allow: [] }
nodes:
  - id: agent
    engine: claude-code
    agent: '${agent.replace(/'/g, "''")}'
    prompt: say something.
  - id: direct
    depends_on: [agent]
    run: node -e "fetch('${url}').then(() => process.exit(0), () => process.exit(3))"
`;
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:n', GRAPH_FILE),
      [GRAPH_FILE]: graph,
    });
    github.state.repo(FULL).addIssue({ number: 5, title: 'network', labels: ['agent:n'] });
    const env = claudeEnv(model.url, '/nonexistent-runner-config');
    const step = await runStep(issueStep(github, ws, 5, 'agent:n', { inputs: { node: 'all' }, env }));
    const j = readJournal(github, 'agent-network/issue-5');
    const answered = eventsOf(j, 'NodeRecorded', 'agent')[0];
    expect(answered, step.log.slice(-3000)).toBeDefined();
    expect(answered!.final_message).toBe('THROUGH-THE-KEY-PROXY');
    // The model server saw the real key, from the key proxy, not from the node.
    expect(model.requests.some((r) => r.headers['x-api-key'] === env.ANTHROPIC_API_KEY)).toBe(true);
    expect(answered!.connections ?? []).toEqual([]);
    // The same host, asked by the node's own command, is out of reach: the namespace has no way out.
    expect(eventsOf(j, 'NodeRecorded', 'direct')).toEqual([]);
    expect(eventsOf(j, 'NodeFailed', 'direct')[0]?.failures[0]?.message).toMatch(/exit(ed)? (code )?3/);
  }, 240_000);
});

describe.skipIf(!!why)('Claude Code as a node with network:, the key proxy off', () => {
  let github: GitHubServer;
  let model: ModelServer;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
    model = await startModelServer({ host: '127.0.0.2', script: [{ text: 'ALLOWED-ANSWER' }] });
  });
  afterAll(async () => {
    await github?.close();
    await model?.close();
  });

  it('reaches the allowed model through the proxy, and nothing reaches it with nothing allowed', async () => {
    const agent = [claudeBin!, '-p', '--output-format', 'json'].map(shellWord).join(' ');
    const graph = `interlock: 1
name: agent-network
defaults:
  engine: claude-code
  agent: '${agent.replace(/'/g, "''")}'
nodes:
  - id: allowed
    network: { allow: [127.0.0.2] }
    prompt: ALLOWED-PROMPT say something.
  - id: cut-off
    depends_on: [allowed]
    network: { allow: [] }
    timeout_minutes: 2
    prompt: CUT-OFF-PROMPT say something.
    retry: [{ prompt: CUT-OFF-PROMPT again. }]
`;
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:n', GRAPH_FILE),
      [GRAPH_FILE]: graph,
    });
    github.state.repo(FULL).addIssue({ number: 6, title: 'network', labels: ['agent:n'] });
    const env = claudeEnv(model.url, '/nonexistent-runner-config');
    // The key proxy off: this test is about the allowlist alone deciding whether the model's host is reached.
    const inputs = { node: 'all', 'agent-credentials': '' };
    const step = await runStep(issueStep(github, ws, 6, 'agent:n', { inputs, env }));
    const j = readJournal(github, 'agent-network/issue-6');
    const allowed = eventsOf(j, 'NodeRecorded', 'allowed')[0];
    expect(allowed, step.log.slice(-3000)).toBeDefined();
    expect(allowed!.final_message).toBe('ALLOWED-ANSWER');
    expect(allowed!.connections?.map((c) => [c.host, c.port, c.allowed])).toEqual([
      ['127.0.0.2', Number(new URL(model.url).port), true],
    ]);
    // The cut-off node's agent asked for the model and was refused; the model never heard of it.
    const cut = eventsOf(j, 'NodeFailed', 'cut-off');
    expect(cut.length).toBeGreaterThan(0);
    expect(cut[0]!.connections?.some((c) => c.host === '127.0.0.2' && !c.allowed)).toBe(true);
    expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain('CUT-OFF-PROMPT');
  }, 240_000);
});

// Gemini CLI and Copilot CLI the same way: a namespace with nothing allowed, the model reached only through the key
// proxy (which lives outside it), and the same host out of reach of the node's own command.
const MORE = [
  {
    engine: 'gemini',
    cli: 'gemini' as const,
    issue: 8,
    agent: () => [geminiBin!, '--approval-mode', 'yolo'],
    env: (url: string) => ({
      GEMINI_API_KEY: 'scripted-gemini-key',
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_MODEL,
    }),
    key: (r: ModelServer['requests'][number]) => r.headers['x-goog-api-key'] === 'scripted-gemini-key',
  },
  {
    engine: 'copilot',
    cli: 'copilot' as const,
    issue: 9,
    agent: () => [copilotBin!, '--allow-all'],
    env: (url: string) => ({
      COPILOT_PROVIDER_TYPE: 'anthropic',
      COPILOT_PROVIDER_BASE_URL: url,
      COPILOT_PROVIDER_API_KEY: 'scripted-copilot-key',
      COPILOT_MODEL: 'claude-sonnet-4.5',
    }),
    key: (r: ModelServer['requests'][number]) => r.headers['x-api-key'] === 'scripted-copilot-key',
  },
];
for (const e of MORE) {
  const skip = missing(e.cli) ?? why;
  describe.skipIf(!!skip)(`${e.engine} as a node with network: { allow: [] } (the key proxy on)`, () => {
    let github: GitHubServer;
    let model: ModelServer;
    beforeAll(async () => {
      requireBundle();
      github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
      model = await startModelServer({ host: '127.0.0.2', script: [{ text: 'THROUGH-THE-KEY-PROXY' }] });
    });
    afterAll(async () => {
      await github?.close();
      await model?.close();
    });

    it('reaches the model through the key proxy; its own commands reach nothing', async () => {
      const agent = e.agent().map(shellWord).join(' ');
      const graph = `interlock: 1
name: agent-network
defaults:
  network: { allow: [] }
nodes:
  - id: agent
    engine: ${e.engine}
    agent: '${agent.replace(/'/g, "''")}'
    prompt: say something.
  - id: direct
    depends_on: [agent]
    run: node -e "fetch('${model.url}/').then(() => process.exit(0), () => process.exit(3))"
`;
      const ws = makeWorkspace({
        '.github/interlock.yml': routeLabel('agent:n', GRAPH_FILE),
        [GRAPH_FILE]: graph,
      });
      github.state.repo(FULL).addIssue({ number: e.issue, title: 'network', labels: ['agent:n'] });
      const step = await runStep(
        issueStep(github, ws, e.issue, 'agent:n', { inputs: { node: 'all' }, env: e.env(model.url) }),
      );
      const j = readJournal(github, `agent-network/issue-${e.issue}`);
      const answered = eventsOf(j, 'NodeRecorded', 'agent')[0];
      expect(answered, step.log.slice(-3000)).toBeDefined();
      expect(answered!.final_message).toBe('THROUGH-THE-KEY-PROXY');
      expect(model.calls.length).toBeGreaterThan(0);
      expect(model.calls.every(e.key)).toBe(true);
      // Nothing got out, and nothing tried: Gemini CLI's usage statistics (on by default, posting to Google's
      // play.googleapis.com) are off in the settings interlock gives the node's fresh home.
      const tried = (answered!.connections ?? []).map((c) => `${c.host}:${c.port} ${c.allowed}`);
      expect(tried).toEqual([]);
      expect(eventsOf(j, 'NodeFailed', 'direct')[0]?.failures[0]?.message).toMatch(/exit(ed)? (code )?3/);
    }, 240_000);
  });
}
