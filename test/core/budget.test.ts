// The budget rules (docs/ARCHITECTURE.md, "The budget"), each broken on purpose by a test here: an attempt over its
// node's budget fails saying so; a run at its budget escalates instead of dispatching; approving that node
// raises the budget from what was spent; and the checkpoint's usage totals are the sums over the journal.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GraphError } from '../../src/graph/errors.js';
import type { Failure, Usage } from '../../src/journal/events/fields.js';
import { fold } from '../../src/journal/fold.js';
import { runBudgetEscalation } from '../../src/protocol/budget.js';
import { decideResult } from '../../src/protocol/decide.js';
import { checkpointJson, foldError, graph, graphText, Sim } from './sim.js';

const NODES = `  - id: plan
    prompt: plan it
    agent: claude -p
    budget: { cost_usd: 0.5, turns: 10 }
  - id: build
    depends_on: [plan]
    run: make
`;

/** Ends the node's attempt in flight with this usage (and these failures). */
function end(sim: Sim, node: string, usage: Usage, failures: Failure[] = []): Sim {
  const s = sim.state;
  const r = decideResult(sim.run, {
    node,
    attempt: s.nodes.get(node)!.dispatch!.attempt,
    outcome: {
      failures,
      evidence: [],
      outputs: {},
      usage,
    },
  });
  if (r.kind !== 'write') throw new Error(r.reason);
  return sim.append(r.events);
}

describe("rule: an attempt that ends over its node's budget fails, saying which limit it passed", () => {
  it('fails the attempt, and the usual retry rules apply (attempt 2 is ready)', () => {
    const sim = new Sim(graph(graphText(NODES)));
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 1000, cost_usd: 0.62, turns: 12 });
    const last = sim.journal.events.at(-1)!;
    expect(last).toMatchObject({
      type: 'NodeFailed',
      node: 'plan',
      failures: [
        {
          check: 'budget',
          message: "the attempt used $0.62, over the node's budget of $0.50 (budget.cost_usd)",
        },
        {
          check: 'budget',
          message: "the attempt used 12 turns, over the node's budget of 10 turns (budget.turns)",
        },
      ],
      usage: { wall_ms: 1000, cost_usd: 0.62, turns: 12 },
    });
    expect(sim.cp.ready_nodes).toEqual(['plan']);
  });

  it('records an attempt exactly at its budget', () => {
    const sim = new Sim(graph(graphText(NODES)));
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 1000, cost_usd: 0.5, turns: 10 });
    expect(sim.cp.completed_nodes).toEqual(['plan']);
  });

  it('escalates the node after its last allowed attempt went over', () => {
    const sim = new Sim(graph(graphText(NODES)));
    for (let i = 0; i < 2; i++) {
      sim.dispatch();
      end(sim, 'plan', { wall_ms: 1, cost_usd: 3 });
    }
    expect(sim.cp.escalated_nodes).toEqual(['plan']);
  });
});

const RUN_BUDGET = 'budget: { cost_usd: 1 }\n';
const RUN_NODES = NODES.replace('    budget: { cost_usd: 0.5, turns: 10 }\n', '');

