// A step under a graph changed since the run started (rule 6), through the bundled action (issue 45; the model-based
// test's seed 1372355312 found it on the journal branch of before): the step is refused and writes nothing, its
// status is `refused`, and its job summary shows the run as it stands (the gate that waits) with the way on in the
// Action's words (`allow-graph-change: true`), not the CLI's flag and a bare "failed". Given that input, the next
// step goes on under the new graph, the change recorded.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { journalText } from '../support/journal-text.js';
import { FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from './world.js';

const graph = (v: number) => `interlock: 1
name: fix
nodes:
  - id: plan
    run: echo plan v${v}
  - id: ship
    depends_on: [plan]
    approval: before
    run: echo ship v${v}
`;

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  server.state.repo(FULL).addIssue({ number: 71, title: 'Change the graph', labels: ['agent:fix'] });
});
afterAll(async () => server?.close());

describe('a step under a changed graph', () => {
  it('is refused, writes nothing, and its summary shows what waits and the way on; allow-graph-change goes on', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:fix', '.github/interlock/fix.yml'),
      '.github/interlock/fix.yml': graph(0),
    });
    const step = (inputs: Record<string, string> = {}) =>
      runStep({ ...issueStep(server, ws, 71, 'agent:fix'), inputs: { node: 'all', ...inputs } });
    expect((await step()).outputs.status).toBe('awaiting-approval');
    const before = journalText(server.state.repo(FULL), 'fix/issue-71');

    writeFileSync(join(ws, '.github/interlock/fix.yml'), graph(1));
    const r = await step();
    expect(r.outputs.status).toBe('refused');
    expect(journalText(server.state.repo(FULL), 'fix/issue-71')).toBe(before);
    expect(r.summary).toMatch(/\| ship \| awaiting approval \|/);
    expect(r.summary).toContain('`allow-graph-change: true`');
    expect(r.summary).not.toContain('--allow-graph-change');
    expect(r.stdout).toContain('::error::interlock: refused: the graph changed since the run started');

    const on = await step({ 'allow-graph-change': 'true' });
    expect(on.outputs.status).toBe('awaiting-approval');
    expect(readJournal(server, 'fix/issue-71').events.map((e) => e.type)).toContain('GraphChangeAllowed');
  }, 60_000);
});
