// for_each (issue 28), through the pure core: the list journaled once before any instance runs, instances named
// `<node>[<key>]` that are nodes in every respect, the join with tolerated_failures, and the lists that fail.
import { describe, expect, it } from 'vitest';
import { GraphError } from '../../src/graph/errors.js';
import type { NewEvent } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { expressionContext } from '../../src/protocol/attempt/context.js';
import { withCompletion } from '../../src/protocol/decide.js';
import { expansionEvents } from '../../src/protocol/expansion.js';
import { MAX_NAMED } from '../../src/render/instances.js';
import { jobSummary } from '../../src/render/markdown.js';
import { statusMermaid, statusTable } from '../../src/render/status.js';
import { append, checkpointJson, foldError, graph, graphText, RUNNER, Sim } from './sim.js';

const TASKS = JSON.stringify([
  { id: 'a', title: 'A' },
  { id: 'b', title: 'B' },
  { id: 'c', title: 'C' },
]);

function fanOut(extra = '', items = '${{ fromJSON(nodes.plan.outputs.tasks) }}') {
  return graph(
    graphText(`  - id: plan
    run: echo plan
    outputs: [tasks]
  - id: work
    depends_on: [plan]
    for_each: "${items}"
    replay: safe
    env:
      TITLE: "\${{ item.title }}"
      AT: "\${{ index }}"
    run: echo "$TITLE"
    outputs: [done]
${extra}  - id: integrate
    depends_on: [work]
    env:
      ALL: "\${{ toJSON(nodes.work.outputs) }}"
    run: echo "$ALL"
`),
  );
}

function planned(g = fanOut(), tasks = TASKS): Sim {
  const sim = new Sim(g);
  sim.dispatch('plan');
  sim.succeed('plan', { tasks });
  return sim;
}

describe('for_each rule 1: the list is evaluated once, when the node is ready, and journaled before any instance runs', () => {
  it('the ready for_each node is expanded into NodeExpanded with each item, and nothing else is written', () => {
    const sim = planned();
    const d = sim.step();
    expect(d).toMatchObject({ kind: 'expand', node: 'work', items: 3 });
    const last = sim.journal.events.at(-1)!;
    expect(last).toMatchObject({
      type: 'NodeExpanded',
      node: 'work',
      items: [
        { key: '0', value: { id: 'a', title: 'A' } },
        { key: '1', value: { id: 'b', title: 'B' } },
        { key: '2', value: { id: 'c', title: 'C' } },
      ],
    });
    expect(sim.cp.ready_nodes).toEqual(['work[0]', 'work[1]', 'work[2]']);
    expect(sim.cp.expanded_nodes).toEqual(['work']);
  });

  it('instances run with item and index in their expressions, and the list is never evaluated again', () => {
    const sim = planned();
    sim.step();
    // The upstream output changes under the run (a settle, a graph change): the journaled list stands.
    const st = sim.state;
    st.nodes.get('plan')!.outputs = { tasks: '[]' };
    const ctx = expressionContext({ graph: sim.graph, state: sim.state, attempt: 1, node: 'work[1]' });
    expect(ctx.item).toEqual({ id: 'b', title: 'B' });
    expect(ctx.index).toBe(1);
    const d = sim.dispatch();
    expect(d.node.id).toBe('work[0]');
    expect(d.context.idempotency_key).toBe('test/local/work[0]');
    expect(sim.journal.events.filter((e) => e.type === 'NodeExpanded')).toHaveLength(1);
  });

  it('a key expression names the instances', () => {
    const sim = planned(fanOut('    key: "${{ item.id }}"\n'));
    sim.step();
    expect(sim.cp.ready_nodes).toEqual(['work[a]', 'work[b]', 'work[c]']);
  });

  it('a journal that dispatches an instance before its node was expanded is refused', () => {
    const sim = planned();
    const j = append(sim.journal, [
      {
        type: 'NodeDispatched',
        node: 'work[0]',
        attempt: 1,
        replay: 'safe',
        approach: 'default',
        runner: RUNNER,
      },
    ]);
    expect(foldError(j, sim.graph).message).toMatch(/names node "work\[0\]", which is not in the graph/);
  });

  it('a journal that expands a node twice is refused', () => {
    const sim = planned();
    sim.step();
    const again = sim.journal.events.at(-1)! as NewEvent & { seq?: number };
    const { seq: _s, at: _a, ...event } = again as unknown as Record<string, unknown>;
    expect(foldError(append(sim.journal, [event as NewEvent]), sim.graph).message).toMatch(
      /node "work" is expanded; only a pending for_each or sub-graph node is expanded/,
    );
  });

  it('the same journal folds to the same checkpoint bytes', () => {
    const sim = planned();
    sim.step();
    sim.dispatch();
    sim.succeed('work[0]', { done: 'x' });
    expect(checkpointJson(sim.journal, sim.graph)).toBe(checkpointJson(sim.journal, sim.graph));
    expect(JSON.stringify(fold(sim.journal, sim.graph).checkpoint)).toBe(
      checkpointJson(sim.journal, sim.graph),
    );
  });
});

