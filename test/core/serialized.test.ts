// The serialized mode (issue 26, item 6) in the pure core: a session's ready chain is dispatched in one write and
// recorded in order; the first node that fails, and every node after it, go on one node a call; a crash mid-call
// recovers each node of the chain by its own replay rule; the fold refuses a chained dispatch out of order.
import { describe, expect, it } from 'vitest';
import { approachFor } from '../../src/graph/model.js';
import type { NewEvent } from '../../src/journal/events/events.js';
import { readyChain } from '../../src/protocol/chain-dispatch.js';
import type { AttemptOutcome } from '../../src/protocol/decide.js';
import { chainBudget, decideChainResult } from '../../src/protocol/serialized.js';
import { append, EXIT_1, foldError, graph, graphText, RUNNER, Sim } from './sim.js';

const node = (id: string, deps: string[], extra = '') =>
  `  - id: ${id}\n${deps.length ? `    depends_on: [${deps.join(', ')}]\n` : ''}    session: work\n    prompt: do ${id}\n${extra}`;
const FIVE = ['a', 'b', 'c', 'd', 'e'];
const chainText = (serialized: boolean, extras: Record<string, string> = {}) =>
  graphText(
    FIVE.map((id, i) => node(id, i ? [FIVE[i - 1]!] : [], extras[id] ?? '')).join(''),
    `defaults:\n  engine: claude-code\n  agent: claude -p\nsessions:\n  work: { serialized: ${serialized} }\n`,
  );
const G = graph(chainText(true));

const pass = (wall_ms = 5): AttemptOutcome => ({
  failures: [],
  evidence: [],
  outputs: {},
  usage: { wall_ms },
});
const failing: AttemptOutcome = { failures: EXIT_1, evidence: [], outputs: {}, usage: { wall_ms: 5 } };

function runChain(sim: Sim, outcomes: AttemptOutcome[]): ReturnType<typeof decideChainResult> {
  const d = sim.dispatch();
  const chain = [
    { node: d.node.id, attempt: d.attempt },
    ...(d.chain ?? []).map((m) => ({ node: m.node.id, attempt: m.attempt })),
  ];
  const r = decideChainResult(
    sim.run,
    chain,
    outcomes.map((outcome, i) => ({ node: chain[i]!.node, attempt: chain[i]!.attempt, outcome })),
  );
  sim.append(r.events);
  return r;
}

describe('rule: a serialized chain is dispatched in one write, before its one call', () => {
  it('dispatches the ready chain of the session, each node numbered in it', () => {
    const sim = new Sim(G);
    const d = sim.dispatch();
    expect(d.node.id).toBe('a');
    expect(d.chain?.map((m) => m.node.id)).toEqual(['b', 'c', 'd', 'e']);
    const dispatched = d.events.filter((e) => e.type === 'NodeDispatched');
    expect(dispatched.map((e) => [e.node, e.type === 'NodeDispatched' && e.chain?.position])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
      ['e', 5],
    ]);
    expect(sim.cp.active_nodes).toEqual(FIVE);
  });

  it('without serialized, one node a call', () => {
    const sim = new Sim(graph(chainText(false)));
    const d = sim.dispatch();
    expect(d.chain).toBeUndefined();
    expect(d.events).toHaveLength(1);
  });

  it('ends the chain before a node that reads an earlier node, has a gate or conditions', () => {
    const reads = graph(chainText(true, { c: '    env: { X: "${{ nodes.b.outputs.x }}" }\n' }));
    expect(new Sim(reads).dispatch().chain?.map((m) => m.node.id)).toEqual(['b']);
    const gated = graph(chainText(true, { d: '    approval: before\n' }));
    expect(new Sim(gated).dispatch().chain?.map((m) => m.node.id)).toEqual(['b', 'c']);
    const cond = graph(chainText(true, { b: '    execute_conditions: ["true"]\n' }));
    expect(new Sim(cond).dispatch().chain).toBeUndefined();
  });

  it('the fold refuses a chained node dispatched before its dependency in another chain, or alone', () => {
    const sim = new Sim(G);
    const base = {
      type: 'NodeDispatched' as const,
      attempt: 1,
      replay: 'never' as const,
      approach: 'default',
    };
    const b: NewEvent = {
      ...base,
      node: 'b',
      runner: RUNNER,
      chain: { session: 'work', first: 'b', position: 1 },
    };
    expect(foldError(append(sim.journal, [b]), G).message).toContain('before "a" ended');
    sim.append([{ ...base, node: 'a', runner: RUNNER, chain: { session: 'work', first: 'a', position: 1 } }]);
    const other = { ...RUNNER, exec_tag: 'other' };
    const c: NewEvent = {
      ...base,
      node: 'b',
      runner: other,
      chain: { session: 'work', first: 'a', position: 2 },
    };
    expect(foldError(append(sim.journal, [c]), G).message).toContain('not in flight in that chain');
    const skip: NewEvent = {
      ...base,
      node: 'c',
      runner: RUNNER,
      chain: { session: 'work', first: 'a', position: 3 },
    };
    expect(foldError(append(sim.journal, [skip]), G).message).toContain('"b" is not earlier in its chain');
  });
});