describe('rule: a node is not dispatched while the run is at or over its budget: it is escalated', () => {
  it('dispatches while the run is under its budget; the checkpoint shows the limit and what was spent', () => {
    const g = graph(graphText(RUN_NODES, RUN_BUDGET));
    const sim = new Sim(g);
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 60_000, cost_usd: 0.75 });
    expect(sim.cp.usage.budget).toEqual({
      limit: { cost_usd: 1 },
      spent: { cost_usd: 0.75, tokens: 0, turns: 0, wall_minutes: 1 },
    });
    expect(runBudgetEscalation(g, sim.state, 'build')).toBeUndefined();
  });

  it('escalates the next node with a report of what was spent, by which nodes, and what is needed; the run is blocked', () => {
    const g = graph(graphText(RUN_NODES, RUN_BUDGET));
    const sim = new Sim(g);
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 30_000, cost_usd: 1.25, input_tokens: 100, output_tokens: 20, turns: 3 });
    const esc = runBudgetEscalation(g, sim.state, 'build')!;
    expect(esc).toEqual({
      type: 'NodeEscalated',
      node: 'build',
      report: {
        attempted: [],
        failed: [],
        approaches_tried: [],
        needed:
          'The run is at its budget ($1.25 of $1.00 spent), so "build" was not dispatched. A person decides: raise the budget by approving a rerun of "build" (the run may then spend its budget again, counted from that approval), or fail the run.',
        budget: {
          limit: { cost_usd: 1 },
          spent: { cost_usd: 1.25, tokens: 120, turns: 3, wall_minutes: 0.5 },
          by_node: { plan: { cost_usd: 1.25, tokens: 120, turns: 3, wall_minutes: 0.5 } },
        },
      },
    });
    sim.append([esc]);
    expect(sim.cp.escalated_nodes).toEqual(['build']);
    expect(sim.cp.status).toBe('blocked');
  });

  it('decideNext escalates instead of dispatching when the run is exactly at its budget', () => {
    const g = graph(graphText(RUN_NODES, RUN_BUDGET));
    const sim = new Sim(g);
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 1, cost_usd: 1 });
    const d = sim.step();
    expect(d).toMatchObject({ kind: 'budget-escalated', node: 'build', attempt: 1 });
    expect(sim.journal.events.at(-1)).toMatchObject({ type: 'NodeEscalated', node: 'build' });
    expect(sim.journal.events.some((e) => e.type === 'NodeDispatched' && e.node === 'build')).toBe(false);
  });

  it('decideNext dispatches while the run is under its budget', () => {
    const g = graph(graphText(RUN_NODES, RUN_BUDGET));
    const sim = new Sim(g);
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 1, cost_usd: 0.99 });
    expect(sim.next()).toMatchObject({ kind: 'dispatch', attempt: 1 });
  });

  it('a skipped node is skipped, not escalated, at the budget (skipping spends nothing)', () => {
    const nodes = `${RUN_NODES}    execute_conditions: ["\${{ inputs.go == 'yes' }}"]\n`;
    const g = graph(graphText(nodes, RUN_BUDGET));
    const sim = new Sim(g);
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 1, cost_usd: 2 });
    expect(sim.next()).toMatchObject({ kind: 'skip', node: 'build' });
  });

  it('is refused by the fold for a node that is not pending', () => {
    const g = graph(graphText(RUN_NODES, RUN_BUDGET));
    const sim = new Sim(g);
    sim.dispatch();
    const spent = { cost_usd: 0, tokens: 0, turns: 0, wall_minutes: 0 };
    const report = { attempted: [], failed: [], approaches_tried: [], needed: 'x' };
    sim.append([
      {
        type: 'NodeEscalated',
        node: 'plan',
        report: { ...report, budget: { limit: {}, spent, by_node: {} } },
      },
    ]);
    expect(foldError(sim.journal, g).message).toBe(
      `event 3 (NodeEscalated): node "plan" is in flight; it cannot be escalated at the run's budget`,
    );
  });

  it('approving the escalated node raises the budget: it runs, and the budget counts from the approval', () => {
    const g = graph(graphText(RUN_NODES, RUN_BUDGET));
    const sim = new Sim(g);
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 1, cost_usd: 1.25 });
    sim.append([runBudgetEscalation(g, sim.state, 'build')!]);
    sim.approve('build');
    // The approval names the attempt that was not dispatched.
    expect(sim.journal.events.at(-1)).toMatchObject({ type: 'RerunApproved', node: 'build', attempt: 1 });
    expect(sim.cp.usage.budget?.spent.cost_usd).toBe(0);
    expect(sim.dispatch().node.id).toBe('build');
  });
});

