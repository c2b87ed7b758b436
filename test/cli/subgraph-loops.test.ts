// A looping sub-graph and a rerun through one, with the bundled CLI (issue 28): `repeat:` on a `graph:` node
// runs its nodes again as a new cycle while `until` is false, at most `max` cycles, each cycle's nodes with new
// idempotency keys, then escalates with each cycle's outputs; `rerun-from` a node before a sub-graph reruns
// exactly it and its dependents, the sub-graph's nodes included, as new attempts.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupSandboxes, eventsOf, requireBundle, sandbox } from '../crash/harness.js';

const RUN = 'loop/local';
const graph = (max: number) => `interlock: 1
name: loop
nodes:
  - id: prep
    replay: safe
    run: echo "prep $INTERLOCK_ATTEMPT" >> effects.txt
  - id: review
    depends_on: [prep]
    graph: review.yml
    repeat:
      until: \${{ nodes.review.outputs.ok == 'yes' }}
      max: ${max}
  - id: ship
    depends_on: [review]
    approval: before
    run: echo ship >> effects.txt
`;
// Each cycle drafts once more; the check passes from the third draft on.
const REVIEW = `interlock: 1
name: review
defaults:
  replay: safe
nodes:
  - id: draft
    outputs: [n]
    run: |
      echo "draft $INTERLOCK_ATTEMPT $INTERLOCK_IDEMPOTENCY_KEY" >> effects.txt
      cp "$INTERLOCK_CONTEXT" "ctx-draft-$INTERLOCK_ATTEMPT.json"
      echo "n=$(grep -c '^draft' effects.txt)" >> "$INTERLOCK_OUTPUT"
  - id: check
    depends_on: [draft]
    env:
      N: \${{ nodes.draft.outputs.n }}
    outputs: [ok]
    run: if [ "$N" -ge 3 ]; then echo ok=yes; else echo ok=no; fi >> "$INTERLOCK_OUTPUT"
`;

beforeAll(() => requireBundle());
afterEach(cleanupSandboxes);

describe('a looping sub-graph through the CLI', () => {
  it('runs its nodes again each cycle, with new idempotency keys, until `until` is true (3 cycles)', async (ctx) => {
    const s = sandbox(ctx, 'interlock-subloop-');
    s.write('g.yml', graph(3));
    s.write('review.yml', REVIEW);
    const r = await s.cli(['run', 'g.yml', '--run-id', RUN, '--all']);
    expect(r.stderr).toContain('"ship" awaits approval');
    const drafts = s.lines('effects.txt').filter((l) => l.startsWith('draft '));
    expect(drafts.map((l) => l.split(' ').slice(1).join(' '))).toEqual([
      `1 ${RUN}/review/draft`,
      `2 ${RUN}/review/cycle-2/draft`,
      `3 ${RUN}/review/cycle-3/draft`,
    ]);
    const journal = s.journal(RUN);
    expect(eventsOf(journal, 'NodeCycleStarted').map((e) => [e.node, e.cycle, e.after_attempt])).toEqual([
      ['review', 2, 0],
      ['review', 3, 0],
    ]);
    expect(eventsOf(journal, 'NodeJoined', 'review')).toHaveLength(3);
    expect(eventsOf(journal, 'NodeRecorded', 'review/check').map((e) => e.outputs.ok)).toEqual([
      'no',
      'no',
      'yes',
    ]);
    expect((await s.status(RUN)).completed_nodes).toEqual(expect.arrayContaining(['prep', 'review']));
    // Each node of the sub-graph is told which cycle of its sub-graph's loop it runs.
    expect(JSON.parse(s.read('ctx-draft-1.json')!)).not.toHaveProperty('cycle');
    const second = JSON.parse(s.read('ctx-draft-2.json')!);
    expect(second.cycle).toBe(2);
    expect(second.previous.statement).toContain('completed cycle 1 of the loop of its sub-graph "review"');
  }, 120_000);

  it('escalates after its last cycle with each cycle outputs; an approved rerun runs one more cycle', async (ctx) => {
    const s = sandbox(ctx, 'interlock-subloop-');
    s.write('g.yml', graph(2));
    s.write('review.yml', REVIEW);
    await s.cli(['run', 'g.yml', '--run-id', RUN, '--all']);
    const cp = await s.status(RUN);
    expect(cp.escalated_nodes).toEqual(['review']);
    const escalated = eventsOf(s.journal(RUN), 'NodeEscalated', 'review');
    expect(escalated).toHaveLength(1);
    expect(escalated[0]!.report.cycles!.map((c) => [c.cycle, c.outputs.ok, c.until])).toEqual([
      [1, 'no', 'false'],
      [2, 'no', 'false'],
    ]);
    const approve = [
      'approve-rerun',
      'review',
      '--run-id',
      RUN,
      '--by',
      'ann',
      '--guidance',
      'Try a shorter draft.',
    ];
    expect((await s.cli(approve)).code).toBe(0);
    const r = await s.cli(['run', 'g.yml', '--run-id', RUN, '--all']);
    expect(r.stderr).toContain('"ship" awaits approval');
    expect(
      s
        .lines('effects.txt')
        .filter((l) => l.startsWith('draft '))
        .map((l) => l.split(' ')[1]),
    ).toEqual(['1', '2', '3']);
    // What the person said approving the sub-graph node reaches its nodes.
    expect(JSON.parse(s.read('ctx-draft-3.json')!).guidance).toEqual([
      { by: 'ann', text: 'Try a shorter draft.' },
    ]);
  }, 120_000);
});

