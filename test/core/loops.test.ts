// Bounded loops (`repeat:`) and rerunning from a node (issue 28), through the pure core only: one describe per
// rule (docs/ARCHITECTURE.md, "Loops and reruns"); each test breaks when its rule does.
import { describe, expect, it } from 'vitest';
import { nodeAndDependents } from '../../src/graph/dependents.js';
import { GraphError } from '../../src/graph/errors.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { nextRunId } from '../../src/journal/run-id.js';
import { approveNode } from '../../src/protocol/commands/gate.js';
import { personCommandEvents } from '../../src/protocol/commands/person-commands.js';
import { forkRun, rerunFrom } from '../../src/protocol/commands/rerun-from.js';
import { append, checkpointJson, foldError, graph, graphText, RUNNER, Sim, startJournal } from './sim.js';

const loopGraph = (max = '') =>
  graph(
    graphText(`  - id: write
    run: echo w
    replay: safe
  - id: review
    run: echo r
    replay: safe
    depends_on: [write]
    outputs: [approved]
    repeat:
      until: \${{ nodes.review.outputs.approved == 'true' }}
${max}  - id: ship
    run: echo s
    replay: safe
    depends_on: [review]
`),
  );

/** Runs `write`, then `review` once per answer (its `approved` output), as the protocol decides. */
function runLoop(sim: Sim, answers: string[]): void {
  sim.dispatch('write');
  sim.succeed('write');
  for (const a of answers) {
    sim.dispatch('review');
    sim.succeed('review', { approved: a });
  }
}

describe('loop rule 1: a loop runs again while until is false, at most max cycles, then escalates with each cycle outcome', () => {
  it('a false until starts the next cycle in the same write as the record, with the cycle and the value', () => {
    const sim = new Sim(loopGraph());
    runLoop(sim, ['false']);
    const last = sim.journal.events.slice(-2);
    expect(last.map((e) => e.type)).toEqual(['NodeRecorded', 'NodeCycleStarted']);
    expect(last[1]).toMatchObject({ node: 'review', cycle: 2, value: false, after_attempt: 1 });
    expect(sim.cp.cycles).toEqual({ review: 2 });
    expect(sim.cp.ready_nodes).toEqual(['review']);
  });

  it('the loop ends when until holds on cycle 2: its outputs are the last cycle, the earlier stay in the journal', () => {
    const sim = new Sim(loopGraph());
    runLoop(sim, ['false', 'true']);
    const review = sim.state.nodes.get('review')!;
    expect(review.state).toBe('completed');
    expect(review.outputs).toEqual({ approved: 'true' });
    const recorded = sim.journal.events.filter((e) => e.type === 'NodeRecorded' && e.node === 'review');
    expect(recorded.map((e) => (e.type === 'NodeRecorded' ? e.outputs.approved : ''))).toEqual([
      'false',
      'true',
    ]);
    expect(sim.cp.ready_nodes).toEqual(['ship']);
    expect(sim.journal.events.filter((e) => e.type === 'NodeCycleStarted')).toHaveLength(1);
  });

  it('after max cycles with until false the node escalates, the report listing each cycle', () => {
    const sim = new Sim(loopGraph());
    runLoop(sim, ['no', 'no', 'no']);
    expect(sim.journal.events.filter((e) => e.type === 'NodeCycleStarted')).toHaveLength(2);
    const review = sim.state.nodes.get('review')!;
    expect(review.state).toBe('escalated');
    expect(sim.cp.escalated_nodes).toEqual(['review']);
    expect(review.report?.cycles?.map((c) => [c.cycle, c.attempt, c.outputs.approved])).toEqual([
      [1, 1, 'no'],
      [2, 2, 'no'],
      [3, 3, 'no'],
    ]);
    expect(review.report?.needed).toContain('3 of 3 cycles');
    expect(sim.cp.ready_nodes).toEqual([]);
    expect(sim.cp.status).toBe('blocked');
  });

  it('max bounds the cycles: max 1 escalates after the first', () => {
    const sim = new Sim(loopGraph('      max: 1\n'));
    runLoop(sim, ['no']);
    expect(sim.state.nodes.get('review')!.state).toBe('escalated');
  });

  it('an until that cannot be evaluated escalates the loop, saying why', () => {
    const g = graph(
      graphText(`  - id: review
    run: echo r
    repeat:
      until: \${{ fromJSON(nodes.review.outputs.verdict).ok }}
`),
    );
    const sim = new Sim(g);
    sim.dispatch('review');
    sim.succeed('review', { verdict: 'not json' });
    const review = sim.state.nodes.get('review')!;
    expect(review.state).toBe('escalated');
    expect(review.report?.cycles?.[0]?.until).toMatch(/^could not be evaluated/);
  });

  it('a cycle past max, or one that skips a number, is refused by the fold', () => {
    const g = loopGraph('      max: 2\n');
    const sim = new Sim(g);
    runLoop(sim, ['no']);
    const skipped = sim.journal.events.map((e) => (e.type === 'NodeCycleStarted' ? { ...e, cycle: 3 } : e));
    expect(foldError({ ...sim.journal, events: skipped }, g).message).toMatch(/cycle 3 where 2 was expected/);
    sim.dispatch('review');
    sim.succeed('review', { approved: 'no' });
    const over = append(sim.journal, [
      { type: 'NodeCycleStarted', node: 'review', cycle: 3, until: 'x', value: false, after_attempt: 2 },
    ]);
    expect(foldError(over, g).message).toMatch(/past its repeat.max 2|is escalated/);
  });

  it('a person approving a rerun of an escalated loop gets one more attempt; settling keeps its last outputs', () => {
    const sim = new Sim(loopGraph('      max: 2\n'));
    runLoop(sim, ['no', 'no']);
    sim.approve('review');
    sim.dispatch('review');
    sim.succeed('review', { approved: 'true' });
    expect(sim.state.nodes.get('review')!.state).toBe('completed');
    const other = new Sim(loopGraph('      max: 2\n'));
    runLoop(other, ['no', 'maybe']);
    other.settle('review');
    expect(other.state.nodes.get('review')!.outputs).toEqual({ approved: 'maybe' });
    expect(other.cp.ready_nodes).toEqual(['ship']);
  });

  it('repeat.until must parse and repeat.max is bounded, with the place named', () => {
    const bad =
      (until: string, max = 3) =>
      () =>
        graph(graphText(`  - id: a\n    run: x\n    repeat:\n      until: "${until}"\n      max: ${max}\n`));
    expect(bad('nodes.a.outputs.x ==')).toThrow(GraphError);
    expect(bad('nodes.a.outputs.x ==')).toThrow(/graph.yml:\d+:\d+: node "a" repeat.until/);
    expect(bad('true', 11)).toThrow(/max/);
    expect(loopGraph().nodes[1]!.repeat).toEqual({
      max: 3,
      until: "${{ nodes.review.outputs.approved == 'true' }}",
    });
  });
});

