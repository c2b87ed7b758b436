// What the README says about run ids, run as a runner runs it: an ended run stays ended, and a
// workflow_dispatch input named `subject` names the issue a run is about.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from './world.js';

const GRAPH = `interlock: 1
name: fix
nodes:
  - id: plan
    run: echo plan >> effects.log
  - id: ship
    depends_on: [plan]
    run: echo ship >> effects.log
`;

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  const repo = server.state.repo(FULL);
  repo.addIssue({ number: 63, title: 'Finish me', labels: ['agent:fix'] });
  repo.addIssue({ number: 64, title: 'Dispatched', labels: [] });
});
afterAll(async () => server?.close());

describe('run ids', () => {
  it('a run that has ended stays ended: labeling the issue again runs nothing and writes nothing', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:fix', '.github/interlock/fix.yml'),
      '.github/interlock/fix.yml': GRAPH,
    });
    const first = await runStep(issueStep(server, ws, 63, 'agent:fix', { inputs: { node: 'all' } }));
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(readJournal(server, 'fix/issue-63').events.at(-1)?.type).toBe('RunCompleted');
    const events = readJournal(server, 'fix/issue-63').events.length;
    const mark = server.requests.mark();
    const again = await runStep(issueStep(server, ws, 63, 'agent:fix', { inputs: { node: 'all' } }));
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.outputs.status).toBe('run-completed');
    expect(readFileSync(join(ws, 'effects.log'), 'utf8')).toBe('plan\nship\n');
    expect(readJournal(server, 'fix/issue-63').events).toHaveLength(events);
    expect(server.requests.count({ since: mark, method: 'PUT' })).toBe(0);
  });

  it('on workflow_dispatch, an input named subject names the issue: the run id is <graph name>/issue-<n>', async () => {
    const ws = makeWorkspace({ '.github/interlock/fix.yml': GRAPH });
    const r = await runStep({
      ...issueStep(server, ws, 64, 'agent:fix'),
      eventName: 'workflow_dispatch',
      payload: { inputs: { subject: '64' } },
      inputs: { graph: '.github/interlock/fix.yml' },
    });
    expect(r.outputs.status, r.stdout + r.stderr).toBe('completed');
    expect(r.outputs['run-id']).toBe('fix/issue-64');
    expect(readJournal(server, 'fix/issue-64').events[0]).toMatchObject({
      type: 'RunStarted',
      subject: 'issue-64',
    });
  });

  it('starting afresh is one dispatch: run-id <name>/issue-<n>-2 with no graph input starts a new run of the same graph and issue', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:fix', '.github/interlock/fix.yml'),
      '.github/interlock/fix.yml': GRAPH,
    });
    // fix/issue-63 ended in the first test; the example workflow passes only run-id on dispatch.
    expect(readJournal(server, 'fix/issue-63').events.at(-1)?.type).toBe('RunCompleted');
    const r = await runStep({
      ...issueStep(server, ws, 63, 'agent:fix'),
      eventName: 'workflow_dispatch',
      payload: { inputs: { 'run-id': 'fix/issue-63-2' } },
      inputs: { 'run-id': 'fix/issue-63-2', node: 'all' },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs).toMatchObject({ 'run-id': 'fix/issue-63-2', node: 'ship', status: 'completed' });
    expect(readJournal(server, 'fix/issue-63-2').events[0]).toMatchObject({
      type: 'RunStarted',
      subject: 'issue-63',
      graph: { path: '.github/interlock/fix.yml' },
    });
    // The old run stays as it ended.
    expect(readJournal(server, 'fix/issue-63').events.at(-1)?.type).toBe('RunCompleted');
  });
});
