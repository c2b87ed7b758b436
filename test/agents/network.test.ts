// The real Claude Code CLI as a node with `network:` (issue 27), under the default isolation, through the bundled
// action as root, against the scripted model server on 127.0.0.2: with the model's host allowed it answers
// through interlock's proxy (it reads HTTP_PROXY itself), and the journal shows the one host it asked for; with
// nothing allowed, it cannot reach the model at all and the attempt fails. Needs root and `npm run build`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engine.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { claudeBin, claudeEnv, missing } from '../support/agent-clis.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

const GRAPH_FILE = '.github/interlock/agent-network.yml';
const why =
  missing('claude') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);
if (why) console.warn(`agents/network.test.ts skipped: ${why}`);

describe.skipIf(!!why)('Claude Code as a node with network:', () => {
  let github: GitHubServer;
  let model: ModelServer;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
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
    const step = await runStep(issueStep(github, ws, 6, 'agent:n', { inputs: { node: 'all' }, env }));
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