describe('loop rule 2: the dependents of a loop wait until it ends', () => {
  it('a dependent is never ready between cycles, and the fold refuses its dispatch there', () => {
    const g = loopGraph();
    const sim = new Sim(g);
    runLoop(sim, ['no']);
    expect(sim.cp.ready_nodes).not.toContain('ship');
    expect(sim.next('ship')).toMatchObject({ kind: 'blocked' });
    const early = append(sim.journal, [
      {
        type: 'NodeDispatched',
        node: 'ship',
        attempt: 1,
        replay: 'safe',
        approach: 'default',
        runner: RUNNER,
      },
    ]);
    expect(foldError(early, g).message).toMatch(/"ship" dispatched before "review" ended/);
  });

  it('the run does not complete while the loop goes on', () => {
    const g = graph(
      graphText(`  - id: only\n    run: x\n    repeat:\n      until: "nodes.only.outputs.done == 'y'"\n`),
    );
    const sim = new Sim(g);
    sim.dispatch('only');
    sim.succeed('only', { done: 'n' });
    expect(sim.journal.events.some((e) => e.type === 'RunCompleted')).toBe(false);
    sim.dispatch('only');
    sim.succeed('only', { done: 'y' });
    expect(sim.journal.events.at(-1)?.type).toBe('RunCompleted');
  });
});

describe('loop rule 3: each cycle counts its own attempts and retries and has its own idempotency key', () => {
  it('a cycle gets its full retries again (rule 5 within a cycle), attempt numbers go on', () => {
    const sim = new Sim(loopGraph());
    sim.dispatch('write');
    sim.succeed('write');
    sim.dispatch('review');
    sim.fail('review');
    sim.dispatch('review');
    sim.succeed('review', { approved: 'no' });
    const d = sim.dispatch('review');
    expect(d.attempt).toBe(3);
    expect(d.approach.label).toBe('default');
    sim.fail('review');
    sim.dispatch('review');
    sim.fail('review');
    // Two failures in cycle 2: escalated by rule 5, and the report is of cycle 2's attempts only.
    const review = sim.state.nodes.get('review')!;
    expect(review.state).toBe('escalated');
    expect(review.report?.attempted.map((a) => a.attempt)).toEqual([3, 4]);
  });

  it('the idempotency key differs per cycle; the first cycle keeps the plain key', () => {
    const sim = new Sim(loopGraph());
    sim.dispatch('write');
    sim.succeed('write');
    const first = sim.dispatch('review');
    expect(first.context.idempotency_key).toBe('test/local/review');
    sim.succeed('review', { approved: 'no' });
    const second = sim.dispatch('review');
    expect(second.context.idempotency_key).toBe('test/local/review/cycle-2');
    expect(second.context.cycle).toBe(2);
    expect(second.context.previous?.statement).toMatch(/cycle 1 of this loop/);
  });
});