describe('rule: a chain joins only nodes with the same network and the same secrets', () => {
  it('runs a node with network: alone when the chain before it has none, and one without when it has', () => {
    const net = '    network: { allow: [registry.npmjs.org] }\n';
    expect(new Sim(graph(chainText(true, { c: net }))).dispatch().chain?.map((m) => m.node.id)).toEqual([
      'b',
    ]);
    expect(new Sim(graph(chainText(true, { a: net }))).dispatch().chain).toBeUndefined();
  });
  it('joins nodes whose network is the same, and not one whose allowlist differs', () => {
    const all = Object.fromEntries(
      FIVE.map((id) => [id, '    network: { allow: [a.example, b.example] }\n']),
    );
    const same = graph(chainText(true, { ...all, d: '    network: { allow: [b.example, a.example] }\n' }));
    expect(new Sim(same).dispatch().chain?.map((m) => m.node.id)).toEqual(['b', 'c', 'd', 'e']);
    const other = graph(chainText(true, { ...all, d: '    network: { allow: [a.example] }\n' }));
    expect(new Sim(other).dispatch().chain?.map((m) => m.node.id)).toEqual(['b', 'c']);
  });
  it('ends the chain before a node given other secrets than the first (node-credentials)', () => {
    const sim = new Sim(G);
    const head = G.nodes.find((n) => n.id === 'a')!;
    const onlyC = (x: string, y: string) => (x === 'c') === (y === 'c');
    const chain = readyChain(sim.run, head, approachFor(head, 0), onlyC);
    expect(chain.map((n) => n.id)).toEqual(['a', 'b']);
  });
});

describe('rule: a chain is recorded in order; from the first node that fails, one node a call', () => {
  it('records every node when all pass, and the run completes', () => {
    const sim = new Sim(G);
    const r = runChain(
      sim,
      FIVE.map(() => pass()),
    );
    expect(r.recorded).toBe(5);
    expect(sim.cp.traversal_path).toEqual(FIVE);
    expect(sim.cp.ended?.type).toBe('RunCompleted');
  });

  it('fails the third node and gives back the fourth and fifth; the retry and the rest go one a call', () => {
    const sim = new Sim(G);
    const r = runChain(sim, [pass(), pass(), failing]);
    expect(r.recorded).toBe(2);
    const types = r.events.map((e) => `${e.type} ${'node' in e ? e.node : ''}`);
    expect(types).toEqual([
      'NodeRecorded a',
      'NodeRecorded b',
      'NodeFailed c',
      'NodeReturned d',
      'NodeReturned e',
    ]);
    expect(sim.state.nodes.get('d')).toMatchObject({ state: 'pending', attempts: 1, failures: 0 });
    const retry = sim.dispatch();
    expect([retry.node.id, retry.attempt, retry.chain]).toEqual(['c', 2, undefined]);
    sim.succeed('c');
    const d = sim.dispatch();
    expect([d.node.id, d.attempt, d.chain]).toEqual(['d', 2, undefined]);
    expect(d.context.previous).toMatchObject({ attempt: 1 });
  });

  it("judges the call's usage, on the first node, by the chain's summed budget", () => {
    const g = graph(
      chainText(true, Object.fromEntries(FIVE.map((id) => [id, '    budget: { turns: 2 }\n']))),
    );
    expect(chainBudget(g.nodes)).toEqual({ turns: 10 });
    const sim = new Sim(g);
    const r = runChain(sim, [{ ...pass(), usage: { wall_ms: 5, turns: 7 } }, pass(), pass(), pass(), pass()]);
    expect(r.recorded).toBe(5);
    const over = new Sim(g);
    const o = runChain(over, [{ ...pass(), usage: { wall_ms: 5, turns: 11 } }]);
    expect(o.recorded).toBe(0);
    const failed = o.events.find((e) => e.type === 'NodeFailed');
    expect(failed?.type === 'NodeFailed' && failed.failures[0]?.message).toContain(
      "over the node's budget of 10 turns",
    );
  });
});

describe('rule: a crash mid-call recovers every node of the chain by its replay rule', () => {
  it('a safe node is ready again and a never node is held; no new chain forms', () => {
    const g = graph(chainText(true, { b: '    replay: safe\n', a: '    replay: safe\n' }));
    const sim = new Sim(g);
    sim.dispatch();
    sim.recover();
    const states = FIVE.map((id) => sim.state.nodes.get(id)!.state);
    expect(states).toEqual(['pending', 'pending', 'held', 'held', 'held']);
    const again = sim.dispatch();
    expect([again.node.id, again.chain]).toEqual(['a', undefined]);
  });
});

describe('the chain after a failure', () => {
  it('a node given back is refused when it is not chained', () => {
    const g = graph(graphText('  - id: a\n    run: "true"\n'));
    const sim = new Sim(g);
    sim.dispatch();
    const back: NewEvent = { type: 'NodeReturned', node: 'a', attempt: 1, reason: 'test' };
    expect(foldError(append(sim.journal, [back]), g).message).toContain('only a chained node is returned');
    sim.fail('a');
  });
});