describe('for_each rule 2: a list that is not a list, empty, over max_items, or with bad or duplicate keys fails the node', () => {
  const cases: [string, string, RegExp][] = [
    ['not a list', JSON.stringify({ a: 1 }), /gave object, not a list/],
    ['a string', JSON.stringify('abc'), /gave string, not a list/],
    ['empty', '[]', /gave an empty list/],
    [
      'over max_items',
      JSON.stringify(Array.from({ length: 10_000 }, (_, i) => i)),
      /10000 items, more than max_items 256/,
    ],
  ];
  for (const [what, tasks, why] of cases)
    it(`${what}: NodeExpansionFailed with the reason, and the node escalates at once`, () => {
      const sim = planned(fanOut(), tasks);
      const d = sim.step();
      expect(d).toMatchObject({ kind: 'expand-failed', node: 'work' });
      expect(d.kind === 'expand-failed' && d.reason).toMatch(why);
      expect(sim.journal.events.at(-2)).toMatchObject({
        type: 'NodeExpansionFailed',
        node: 'work',
        attempt: 1,
      });
      expect(sim.cp.escalated_nodes).toEqual(['work']);
      expect(sim.cp.ready_nodes).toEqual([]);
    });

  const keys: [string, string, RegExp][] = [
    ['a key with /', JSON.stringify([{ id: 'a/b' }]), /key "a\/b" is not/],
    ['a key with ..', JSON.stringify([{ id: '..' }]), /key "\.\." is not/],
    ['a key with ]', JSON.stringify([{ id: 'a]' }]), /key "a]" is not/],
    ['a key with a line break', JSON.stringify([{ id: 'a\nb' }]), /key "a\\nb" is not/],
    ['duplicate keys', JSON.stringify([{ id: 'x' }, { id: 'x' }]), /items 0 and 1 have the same key "x"/],
  ];
  for (const [what, tasks, why] of keys)
    it(`${what} fails the node`, () => {
      const sim = planned(fanOut('    key: "${{ item.id }}"\n'), tasks);
      const d = sim.step();
      expect(d.kind === 'expand-failed' && d.reason).toMatch(why);
    });

  it('max_items raises the limit, up to 1000', () => {
    const sim = planned(
      fanOut('    max_items: 300\n'),
      JSON.stringify(Array.from({ length: 300 }, (_, i) => i)),
    );
    expect(sim.step()).toMatchObject({ kind: 'expand', items: 300 });
    expect(() => fanOut('    max_items: 1001\n')).toThrow(GraphError);
  });

  it('an approved rerun of the failed node evaluates the list again', () => {
    const sim = planned(fanOut(), '[]');
    sim.step();
    sim.approve('work');
    // Still empty: it fails again, as attempt 2.
    expect(sim.step()).toMatchObject({ kind: 'expand-failed', attempt: 2 });
  });
});