const chain = () =>
  graph(
    graphText(`  - id: a
    run: echo a
    replay: safe
  - id: side
    run: echo side
    replay: safe
  - id: b
    run: echo b
    replay: safe
    depends_on: [a]
  - id: gated
    run: echo g
    replay: safe
    approval: before
    depends_on: [b]
  - id: never
    run: echo n
    depends_on: [b]
  - id: c
    run: echo c
    replay: safe
    depends_on: [b]
`),
  );

/** Runs every node of `chain()` to completion, approving the gate. */
function runChain(sim: Sim, stop = false): void {
  for (const id of ['a', 'side', 'b']) {
    sim.dispatch(id);
    sim.succeed(id, { out: `${id}1` });
  }
  sim.step('gated');
  const ok = approveNode({
    run: sim,
    node: 'gated',
    by: 'ann',
    source: 'test',
    graph_hash: sim.graph.hash,
    required: 1,
  });
  if (!ok.ok) throw new Error(ok.reason);
  sim.append(ok.events);
  for (const id of ['gated', 'never', ...(stop ? [] : ['c'])]) {
    sim.dispatch(id);
    sim.succeed(id);
  }
}

const req = (node: string) => ({ node, by: 'bob', source: 'cli:bob' });

describe('rerun rule 1: rerun-from marks the node and its dependents, transitively, and nothing else', () => {
  it('the event names the node and every dependent in declaration order; the others keep their records', () => {
    const sim = new Sim(chain());
    runChain(sim, true);
    const r = rerunFrom({ run: sim, ...req('b'), graph_hash: sim.state.accepted_hash });
    if (!r.ok) throw new Error(r.reason);
    expect(r.events[0]).toMatchObject({
      type: 'RerunFromApproved',
      node: 'b',
      nodes: ['b', 'gated', 'never', 'c'],
    });
    sim.append(r.events);
    expect(sim.cp.completed_nodes).toEqual(['a', 'side']);
    expect(sim.state.nodes.get('b')!.outputs).toEqual({});
    expect(sim.state.nodes.get('a')!.outputs).toEqual({ out: 'a1' });
    expect(sim.cp.ready_nodes).toEqual(['b']);
    expect(sim.cp.reruns).toEqual({ b: 1 });
    const d = sim.dispatch('b');
    expect(d.attempt).toBe(2);
    expect(d.context.previous?.statement).toMatch(/rerun-from/);
  });

  it('dependents of dependents are marked too, whatever the declaration order; siblings are not', () => {
    const nodes = [
      { id: 'grandchild', depends_on: ['child'] },
      { id: 'other', depends_on: [] },
      { id: 'child', depends_on: ['root'] },
      { id: 'root', depends_on: [] },
      { id: 'greatgrandchild', depends_on: ['grandchild', 'other'] },
    ];
    expect(nodeAndDependents(nodes, 'root')).toEqual(['grandchild', 'child', 'root', 'greatgrandchild']);
    expect(nodeAndDependents(nodes, 'other')).toEqual(['other', 'greatgrandchild']);
  });

  it('a fold refuses a rerun whose list is not exactly the node and its dependents', () => {
    const sim = new Sim(chain());
    runChain(sim, true);
    const r = rerunFrom({ run: sim, ...req('b'), graph_hash: sim.state.accepted_hash });
    if (!r.ok) throw new Error(r.reason);
    const short = append(sim.journal, [{ ...r.events[0]!, nodes: ['b', 'c'] } as (typeof r.events)[0]]);
    expect(foldError(short, sim.graph).message).toMatch(/its dependents are b, gated, never, c/);
  });

  it('refused for a node that has not run, one with a dependent in flight, and an unknown node', () => {
    const sim = new Sim(chain());
    expect(rerunFrom({ run: sim, ...req('a'), graph_hash: sim.state.accepted_hash })).toMatchObject({
      ok: false,
      reason: /has not run/,
    });
    sim.dispatch('a');
    sim.succeed('a');
    sim.dispatch('b');
    expect(rerunFrom({ run: sim, ...req('a'), graph_hash: sim.state.accepted_hash })).toMatchObject({
      ok: false,
      reason: /"b" is in flight/,
    });
    expect(rerunFrom({ run: sim, ...req('bb'), graph_hash: sim.state.accepted_hash })).toMatchObject({
      ok: false,
      reason: /not a node.*"b"/,
    });
  });

  it('a comment reruns once: the same delivery again is a duplicate', () => {
    const sim = new Sim(chain());
    runChain(sim, true);
    const giver = {
      login: 'bob',
      source: 'https://github.com/o/r/issues/1#issuecomment-9',
      required: 1,
      graphHash: sim.graph.hash,
    };
    const cmd = { kind: 'rerun-from' as const, node: 'never' };
    const first = personCommandEvents({ run: sim, command: cmd, giver });
    if (!first.ok) throw new Error(first.reason);
    sim.append(first.events);
    expect(personCommandEvents({ run: sim, command: cmd, giver })).toMatchObject({
      ok: false,
      duplicate: true,
    });
  });
});

