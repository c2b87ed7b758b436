import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { makeWorkspace, runStep } from '../support/action-process.js';

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' } as never] });
});
afterAll(async () => server?.close());

describe('smoke', () => {
  it('runs one node', async () => {
    const ws = makeWorkspace({
      'g.yml': 'interlock: 1\nname: fix\nnodes:\n  - id: a\n    run: echo hi > a.txt\n    validates:\n      - file: a.txt\n',
    });
    const r = await runStep({
      apiUrl: server.url,
      repository: 'acme/widgets',
      workspace: ws,
      eventName: 'workflow_dispatch',
      payload: {},
      inputs: { graph: 'g.yml' },
      job: { runId: 1 },
    });
    console.log(r.code, r.stdout, r.stderr, r.outputs);
    console.log(server.requests.all?.() ?? server.requests);
    expect(r.code).toBe(0);
  });
});
