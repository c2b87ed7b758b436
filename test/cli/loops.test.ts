// Bounded loops and rerun-from through the bundled CLI (issue 28): a loop of at most 3 cycles that ends when its
// condition holds on cycle 2, one that escalates after 3, and `interlock rerun-from` rerunning exactly the node
// and its dependents (and forking an ended run). The nodes run under the default isolation.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupSandboxes, eventsOf, requireBundle, sandbox } from '../crash/harness.js';

beforeAll(requireBundle);
afterEach(cleanupSandboxes);

/** A review node that approves on the cycle `approveOn` (0: never), counting its runs in the workspace. */
const loopGraph = (approveOn: number) => `interlock: 1
name: loop
nodes:
  - id: write
    run: echo draft > draft.txt
  - id: review
    depends_on: [write]
    outputs: [approved, round]
    env:
      APPROVE_ON: "${approveOn}"
    run: |
      n=$(( $(cat rounds.txt 2>/dev/null || echo 0) + 1 ))
      echo "$n" > rounds.txt
      echo "round=$n" >> "$INTERLOCK_OUTPUT"
      if [ "$n" = "$APPROVE_ON" ]; then echo approved=true >> "$INTERLOCK_OUTPUT"; else echo approved=false >> "$INTERLOCK_OUTPUT"; fi
    repeat:
      until: \${{ nodes.review.outputs.approved == 'true' }}
      max: 3
  - id: ship
    depends_on: [review]
    run: echo shipped >> shipped.txt
`;

describe('bounded loops through the CLI', () => {
  it('a loop of at most 3 cycles ends when until holds on cycle 2; its dependent runs once, after it', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-loop-');
    sb.write('graph.yml', loopGraph(2));
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'loop']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/repeat\.until is false: cycle 2 starts/);
    const j = sb.journal('loop');
    expect(eventsOf(j, 'NodeCycleStarted', 'review').map((e) => e.cycle)).toEqual([2]);
    expect(eventsOf(j, 'NodeRecorded', 'review').map((e) => e.outputs)).toEqual([
      { round: '1', approved: 'false' },
      { round: '2', approved: 'true' },
    ]);
    // The dependent's dispatch comes after the loop's last record.
    const shipAt = eventsOf(j, 'NodeDispatched', 'ship')[0]!.seq;
    expect(shipAt).toBeGreaterThan(eventsOf(j, 'NodeRecorded', 'review')[1]!.seq);
    expect(sb.read('shipped.txt')).toBe('shipped\n');
    const cp = await sb.status('loop');
    expect(cp).toMatchObject({ status: 'completed', cycles: { review: 2 } });
    const table = await sb.cli(['status', '--run-id', 'loop']);
    expect(table.stdout).toMatch(/review \(cycle 2\/3\)\s+completed/);
  });

  it('a loop whose until never holds escalates after 3 cycles, each cycle in the report; the dependent never runs', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-loop-');
    sb.write('graph.yml', loopGraph(0));
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'loop']);
    expect(r.code, r.stderr).not.toBe(0);
    const j = sb.journal('loop');
    expect(eventsOf(j, 'NodeCycleStarted', 'review').map((e) => e.cycle)).toEqual([2, 3]);
    const [esc] = eventsOf(j, 'NodeEscalated', 'review');
    expect(esc!.report.cycles?.map((c) => c.outputs.round)).toEqual(['1', '2', '3']);
    expect(eventsOf(j, 'NodeDispatched', 'ship')).toHaveLength(0);
    const status = await sb.cli(['status', '--run-id', 'loop']);
    expect(status.stdout).toMatch(/review \(cycle 3\/3\)\s+escalated/);
    expect(status.stdout).toMatch(/cycle 2 \(attempt 2\) round=2 approved=false — until: false/);
  });
});