describe('for_each rule 3: item values are data', () => {
  it('an item holding ${{ }} text stays text', () => {
    const sim = planned(
      fanOut(),
      JSON.stringify([{ title: '${{ github.token }}' }, { title: '${{ inputs.x }}' }]),
    );
    sim.step();
    const ctx = expressionContext({ graph: sim.graph, state: sim.state, attempt: 1, node: 'work[0]' });
    expect(ctx.item).toEqual({ title: '${{ github.token }}' });
  });

  it('nested lists are items like any other', () => {
    const sim = planned(fanOut(), JSON.stringify([[1, [2, [3]]], []]));
    expect(sim.step()).toMatchObject({ kind: 'expand', items: 2 });
    expect(
      expressionContext({ graph: sim.graph, state: sim.state, attempt: 1, node: 'work[0]' }).item,
    ).toEqual([1, [2, [3]]]);
  });
});

/** Expands `work` and runs each instance to the end `outcome` gives it: completed, or escalated (3 failures). */
function runInstances(sim: Sim, outcome: (id: string) => 'ok' | 'escalate'): void {
  sim.step();
  for (const id of [...sim.cp.ready_nodes]) {
    if (outcome(id) === 'ok') {
      sim.dispatch(id);
      sim.succeed(id, { done: `${id} done` });
    } else
      for (let k = 0; k < 2; k++) {
        sim.dispatch(id);
        sim.fail(id);
      }
  }
}

describe('for_each rule 4: a dependent waits for every instance; tolerated_failures lets it go on past escalated ones', () => {
  it('the join waits for the last instance, then NodeJoined completes the node and the dependent sees the outputs in item order', () => {
    const sim = planned();
    runInstances(sim, () => 'ok');
    expect(sim.cp.ready_nodes).toEqual(['work']);
    expect(sim.step()).toMatchObject({ kind: 'join', node: 'work', tolerated: [] });
    expect(sim.journal.events.at(-1)).toMatchObject({
      type: 'NodeJoined',
      completed: ['work[0]', 'work[1]', 'work[2]'],
      tolerated: [],
    });
    expect(sim.cp.ready_nodes).toEqual(['integrate']);
    const ctx = expressionContext({ graph: sim.graph, state: sim.state, attempt: 1, node: 'integrate' });
    expect((ctx.nodes as Record<string, { outputs: unknown }>).work!.outputs).toEqual([
      { done: 'work[0] done' },
      { done: 'work[1] done' },
      { done: 'work[2] done' },
    ]);
  });

  it('while one instance is in flight the node is not ready and its dependent waits', () => {
    const sim = planned();
    sim.step();
    sim.dispatch('work[0]');
    sim.succeed('work[0]');
    sim.dispatch('work[1]');
    sim.succeed('work[1]');
    sim.dispatch('work[2]');
    expect(sim.cp.ready_nodes).toEqual([]);
    expect(sim.next('integrate')).toMatchObject({
      kind: 'blocked',
      reason: expect.stringMatching(/waits for "work"/),
    });
    expect(sim.next('work')).toMatchObject({
      kind: 'blocked',
      reason: expect.stringMatching(/instances have not all ended \(work\[2\]\)/),
    });
  });

  it('without tolerated_failures an escalated instance blocks the join, named', () => {
    const sim = planned();
    runInstances(sim, (id) => (id === 'work[1]' ? 'escalate' : 'ok'));
    expect(sim.cp.escalated_nodes).toEqual(['work[1]']);
    expect(sim.cp.status).toBe('blocked');
    expect(sim.next()).toMatchObject({
      kind: 'blocked',
      reason: expect.stringMatching(/escalated.*work\[1\]/),
    });
  });

  it('tolerated_failures: 1 joins past one escalated instance, and the journal and the outputs say which', () => {
    const sim = planned(fanOut('    tolerated_failures: 1\n'));
    runInstances(sim, (id) => (id === 'work[1]' ? 'escalate' : 'ok'));
    expect(sim.step()).toMatchObject({ kind: 'join', tolerated: ['work[1]'] });
    expect(sim.journal.events.at(-1)).toMatchObject({
      type: 'NodeJoined',
      completed: ['work[0]', 'work[2]'],
      tolerated: ['work[1]'],
    });
    expect(sim.cp.tolerated_nodes).toEqual(['work[1]']);
    expect(sim.cp.escalated_nodes).toEqual([]);
    const ctx = expressionContext({ graph: sim.graph, state: sim.state, attempt: 1, node: 'integrate' });
    expect((ctx.nodes as Record<string, { outputs: unknown }>).work!.outputs).toEqual([
      { done: 'work[0] done' },
      null,
      { done: 'work[2] done' },
    ]);
    sim.dispatch('integrate');
    sim.succeed('integrate');
    expect(sim.cp.status).toBe('completed');
  });

  it('a percentage is of the items, rounded down: 50% of 3 tolerates 1, not 2', () => {
    const sim = planned(fanOut('    tolerated_failures: 50%\n'));
    runInstances(sim, (id) => (id === 'work[0]' ? 'ok' : 'escalate'));
    expect(sim.cp.ready_nodes).toEqual([]);
    const one = planned(fanOut('    tolerated_failures: 50%\n'));
    runInstances(one, (id) => (id === 'work[0]' ? 'escalate' : 'ok'));
    expect(one.cp.ready_nodes).toEqual(['work']);
  });

  it('a journal whose NodeJoined tolerates more than the graph allows is refused', () => {
    const sim = planned();
    runInstances(sim, (id) => (id === 'work[1]' ? 'escalate' : 'ok'));
    const j = append(sim.journal, [
      { type: 'NodeJoined', node: 'work', completed: ['work[0]', 'work[2]'], tolerated: ['work[1]'] },
    ]);
    expect(foldError(j, sim.graph).message).toMatch(/cannot be joined/);
  });
});

