// A serialized chain's result the store can never take (issue 36: only a single node's was recorded as failed; a
// chain's stayed in flight, for recovery to run it again), through the bundled action with the check-run store,
// with the real Claude Code CLI against the scripted model server: the agent writes an output too big for a check
// run, and the chain is recorded failed at its first node, saying why, the rest given back, nothing left in flight.
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { CHECK_RUN_TEXT_LIMIT, decodeJournal } from '../../src/store/check-run.js';
import { eventsOf, FULL, OWNER, pullRequestOpened, REPO, validJournal } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { agentHome, claudeBin, claudeEnv, missing } from '../support/agent-clis.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

const GRAPH_FILE = '.github/interlock/chain.yml';
const RUN = 'chain/pr-5';
/** interlock's own lines of the step's log (the agent's stream is in it too). */
const said = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => /^(interlock|::)/.test(l))
    .join('\n');

describe.skipIf(missing('claude'))('a serialized chain whose result is too big for the check run', () => {
  let github: GitHubServer;
  let model: ModelServer;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({
      repos: [{ owner: OWNER, name: REPO, branches: { 'feat-c': { 'c.txt': 'c\n' } } }],
    });
    github.state.repo(FULL).addPull({ number: 5, head: 'feat-c', base: 'main', title: 'Chain' });
    // One call for the chain: the agent writes a's output (about 80,000 characters), then says it is done.
    const big = `echo "blob=$(head -c 60000 /dev/urandom | base64 -w0)" >> "$INTERLOCK_OUTPUTS/a"`;
    model = await startModelServer({
      script: [
        { text: 'Writing.', tools: [{ name: 'Bash', input: { command: big, description: 'write' } }] },
        { text: 'CHAIN-DONE' },
      ],
    });
  });
  afterAll(async () => {
    await github?.close();
    await model?.close();
  });

  it('is recorded as failed at its first node, saying why, and nothing stays in flight', async () => {
    const agent = [claudeBin!, '-p', '--allowedTools', 'Bash'].map(shellWord).join(' ');
    const graph = `interlock: 1
name: chain
defaults:
  engine: claude-code
  agent: '${agent.replace(/'/g, "''")}'
sessions:
  work: { serialized: true }
nodes:
  - id: a
    session: work
    prompt: write a's blob.
    outputs: [blob]
  - id: b
    depends_on: [a]
    session: work
    prompt: then b.
`;
    const ws = makeWorkspace({
      '.github/interlock.yml': `routes:\n  - event: pull_request\n    action: opened\n    graph: ${GRAPH_FILE}\n`,
      [GRAPH_FILE]: graph,
    });
    const repo = github.state.repo(FULL);
    repo.addWorkflowRun({
      workflow: 'chain.yml',
      id: 9001,
      event: 'pull_request',
      status: 'in_progress',
      jobs: [{ name: 'interlock', runner_name: 'runner-9001' }],
    });
    const home = agentHome('claude');
    chmodSync(home, 0o777);
    const r = await runStep({
      apiUrl: github.url,
      repository: FULL,
      workspace: ws,
      eventName: 'pull_request',
      payload: pullRequestOpened(repo, 5),
      inputs: { store: 'check-run' },
      job: { runId: 9001, runner: 'runner-9001' },
      env: claudeEnv(model.url, home),
    });
    const [run] = [...repo.checkRuns.values()].filter((c) => c.name === `interlock: ${RUN}`);
    expect(run, said(r.stdout)).toBeDefined();
    const journal = decodeJournal(run!.output.text ?? '', `interlock: ${RUN}`);
    const state = validJournal(journal, join(ws, GRAPH_FILE));
    // Both were dispatched in one write, as a chain.
    expect(eventsOf(journal, 'NodeDispatched').map((e) => e.node)).toEqual(['a', 'b']);
    const [failed] = eventsOf(journal, 'NodeFailed', 'a');
    expect(failed?.attempt, said(r.stdout)).toBe(1);
    expect(failed?.failures[0]?.check).toBe('journal');
    expect(failed?.failures[0]?.message).toContain(`over GitHub's limit of ${CHECK_RUN_TEXT_LIMIT}`);
    expect(failed?.failures[0]?.message).toContain('its outputs (blob) were dropped');
    expect(eventsOf(journal, 'NodeRecorded')).toEqual([]);
    expect(eventsOf(journal, 'NodeReturned', 'b')).toHaveLength(1);
    expect(state.checkpoint.active_nodes).toEqual([]);
    expect(r.stdout).toContain(`"a" attempt 1: the journal needs`);
    expect(r.stdout).toContain('recording it as failed');
    expect(r.code).toBe(1);
  }, 400_000);
});