describe('the graph budget', () => {
  it('refuses a budget that sets no limit, saying what to write', () => {
    const text = graphText('  - id: a\n    run: x\n    budget: {}\n');
    expect(() => graph(text)).toThrow(GraphError);
    expect(() => graph(text)).toThrow(
      'budget sets no limit: give one of cost_usd, tokens, turns, wall_minutes, or remove it',
    );
  });

  it('leaves the checkpoint of a run without budget or agent usage as it was', () => {
    const g = graph(graphText('  - id: a\n    run: x\n'));
    const sim = new Sim(g);
    sim.dispatch();
    sim.succeed('a', {}, 42);
    expect(JSON.parse(checkpointJson(sim.journal, g)).usage).toEqual({ wall_ms: 42, nodes: { a: 42 } });
  });
});

// --- property: the checkpoint's totals are the sums over the journal's events ---------------------

const usageArb = fc.record(
  {
    wall_ms: fc.nat({ max: 100_000 }),
    input_tokens: fc.nat({ max: 1_000_000 }),
    output_tokens: fc.nat({ max: 100_000 }),
    // Whole millionths of a dollar, as agents report them (Claude Code's costs have at most 6 decimals here).
    cost_usd: fc.nat({ max: 5_000_000 }).map((m) => m / 1_000_000),
    turns: fc.nat({ max: 50 }),
  },
  { requiredKeys: ['wall_ms'] },
);
const stepArb = fc.record({ fail: fc.boolean(), interrupt: fc.boolean(), usage: usageArb });

describe('property: the checkpoint usage totals (status --json) are the sums over the journal', () => {
  it('for every sequence of attempts and usage reports', () => {
    const g = graph(
      graphText(
        '  - id: a\n    run: x\n    replay: safe\n  - id: b\n    run: y\n    replay: safe\n    depends_on: [a]\n',
      ),
    );
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 12 }), (steps) => {
        const sim = new Sim(g);
        for (const s of steps) {
          const d = sim.next();
          if (d.kind !== 'dispatch') break;
          sim.append(d.events);
          if (s.interrupt) {
            const observed = s.usage;
            sim.append([
              { type: 'NodeInterrupted', node: d.node.id, attempt: d.attempt, observed_usage: observed },
            ]);
          } else end(sim, d.node.id, s.usage, s.fail ? [{ check: 'exit', message: 'exited 1' }] : []);
        }
        const cp = JSON.parse(checkpointJson(sim.journal, g));
        const sum = { wall_ms: 0, input_tokens: 0, output_tokens: 0, micro: 0, turns: 0, reported: false };
        const byNode: Record<string, number> = { a: 0, b: 0 };
        for (const e of sim.journal.events) {
          const u = e.type === 'NodeInterrupted' ? e.observed_usage : 'usage' in e ? e.usage : undefined;
          if (!u || !('node' in e)) continue;
          sum.wall_ms += u.wall_ms;
          byNode[e.node] = (byNode[e.node] ?? 0) + (u.cost_usd ?? 0) * 1_000_000;
          sum.input_tokens += u.input_tokens ?? 0;
          sum.output_tokens += u.output_tokens ?? 0;
          sum.micro += Math.round((u.cost_usd ?? 0) * 1_000_000);
          sum.turns += u.turns ?? 0;
          if (Object.keys(u).length > 1) sum.reported = true;
        }
        expect(cp.usage.wall_ms).toBe(sum.wall_ms);
        if (!sum.reported) {
          expect(cp.usage.cost_usd).toBeUndefined();
          return;
        }
        expect(cp.usage.input_tokens).toBe(sum.input_tokens);
        expect(cp.usage.output_tokens).toBe(sum.output_tokens);
        expect(cp.usage.cost_usd).toBe(sum.micro / 1_000_000);
        expect(cp.usage.turns).toBe(sum.turns);
        for (const id of ['a', 'b'])
          expect(cp.usage.by_node[id].cost_usd * 1_000_000).toBeCloseTo(byNode[id]!, 3);
        // and the state the protocol decides on agrees with what status --json shows
        expect(fold(sim.journal, g).checkpoint.usage.turns).toBe(sum.turns);
      }),
    );
  });
});