describe('rerun-from through a sub-graph', () => {
  it('reruns the named node and its dependents, the sub-graph nodes as new attempts; approvals are not carried over', async (ctx) => {
    const s = sandbox(ctx, 'interlock-subrerun-');
    s.write('g.yml', graph(1).replace(/ {4}repeat:\n.*\n.*\n/, ''));
    s.write('review.yml', REVIEW);
    await s.cli(['run', 'g.yml', '--run-id', RUN, '--all']);
    expect((await s.cli(['approve', 'ship', '--run-id', RUN, '--by', 'ann'])).code).toBe(0);
    // ship is approved but not yet run: the rerun from prep takes it along, so its approval is asked again.
    // rerun-from names a node of the run's own graph: a sub-graph's node is refused, naming the one to give.
    const child = await s.cli(['rerun-from', 'review/draft', '--run-id', RUN, '--by', 'bob']);
    expect(child.code).not.toBe(0);
    expect(child.stderr).toContain(
      '"review/draft" is a node of a sub-graph: rerun-from names a node of the run\'s own graph',
    );
    expect(child.stderr).toContain('rerun from "review"');
    const rerun = await s.cli(['rerun-from', 'prep', '--run-id', RUN, '--by', 'bob']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const r = await s.cli(['run', 'g.yml', '--run-id', RUN, '--all']);
    expect(r.stderr).toContain('"ship" awaits approval');
    const journal = s.journal(RUN);
    expect(eventsOf(journal, 'RerunFromApproved')).toMatchObject([
      { node: 'prep', nodes: ['prep', 'review', 'ship'], approved_by: 'bob' },
    ]);
    expect(eventsOf(journal, 'NodeDispatched', 'review/draft').map((e) => e.attempt)).toEqual([1, 2]);
    expect(eventsOf(journal, 'NodeDispatched', 'review/check').map((e) => e.attempt)).toEqual([1, 2]);
    expect(eventsOf(journal, 'NodeJoined', 'review')).toHaveLength(2);
    expect(s.lines('effects.txt').filter((l) => l.startsWith('prep'))).toEqual(['prep 1', 'prep 2']);
    expect(s.lines('effects.txt')).not.toContain('ship');
  }, 120_000);
});