const chainGraph = `interlock: 1
name: chain
nodes:
  - id: a
    run: echo a >> ran.txt
    replay: safe
  - id: side
    run: echo side >> ran.txt
    replay: safe
  - id: b
    depends_on: [a]
    run: echo b >> ran.txt
    replay: safe
  - id: c
    depends_on: [b]
    run: echo c >> ran.txt
    replay: safe
  - id: d
    depends_on: [b]
    run: echo d >> ran.txt
  - id: later
    run: echo later >> ran.txt
    replay: safe
`;

describe('rerun-from through the CLI', () => {
  it('reruns exactly the node and its dependents; a replay: never dependent waits for a person', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-rerun-');
    sb.write('graph.yml', chainGraph);
    // Everything but later: the run has not ended.
    for (const n of ['a', 'side', 'b', 'c', 'd']) {
      const r = await sb.cli(['run', 'graph.yml', '--node', n, '--run-id', 'chain']);
      expect(r.code, r.stderr).toBe(0);
    }
    const r = await sb.cli([
      'rerun-from',
      'b',
      '--by',
      'bob',
      '--guidance',
      'use the new API',
      '--run-id',
      'chain',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/bob reran from "b": b, c, d run again; held .*: d/);
    const [ev] = eventsOf(sb.journal('chain'), 'RerunFromApproved', 'b');
    expect(ev).toMatchObject({ nodes: ['b', 'c', 'd'], approved_by: 'bob', guidance: 'use the new API' });
    const all = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'chain']);
    expect(all.code).toBe(3);
    expect(sb.read('ran.txt')).toBe('a\nside\nb\nc\nd\nb\nc\nlater\n');
    const status = await sb.cli(['status', '--run-id', 'chain']);
    expect(status.stdout).toMatch(/b \(rerun\)\s+completed\s+2/);
    expect(status.stdout).toMatch(/held: d \(rerun from a node/);
    expect(await sb.status('chain')).toMatchObject({
      attempts: { a: 1, side: 1, b: 2, c: 2, d: 1, later: 1 },
    });
  });

  it('on an ended run it forks <run-id>-2, starting with the records of the other nodes', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-rerun-');
    sb.write('graph.yml', chainGraph);
    const done = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'chain']);
    expect(done.code, done.stderr).toBe(0);
    const r = await sb.cli(['rerun-from', 'c', '--by', 'bob', '--run-id', 'chain']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/bob forked chain \(it had ended\) as chain-2 .*: c run again/);
    const fork = sb.journal('chain-2');
    expect(fork.events[0]).toMatchObject({
      type: 'RunStarted',
      forked_from: { run_id: 'chain', seq: sb.journal('chain').events.at(-1)!.seq, node: 'c' },
    });
    expect(eventsOf(fork, 'NodeCarriedOver').map((e) => e.node)).toEqual(['a', 'side', 'b', 'd', 'later']);
    const again = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'chain-2']);
    expect(again.code, again.stderr).toBe(0);
    expect(sb.read('ran.txt')).toBe('a\nside\nb\nc\nd\nlater\nc\n');
    expect(await sb.status('chain-2')).toMatchObject({ status: 'completed' });
    const second = await sb.cli(['rerun-from', 'a', '--by', 'bob', '--run-id', 'chain']);
    expect(second.stdout).toMatch(/as chain-3/);
  });

  it('a fork of a fork is the next of its series (fix/issue-80-3), as the App and nextRunId name it, not -2-2', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-rerun-');
    sb.write('graph.yml', chainGraph);
    expect((await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'fix/issue-80'])).code).toBe(0);
    expect((await sb.cli(['rerun-from', 'c', '--by', 'bob', '--run-id', 'fix/issue-80'])).code).toBe(0);
    expect((await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'fix/issue-80-2'])).code).toBe(0);
    const r = await sb.cli(['rerun-from', 'c', '--by', 'bob', '--run-id', 'fix/issue-80-2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/forked fix\/issue-80-2 \(it had ended\) as fix\/issue-80-3 /);
    expect(sb.journal('fix/issue-80-3').events[0]).toMatchObject({
      type: 'RunStarted',
      forked_from: { run_id: 'fix/issue-80-2', node: 'c' },
    });
  });
});
