// node: all writes the journal once per node: each write records one node and dispatches the next, so every
// node's start is still journaled before its work. Run as a runner runs the bundle, against the local GitHub.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { FULL, issueStep, OWNER, REPO } from './world.js';

const GRAPH = `interlock: 1
name: chain
nodes:
  - id: a
    run: echo a
  - id: b
    depends_on: [a]
    run: echo b
  - id: c
    depends_on: [b]
    run: echo c
`;

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  server.state.repo(FULL).addIssue({ number: 91, title: 'Chain', labels: [] });
});
afterAll(async () => server?.close());

describe('journal writes in node: all', () => {
  it('one write per node: each records a node and dispatches the next; the first starts the run, the last ends it', async () => {
    const ws = makeWorkspace({ 'g.yml': GRAPH });
    const mark = server.requests.mark();
    const r = await runStep(issueStep(server, ws, 91, 'go', { inputs: { graph: 'g.yml', node: 'all' } }));
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.outputs.checkpoint!).status).toBe('completed');
    // The first write makes the run's branch (its commit carries the message), the others are contents writes.
    const writes = server.requests
      .filter({ since: mark })
      .filter(
        (q) => (q.method === 'PUT' && /\/contents\/runs\//.test(q.path)) || /\/git\/commits$/.test(q.path),
      )
      .filter((q) => q.status >= 200 && q.status < 300)
      .map((q) => (q.body as { message: string }).message);
    expect(writes).toEqual([
      'interlock: chain/issue-91 RunStarted, NodeDispatched a#1',
      'interlock: chain/issue-91 NodeRecorded a#1, NodeDispatched b#1',
      'interlock: chain/issue-91 NodeRecorded b#1, NodeDispatched c#1',
      'interlock: chain/issue-91 NodeRecorded c#1, RunCompleted',
      // Not an event: the header learns the progress comment created on the run's first step.
      expect.stringMatching(/^interlock: chain\/issue-91 progress comment \d+$/),
    ]);
  });
});
