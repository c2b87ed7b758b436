// Soft bounds (issue 26, item 7), through the bundled action against the local GitHub: past soft_timeout_minutes
// the attempt is journaled overdue, the progress comment shows it, a comment says it once and the needs-human
// label goes on; the node goes on and completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEEDS_HUMAN_LABEL } from '../../src/render/words.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal } from './world.js';

// 0.01 minutes is 0.6 s: the node takes 2.5 s.
const GRAPH = `interlock: 1
name: slow
nodes:
  - id: slow
    run: sleep 2.5; echo done > done.txt
    soft_timeout_minutes: 0.01
    validates:
      - file: done.txt
`;

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  server.state.repo(FULL).addIssue({ number: 91, title: 'Slow', labels: [] });
});
afterAll(async () => server?.close());

describe('soft bounds through the action', () => {
  it('journals the overdue attempt, comments once, labels the issue, and lets the node complete', async () => {
    const ws = makeWorkspace({ 'g.yml': GRAPH });
    const r = await runStep(issueStep(server, ws, 91, 'go', { inputs: { graph: 'g.yml', node: 'all' } }));
    expect(r.code, r.stdout).toBe(0);
    const journal = readJournal(server, 'slow/issue-91');
    const types = journal.events.map((e) => e.type);
    expect(types.indexOf('NodeOverdue')).toBeGreaterThan(types.indexOf('NodeDispatched'));
    expect(types.indexOf('NodeOverdue')).toBeLessThan(types.indexOf('NodeRecorded'));
    expect(eventsOf(journal, 'NodeOverdue', 'slow')[0]).toMatchObject({
      attempt: 1,
      bound: 'soft_timeout_minutes',
      limit: 0.01,
    });
    expect(types.at(-1)).toBe('RunCompleted');
    const repo = server.state.repo(FULL);
    const overdue = repo
      .commentsOn(91)
      .filter((c) => c.body.startsWith('<!-- interlock:overdue slow/issue-91 slow 1 -->'));
    expect(overdue).toHaveLength(1);
    expect(overdue[0]!.body).toContain('is overdue');
    expect(overdue[0]!.body).toContain('/fail-run <reason>');
    expect(repo.issue(91)!.labels).toContain(NEEDS_HUMAN_LABEL);
    expect(r.stdout).toContain('"slow" attempt 1 is overdue');
  });
});
