// The gate before a node through the bundled action as a runner runs it (`node dist/index.js` against the local
// GitHub): a gated node is never dispatched before its approvals and exactly once after, and the guidance given
// with the approvals reaches the attempt's context and prompt byte for byte, inert.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEEDS_HUMAN_LABEL } from '../../src/render/words.js';
import { runStep } from '../support/action-process.js';
import type { GitHubServer } from '../support/github-server.js';
import { SHIP_ROUTES, startShipRepository, writeApprovals } from './gate-world.js';
import { eventsOf, FULL, issueStep, readJournal } from './world.js';

const GRAPH = `interlock: 1
name: ship
approvals:
  required: 2
nodes:
  - id: build
    run: echo built > built.txt
  - id: publish
    depends_on: [build]
    approval: before
    agent: cat > prompt.txt; cp "$INTERLOCK_CONTEXT" context.json
    prompt: Publish the release.
    validates:
      - file: prompt.txt
`;

const GUIDANCE = 'Use the staging registry.\n$(touch CANARY) `touch CANARY2`';

let server: GitHubServer;
let ws: string;
beforeAll(async () => {
  ({ server, ws } = await startShipRepository(GRAPH));
});
afterAll(async () => server?.close());

/** Two people approve `publish`, as `/approve publish` writes it; the first gives guidance. */
async function approveTwice(): Promise<void> {
  await writeApprovals(server, 'ship/issue-7', 'publish', [
    { by: 'bob', comment: 1, required: 2, guidance: GUIDANCE },
    { by: 'carol', comment: 2, required: 2 },
  ]);
}

describe('approval: before, through the bundled action', () => {
  it('the step ends awaiting-approval, asks with a comment and the label, and runs nothing of the gated node', async () => {
    const r = await runStep(issueStep(server, ws, 7, 'ship', { inputs: { node: 'all' } }));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ node: 'publish', status: 'awaiting-approval' });
    expect(JSON.parse(r.outputs.checkpoint!).awaiting_approval_nodes).toEqual(['publish']);
    const j = readJournal(server, 'ship/issue-7');
    expect(eventsOf(j, 'NodeDispatched', 'publish')).toEqual([]);
    expect(eventsOf(j, 'NodeAwaitingApproval', 'publish')).toHaveLength(1);
    const attention = server.state
      .repo(FULL)
      .commentsOn(7)
      .filter((c) => c.body.startsWith('<!-- interlock:attention ship/issue-7 publish 0 -->'));
    expect(attention).toHaveLength(1);
    expect(attention[0]!.body).toContain(
      'waits for approval before it runs** (`approval: before`): needs 2 approvals',
    );
    expect(attention[0]!.body).toContain('Publish the release.');
    expect(server.state.repo(FULL).issue(7)!.labels).toContain(NEEDS_HUMAN_LABEL);
    expect(existsSync(join(ws, 'prompt.txt'))).toBe(false);
  });

  it('a step before the approvals runs nothing and still reports awaiting-approval', async () => {
    const r = await runStep(issueStep(server, ws, 7, 'ship', { inputs: { node: 'publish' } }));
    expect(r.outputs.status).toBe('awaiting-approval');
    expect(eventsOf(readJournal(server, 'ship/issue-7'), 'NodeDispatched', 'publish')).toEqual([]);
  });

  it('after two approvals the node runs once; the guidance reaches its prompt and context byte for byte, inert', async () => {
    await approveTwice();
    const r = await runStep(issueStep(server, ws, 7, 'ship', { inputs: { node: 'all' } }));
    expect(r.stderr).toBe('');
    expect(r.outputs).toMatchObject({ node: 'publish', status: 'completed' });
    expect(JSON.parse(r.outputs.checkpoint!).status).toBe('completed');
    const prompt = readFileSync(join(ws, 'prompt.txt'), 'utf8');
    expect(prompt.startsWith('Publish the release.\n\n---\ninterlock: your task envelope.')).toBe(true);
    expect(prompt).toContain('\n\n---\nguidance from people who approved this node');
    expect(prompt).toContain(`guidance from bob:\n${GUIDANCE}\n`);
    const context = JSON.parse(readFileSync(join(ws, 'context.json'), 'utf8'));
    expect(context.guidance).toEqual([{ by: 'bob', text: GUIDANCE }]);
    expect(existsSync(join(ws, 'CANARY'))).toBe(false);
    expect(existsSync(join(ws, 'CANARY2'))).toBe(false);
    const again = await runStep(issueStep(server, ws, 7, 'ship', { inputs: { node: 'all' } }));
    expect(again.outputs.status).toBe('run-completed');
    expect(eventsOf(readJournal(server, 'ship/issue-7'), 'NodeDispatched', 'publish')).toHaveLength(1);
  });
});

describe("the gate's attention comment counts the repository's rule too", () => {
  it('a graph that sets no count, in a repository that requires 3 approvals, is said to need 3', async () => {
    const plain = GRAPH.replace('approvals:\n  required: 2\n', '');
    const repo = await startShipRepository(plain, { config: `${SHIP_ROUTES}approvals:\n  required: 3\n` });
    try {
      const r = await runStep(issueStep(repo.server, repo.ws, 7, 'ship', { inputs: { node: 'all' } }));
      expect(r.outputs.status).toBe('awaiting-approval');
      const attention = repo.server.state
        .repo(FULL)
        .commentsOn(7)
        .find((c) => c.body.startsWith('<!-- interlock:attention ship/issue-7 publish 0 -->'));
      expect(attention?.body).toContain('(`approval: before`): needs 3 approvals.');
    } finally {
      await repo.server.close();
    }
  });
});

describe("the attention comment's approval rules", () => {
  it('come from the default branch, as /approve reads them, never from the step checkout a node may edit', async () => {
    const strict = `${SHIP_ROUTES}approvals:\n  required: 3\n`;
    const { server: s, ws: checkout } = await startShipRepository(GRAPH, { config: strict });
    try {
      // What a node could have left in the checkout: the rules loosened.
      writeFileSync(join(checkout, '.github/interlock.yml'), `${SHIP_ROUTES}approvals:\n  required: 1\n`);
      await runStep(issueStep(s, checkout, 7, 'ship', { inputs: { node: 'all' } }));
      const attention = s.state
        .repo(FULL)
        .commentsOn(7)
        .find((c) => c.body.startsWith('<!-- interlock:attention ship/issue-7 publish 0 -->'));
      expect(attention?.body).toContain('needs 3 approvals');
    } finally {
      await s.close();
    }
  });
});
