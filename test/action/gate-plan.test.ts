// `mode: plan` and a gated node, through the bundled action: a node with `approval: before` that nobody was asked
// about yet is in `ready`, because the next step must act on it (record that it awaits approval and ask on the
// issue, or skip it when its execute_conditions say so); the matrix job for it does that and runs nothing. Once
// asked, it is no longer in `ready` until enough people approved, so no further job starts for it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStep } from '../support/action-process.js';
import type { GitHubServer } from '../support/github-server.js';
import { startShipRepository, writeApprovals } from './gate-world.js';
import { eventsOf, issueStep, readJournal } from './world.js';

const GRAPH = `interlock: 1
name: ship
nodes:
  - id: build
    run: echo built > built.txt
  - id: publish
    depends_on: [build]
    approval: before
    run: touch published.txt
    validates:
      - file: published.txt
  - id: docs
    depends_on: [build]
    run: touch docs.txt
`;
const RUN_ID = 'ship/issue-7';

let server: GitHubServer;
let ws: string;
beforeAll(async () => {
  ({ server, ws } = await startShipRepository(GRAPH));
});
afterAll(async () => server?.close());

const plan = () => runStep(issueStep(server, ws, 7, 'ship', { inputs: { mode: 'plan' } }));
const matrixJob = (node: string) => runStep(issueStep(server, ws, 7, 'ship', { inputs: { node } }));

describe('mode: plan with a node that has approval: before', () => {
  it('lists the gated node as ready until a step has asked for approval; its job asks and runs nothing', async () => {
    expect((await matrixJob('build')).outputs.status).toBe('completed');
    const first = await plan();
    expect(JSON.parse(first.outputs.ready!)).toEqual(['publish', 'docs']);
    const gated = await matrixJob('publish');
    expect(gated.outputs.status).toBe('awaiting-approval');
    expect(existsSync(join(ws, 'published.txt'))).toBe(false);
    expect(eventsOf(readJournal(server, RUN_ID), 'NodeAwaitingApproval', 'publish')).toHaveLength(1);
    expect(eventsOf(readJournal(server, RUN_ID), 'NodeDispatched', 'publish')).toEqual([]);
    const again = await plan();
    expect(JSON.parse(again.outputs.ready!)).toEqual(['docs']);
  });

  it('once the node is asked about and the rest is done, plan says awaiting-approval with nothing ready', async () => {
    expect((await matrixJob('docs')).outputs.status).toBe('completed');
    const r = await plan();
    expect(JSON.parse(r.outputs.ready!)).toEqual([]);
    expect(r.outputs.status).toBe('awaiting-approval');
    expect(JSON.parse(r.outputs.checkpoint!).awaiting_approval_nodes).toEqual(['publish']);
  });

  it('after the approval the node is ready again, and its job runs it', async () => {
    await writeApprovals(server, RUN_ID, 'publish', [{ by: 'bob', comment: 1, required: 1 }]);
    expect(JSON.parse((await plan()).outputs.ready!)).toEqual(['publish']);
    expect((await matrixJob('publish')).outputs.status).toBe('completed');
    expect(existsSync(join(ws, 'published.txt'))).toBe(true);
  });
});
