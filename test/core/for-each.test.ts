// for_each (issue 28), through the pure core: the list journaled once before any instance runs, instances named
// `<node>[<key>]` that are nodes in every respect, the join with tolerated_failures, and the lists that fail.
import { describe, expect, it } from 'vitest';
import { GraphError } from '../../src/graph/errors.js';
import type { NewEvent } from '../../src/journal/events.js';
import { fold } from '../../src/journal/fold.js';
import { expressionContext } from '../../src/protocol/context.js';
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
    const ctx = expressionContext(sim.graph, sim.state, 1, 'work[1]');
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
      /node "work" is expanded; only a pending for_each node is expanded/,
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
    const ctx = expressionContext(sim.graph, sim.state, 1, 'work[0]');
    expect(ctx.item).toEqual({ title: '${{ github.token }}' });
  });

  it('nested lists are items like any other', () => {
    const sim = planned(fanOut(), JSON.stringify([[1, [2, [3]]], []]));
    expect(sim.step()).toMatchObject({ kind: 'expand', items: 2 });
    expect(expressionContext(sim.graph, sim.state, 1, 'work[0]').item).toEqual([1, [2, [3]]]);
  });
});
