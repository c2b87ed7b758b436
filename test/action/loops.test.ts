// Bounded loops (issue 28) through the bundled action against the local GitHub, each node under the default
// isolation: a loop of at most 3 cycles that ends when its condition holds on cycle 2 (its dependent runs once,
// after it), and one that escalates after 3 cycles with each cycle in the report and the progress comment.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal } from './world.js';

/** A review that approves on its `approveOn`-th run (0: never), counting its runs in the workspace. */
const graph = (name: string, approveOn: number) => `interlock: 1
name: ${name}
nodes:
  - id: review
    outputs: [approved]
    replay: safe
    env:
      APPROVE_ON: "${approveOn}"
    run: |
      n=$(( $(cat rounds.txt 2>/dev/null || echo 0) + 1 ))
      echo "$n" > rounds.txt
      echo "review $INTERLOCK_ATTEMPT $INTERLOCK_IDEMPOTENCY_KEY" >> effects.log
      if [ "$n" = "$APPROVE_ON" ]; then echo approved=true; else echo approved=false; fi >> "$INTERLOCK_OUTPUT"
    repeat:
      until: \${{ nodes.review.outputs.approved == 'true' }}
  - id: ship
    depends_on: [review]
    run: echo shipped >> shipped.txt
`;

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  server.state.repo(FULL).addIssue({ number: 51, title: 'Loop', labels: [] });
  server.state.repo(FULL).addIssue({ number: 52, title: 'Loop that escalates', labels: [] });
});
afterAll(async () => server?.close());

describe('bounded loops through the action', () => {
  it('ends when until holds on cycle 2: a cycle journaled, a key per cycle, the dependent once after it', async () => {
    const ws = makeWorkspace({ 'g.yml': graph('loop', 2) });
    const r = await runStep(issueStep(server, ws, 51, 'go', { inputs: { graph: 'g.yml', node: 'all' } }));
    expect(r.code, r.stdout).toBe(0);
    const journal = readJournal(server, 'loop/issue-51');
    expect(eventsOf(journal, 'NodeCycleStarted', 'review')).toEqual([
      expect.objectContaining({ cycle: 2, value: false, after_attempt: 1 }),
    ]);
    expect(eventsOf(journal, 'NodeRecorded', 'review').map((e) => e.outputs.approved)).toEqual([
      'false',
      'true',
    ]);
    const ship = eventsOf(journal, 'NodeDispatched', 'ship');
    expect(ship).toHaveLength(1);
    expect(ship[0]!.seq).toBeGreaterThan(eventsOf(journal, 'NodeRecorded', 'review')[1]!.seq);
    expect(journal.events.at(-1)?.type).toBe('RunCompleted');
    expect(readFileSync(join(ws, 'effects.log'), 'utf8')).toBe(
      'review 1 loop/issue-51/review\nreview 2 loop/issue-51/review/cycle-2\n',
    );
    const progress = server.state
      .repo(FULL)
      .commentsOn(51)
      .find((c) => c.body.includes('interlock:progress'));
    expect(progress?.body).toContain('review (cycle 2/3)');
  });

  it('escalates after 3 cycles with each cycle outcome; the dependent never runs; the step says escalated', async () => {
    const ws = makeWorkspace({ 'g.yml': graph('stuck', 0) });
    const r = await runStep(issueStep(server, ws, 52, 'go', { inputs: { graph: 'g.yml', node: 'all' } }));
    expect(r.outputs.status, r.stdout).toBe('escalated');
    const journal = readJournal(server, 'stuck/issue-52');
    expect(eventsOf(journal, 'NodeCycleStarted', 'review').map((e) => e.cycle)).toEqual([2, 3]);
    const [esc] = eventsOf(journal, 'NodeEscalated', 'review');
    expect(esc!.report.cycles?.map((c) => [c.cycle, c.attempt, c.outputs.approved, c.until])).toEqual([
      [1, 1, 'false', 'false'],
      [2, 2, 'false', 'false'],
      [3, 3, 'false', 'false'],
    ]);
    expect(eventsOf(journal, 'NodeDispatched', 'ship')).toHaveLength(0);
    const comments = server.state.repo(FULL).commentsOn(52);
    const progress = comments.find((c) => c.body.includes('interlock:progress'));
    expect(progress?.body).toContain('review (cycle 3/3)');
    expect(comments.some((c) => c.body.includes('| cycle | attempt | outputs | until |'))).toBe(true);
  });
});
