// A serialized chain and `network:` (issue 34), with the real Claude Code CLI through the bundled action as root,
// against the scripted model server on 127.0.0.2 (reached through the key proxy): the chain's `command` checks run
// in the call's network namespace, as a node's own checks do in its attempt's, so a check that can reach the model
// server's host directly fails; and a node of the session with another `network:` is not run inside the chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/events/events.js';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { claudeBin, claudeEnv, missing } from '../support/agent-clis.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

const GRAPH_FILE = '.github/interlock/chain-network.yml';
const why =
  missing('claude') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);
if (why) console.warn(`agents/serialized-network.test.ts skipped: ${why}`);

describe.skipIf(!!why)('a serialized chain of nodes with network:', () => {
  let github: GitHubServer;
  let model: ModelServer;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    model = await startModelServer({ host: '127.0.0.2', script: [{ text: 'CHAIN' }, { text: 'ALONE' }] });
  });
  afterAll(async () => {
    await github?.close();
    await model?.close();
  });

  it('checks each node in the call’s namespace, and runs a node with another network: alone', async () => {
    const agent = [claudeBin!, '-p', '--output-format', 'json'].map(shellWord).join(' ');
    // Passes only where the model server's host cannot be reached directly (inside the namespace).
    const cut = `node -e "fetch('${model.url}/').then(() => process.exit(1), () => process.exit(0))"`;
    const node = (id: string, deps: string, extra = '') => `  - id: ${id}
${deps}    session: work
    prompt: do ${id}.
    validates:
      - command: '${cut.replace(/'/g, "''")}'
${extra}`;
    const graph = `interlock: 1
name: chain-network
defaults:
  engine: claude-code
  agent: '${agent.replace(/'/g, "''")}'
  network: { allow: [] }
sessions:
  work: { serialized: true }
nodes:
${node('a', '')}${node('b', '    depends_on: [a]\n')}${node('c', '    depends_on: [b]\n', '    network: { allow: [example.com] }\n')}`;
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:n', GRAPH_FILE),
      [GRAPH_FILE]: graph,
    });
    github.state.repo(FULL).addIssue({ number: 6, title: 'chain network', labels: ['agent:n'] });
    const env = claudeEnv(model.url, '/nonexistent-runner-config');
    const step = await runStep(issueStep(github, ws, 6, 'agent:n', { inputs: { node: 'all' }, env }));
    const j = readJournal(github, 'chain-network/issue-6');
    const chainOf = (id: string) =>
      (
        j.events.find((e) => e.type === 'NodeDispatched' && e.node === id) as
          | Extract<JournalEvent, { type: 'NodeDispatched' }>
          | undefined
      )?.chain;
    expect(chainOf('b'), step.log.slice(-3000)).toMatchObject({ first: 'a', position: 2 });
    expect(chainOf('c')).toBeUndefined();
    for (const id of ['a', 'b', 'c'])
      expect(
        eventsOf(j, 'NodeRecorded', id)[0]?.evidence.map((e) => e.passed),
        `${id}: ${step.log.slice(-3000)}`,
      ).toEqual([true]);
  }, 120_000);
});