describe('for_each rule 5: each instance is held, approved and settled by its own name', () => {
  it('an interrupted never instance is held as work[1], and /approve-rerun work[1] releases only it', () => {
    const g = graph(
      graphText(`  - id: work
    for_each: "\${{ fromJSON('[1,2,3]') }}"
    run: echo hi
`),
    );
    const sim = new Sim(g);
    sim.step();
    sim.dispatch('work[1]');
    sim.recover();
    expect(sim.cp.held_nodes).toEqual(['work[1]']);
    expect(sim.cp.ready_nodes).toEqual(['work[0]', 'work[2]']);
    sim.approve('work[1]');
    expect(sim.cp.ready_nodes).toEqual(['work[0]', 'work[1]', 'work[2]']);
    expect(sim.dispatch('work[1]').attempt).toBe(2);
    expect(sim.cp.attempts).toMatchObject({ work: 0, 'work[0]': 0, 'work[1]': 2, 'work[2]': 0 });
  });

  it('an escalated instance settled by a person counts as completed for the join', () => {
    const sim = planned();
    runInstances(sim, (id) => (id === 'work[2]' ? 'escalate' : 'ok'));
    sim.settle('work[2]');
    expect(sim.step()).toMatchObject({ kind: 'join', tolerated: [] });
  });
});

describe('for_each rule 6: max_parallel bounds the instances in flight', () => {
  it('with max_parallel 2, two instances are ready, and a third only once one ends', () => {
    const sim = planned(fanOut('    max_parallel: 2\n'));
    sim.step();
    expect(sim.cp.ready_nodes).toEqual(['work[0]', 'work[1]']);
    sim.dispatch('work[0]');
    expect(sim.cp.ready_nodes).toEqual(['work[1]']);
    sim.dispatch('work[1]');
    expect(sim.cp.ready_nodes).toEqual([]);
    expect(sim.next('work[2]')).toMatchObject({
      kind: 'blocked',
      reason: expect.stringMatching(/max_parallel 2 instance\(s\) in flight/),
    });
    sim.succeed('work[0]');
    expect(sim.cp.ready_nodes).toEqual(['work[2]']);
  });
});