describe('rerun rule 2: no approval is carried over to a rerun', () => {
  it('a gated node awaits /approve again and a replay: never node that ran is held for /approve-rerun', () => {
    const sim = new Sim(chain());
    runChain(sim, true);
    const r = rerunFrom({ run: sim, ...req('b'), graph_hash: sim.state.accepted_hash });
    if (!r.ok) throw new Error(r.reason);
    sim.append(r.events);
    expect(sim.state.nodes.get('never')!.state).toBe('held');
    expect(sim.cp.held_nodes).toEqual(['never']);
    sim.dispatch('b');
    sim.succeed('b');
    expect(sim.step('gated')).toMatchObject({ kind: 'awaiting-approval', node: 'gated' });
    expect(sim.step('c')).toMatchObject({ kind: 'dispatch' });
    sim.approve('never');
    expect(sim.cp.ready_nodes).toContain('never');
  });
});

describe('rerun rule 3: an ended run is forked, starting with the records of every node outside the rerun', () => {
  it('the fork names the run and its last event, carries the others, and runs the named node again', () => {
    const sim = new Sim(chain());
    runChain(sim);
    expect(sim.cp.status).toBe('completed');
    expect(rerunFrom({ run: sim, ...req('b'), graph_hash: sim.state.accepted_hash })).toMatchObject({
      ok: false,
      reason: /forks a new run/,
    });
    const f = forkRun({ run: sim, ...req('b') });
    if (!f.ok) throw new Error(f.reason);
    const id = nextRunId(sim.journal.run_id, (x) => x === 'test/local-2');
    expect(id).toBe('test/local-3');
    const last = sim.journal.events.at(-1)!.seq;
    expect(f.events[0]).toMatchObject({
      type: 'RunStarted',
      forked_from: { run_id: 'test/local', seq: last, node: 'b' },
    });
    expect(f.events.slice(1).map((e) => (e.type === 'NodeCarriedOver' ? e.node : e.type))).toEqual([
      'a',
      'side',
    ]);
    const fork = new Sim(sim.graph);
    fork.journal = append({ ...startJournal(sim.graph), run_id: id, events: [] }, f.events);
    expect(fork.cp.completed_nodes).toEqual(['a', 'side']);
    expect(fork.state.nodes.get('a')!.outputs).toEqual({ out: 'a1' });
    expect(fork.cp.ready_nodes).toEqual(['b']);
  });

  it('a carried-over node is refused anywhere but right after a forked RunStarted', () => {
    const sim = new Sim(chain());
    const carried = append(sim.journal, [
      { type: 'NodeCarriedOver', node: 'a', from_seq: 2, state: 'completed', outputs: {} },
    ]);
    expect(foldError(carried, sim.graph).message).toMatch(/only a forked run/);
  });
});

describe('loop and rerun rule: the same journal folds to the same checkpoint', () => {
  it('a journal with cycles, an escalation and a rerun folds to the same bytes, through serialization too', () => {
    const sim = new Sim(loopGraph());
    runLoop(sim, ['no', 'no', 'no']);
    sim.approve('review');
    sim.dispatch('review');
    sim.succeed('review', { approved: 'true' });
    const r = rerunFrom({ run: sim, ...req('write'), graph_hash: sim.state.accepted_hash });
    if (!r.ok) throw new Error(r.reason);
    sim.append(r.events);
    const again = parseJournal(serializeJournal(sim.journal), 'loops');
    expect(checkpointJson(again, sim.graph)).toBe(checkpointJson(sim.journal, sim.graph));
    expect(fold(again, sim.graph).checkpoint.cycles).toBeUndefined();
    expect(fold(again, sim.graph).checkpoint.reruns).toEqual({ write: 1 });
  });
});
