// The daily cost cap (docs/ARCHITECTURE.md, "The budget"), broken on purpose once: an agent attempt is escalated
// instead of dispatched while the repository's spend on the decision's day is at or over the cap; a plain command
// is never held; a person's approval lets that node go on for the rest of the day, and only that day, without
// moving the run budget's baseline.
import { describe, expect, it } from 'vitest';
import { emptySums } from '../../src/journal/daily-usage.js';
import type { Usage } from '../../src/journal/events/fields.js';
import { fold } from '../../src/journal/fold.js';
import type { DailyCap } from '../../src/protocol/daily-cap.js';
import { decideNext, decideResult } from '../../src/protocol/decide.js';
import { graph, graphText, RUNNER, Sim } from './sim.js';

const NODES = `  - id: plan
    prompt: plan it
    agent: claude -p
  - id: build
    depends_on: [plan]
    run: make
  - id: review
    depends_on: [build]
    prompt: review it
    agent: claude -p
`;

/** The sim's clock puts every event on 2024-01-01. */
const DAY = '2024-01-01';

function cap(others_usd: number, more: Partial<DailyCap> = {}): DailyCap {
  return {
    daily_usd: 5,
    day: DAY,
    others: { ...emptySums(), runs: 2, attempts: 2, cost_usd: others_usd },
    counted: 2,
    of: 2,
    goOn: (node) => `/approve-rerun ${node}`,
    ...more,
  };
}

function decide(sim: Sim, c: DailyCap | undefined) {
  return decideNext(sim.run, { runner: RUNNER, dailyCap: c });
}

function end(sim: Sim, node: string, usage: Usage): Sim {
  const s = sim.state;
  const r = decideResult(sim.run, {
    node,
    attempt: s.nodes.get(node)!.dispatch!.attempt,
    outcome: {
      failures: [],
      evidence: [],
      outputs: {},
      usage,
    },
  });
  if (r.kind !== 'write') throw new Error(r.reason);
  return sim.append(r.events);
}

describe("rule: an agent attempt is not dispatched while the repository's spend today is at or over its daily cap", () => {
  it('dispatches under the cap and without one; escalates at it, naming the cap, the spend and the command', () => {
    const sim = new Sim(graph(graphText(NODES)));
    expect(decide(sim, undefined).kind).toBe('dispatch');
    expect(decide(sim, cap(4.99)).kind).toBe('dispatch');
    const d = decide(sim, cap(5, { counted: 2, of: 3 }));
    expect(d.kind).toBe('budget-escalated');
    if (d.kind !== 'budget-escalated') return;
    expect(d.events[0]).toMatchObject({
      type: 'NodeEscalated',
      node: 'plan',
      report: { budget: { limit: { daily_usd: 5 }, spent: { cost_usd: 5 } } },
    });
    expect(d.reason).toContain(
      'daily cost cap ($5.00 spent on 2024-01-01 UTC, of $5.00 a day; this run $0.00',
    );
    expect(d.reason).toContain('spend counted from 2 of 3 other runs');
    expect(d.reason).toContain('`/approve-rerun plan`');
  });

  it("adds this run's own spend of the day to the other runs'; a plain command node is never held", () => {
    const sim = new Sim(graph(graphText(NODES)));
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 10, cost_usd: 3 });
    // build is `run: make`: over the cap, it still runs.
    expect(decide(sim, cap(2.5)).kind).toBe('dispatch');
    sim.dispatch();
    sim.succeed('build');
    expect(decide(sim, cap(1.99)).kind).toBe('dispatch');
    const d = decide(sim, cap(2));
    expect(d).toMatchObject({ kind: 'budget-escalated', node: 'review' });
    // On another day, this run's spend of 2024-01-01 is not counted.
    expect(decide(sim, cap(2, { day: '2024-01-02' })).kind).toBe('dispatch');
  });

  it('lets an approved node go on for the rest of that day only, and leaves the run budget baseline alone', () => {
    const sim = new Sim(graph(graphText(NODES)));
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 10, cost_usd: 1 });
    sim.dispatch();
    sim.succeed('build');
    const d = decide(sim, cap(9));
    if (d.kind !== 'budget-escalated') throw new Error(d.kind);
    sim.append(d.events);
    expect(sim.cp.escalated_nodes).toEqual(['review']);
    expect(sim.state.nodes.get('review')!.daily_cap_escalated).toBe(true);
    sim.approve('review');
    const p = sim.state.nodes.get('review')!;
    expect(p.daily_cap_approved).toBe(DAY);
    expect(p.daily_cap_escalated).toBeUndefined();
    // A run-budget approval would count the run's budget again from here; a daily-cap approval does not.
    expect(sim.state.nodes.get('plan')!.usage_at_raise.cost_micro_usd).toBe(0);
    // Still over the cap the same day: the approved node goes on (no second escalation); not the next day.
    expect(decide(sim, cap(9)).kind).toBe('dispatch');
    expect(decide(sim, cap(9, { day: '2024-01-02' })).kind).toBe('budget-escalated');
  });

  it('a run-budget escalation folds as before: no daily-cap fields, its approval raises the run budget', () => {
    const sim = new Sim(graph(graphText(NODES, 'budget: { cost_usd: 1 }\n')));
    sim.dispatch();
    end(sim, 'plan', { wall_ms: 10, cost_usd: 1.5 });
    const d = decide(sim, cap(0));
    if (d.kind !== 'budget-escalated') throw new Error(d.kind);
    expect(d.events[0]).toMatchObject({ report: { budget: { limit: { cost_usd: 1 } } } });
    sim.append(d.events);
    sim.approve('build');
    const p = fold(sim.journal, sim.graph).nodes.get('build')!;
    expect('daily_cap_approved' in p || 'daily_cap_escalated' in p).toBe(false);
    expect(sim.state.nodes.get('plan')!.usage_at_raise.cost_micro_usd).toBe(1_500_000);
  });
});