describe('for_each rule 7: the graph says where item, for_each and its companions may be', () => {
  it('item in a node without for_each is refused, naming the node and the fix', () => {
    expect(() =>
      graph(graphText(`  - id: a\n    run: echo a\n    env:\n      X: "\${{ item.x }}"\n`)),
    ).toThrow(/node "a" reads item or index .* add for_each/);
  });
  it('max_parallel without for_each is refused', () => {
    expect(() => graph(graphText(`  - id: a\n    run: echo a\n    max_parallel: 2\n`))).toThrow(
      /has max_parallel but no for_each/,
    );
  });
  it('for_each that is not one expression is refused', () => {
    expect(() => graph(graphText(`  - id: a\n    run: echo a\n    for_each: "[1, 2]"\n`))).toThrow(
      /for_each: it must be one \$\{\{ \}\} expression/,
    );
  });
  it('a prompt node may be a for_each node', () => {
    const g = graph(
      graphText(
        `  - id: a\n    prompt: "Do \${{ item }}"\n    agent: cat\n    for_each: "\${{ fromJSON('[1]') }}"\n`,
      ),
    );
    expect(g.nodes[0]!.for_each).toEqual({ list: "${{ fromJSON('[1]') }}", max_items: 256 });
  });
  it('a graph without for_each keeps its hash', () => {
    const text = graphText(`  - id: a\n    run: echo a\n`);
    expect(graph(text).hash).toBe(graph(text).hash);
    expect(graph(text).nodes[0]).not.toHaveProperty('for_each');
  });
});

describe('for_each: an instance is told and shown as a node is', () => {
  it("an instance's envelope names the nodes its node depends on", () => {
    const sim = planned();
    sim.step();
    const d = sim.dispatch('work[1]');
    expect(d.context.earlier.map((e) => e.node)).toEqual(['plan']);
  });

  it("the job summary shows a failing instance's output", () => {
    const sim = planned();
    sim.step();
    sim.dispatch('work[2]');
    sim.fail('work[2]', [{ check: 'exit', message: 'exited 1', excerpt: 'boom in work 2' }]);
    expect(jobSummary(sim.graph, sim.state, 'headline')).toContain('boom in work 2');
  });

  it('a for_each node with a session is refused: its instances cannot continue one conversation', () => {
    expect(() =>
      graph(
        graphText(
          `  - id: a\n    prompt: "x \${{ item }}"\n    engine: claude-code\n    session: s\n    for_each: "\${{ fromJSON('[1]') }}"\n`,
        ),
      ),
    ).toThrow(/has a session and for_each/);
  });
});

describe('for_each: what mode: plan writes before it lists the ready nodes', () => {
  it('every ready for_each node is expanded in one call, and a node whose instances all ended is joined', () => {
    const g = graph(
      graphText(`  - id: one
    for_each: "\${{ fromJSON('[1,2]') }}"
    replay: safe
    run: echo one
  - id: two
    for_each: "\${{ fromJSON('[3]') }}"
    replay: safe
    run: echo two
  - id: after
    depends_on: [one, two]
    run: echo after
`),
    );
    const sim = new Sim(g);
    const first = expansionEvents(sim.run, withCompletion);
    expect(first.decisions.map((d) => `${d.kind} ${d.node}`)).toEqual(['expand one', 'expand two']);
    sim.append(first.events);
    expect(sim.cp.ready_nodes).toEqual(['one[0]', 'one[1]', 'two[0]']);
    for (const id of ['one[0]', 'one[1]', 'two[0]']) {
      sim.dispatch(id);
      sim.succeed(id);
    }
    const second = expansionEvents(sim.run, withCompletion);
    expect(second.decisions.map((d) => `${d.kind} ${d.node}`)).toEqual(['join one', 'join two']);
    sim.append(second.events);
    expect(sim.cp.ready_nodes).toEqual(['after']);
    expect(expansionEvents(sim.run, withCompletion).events).toEqual([]);
  });
});

describe('for_each: the status table and diagram group the instances', () => {
  it('counts them on the node, names the failing ones, and bounds the named rows', () => {
    const sim = planned(fanOut(), JSON.stringify(Array.from({ length: 30 }, (_, i) => ({ title: `t${i}` }))));
    sim.step();
    for (let i = 0; i < 25; i++) {
      sim.dispatch(`work[${i}]`);
      sim.fail(`work[${i}]`);
    }
    const table = statusTable(sim.graph, sim.state, 400);
    expect(table).toContain(
      '30 instances: 25 failed (work[0], work[1], work[2], work[3], work[4] and 20 more), 5 waiting',
    );
    expect(table.split('\n').filter((l) => l.startsWith('  work[')).length).toBe(MAX_NAMED);
    expect(table).toContain('  … 5 more');
    expect(statusMermaid(sim.graph, sim.state)).toContain(
      'n_work["work<br/>expanded<br/>30 instances: 25 failed',
    );
  });
});
