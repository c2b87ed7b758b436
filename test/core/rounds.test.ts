// Where a node's round starts (docs/ARCHITECTURE.md, "The rules"): recording, a loop's next cycle, a rerun from
// upstream and an approved rerun reset a node's failures, the failures it may have and its escalation marks in one
// function (`startRound`, src/journal/reducers/rounds.ts); an approval answers the escalation its report names;
// "the last allowed attempt" is one statement (`lastAllowedAttempt`, src/journal/state.ts). Each broken on
// purpose once (see the commit that added this file).

import { describe, expect, it } from 'vitest';
import { emptySums } from '../../src/journal/daily-usage.js';
import type { NodeProgress } from '../../src/journal/state.js';
import { attemptsLeft, escalationAnswered, lastAllowedAttempt } from '../../src/journal/state.js';
import { rerunFrom } from '../../src/protocol/commands/rerun-from.js';
import type { DailyCap } from '../../src/protocol/daily-cap.js';
import { decideNext } from '../../src/protocol/decide.js';
import { escalationAfter } from '../../src/protocol/escalation.js';
import { runOf } from '../../src/protocol/run.js';
import { EXIT_1, graph, graphText, RUNNER, Sim } from './sim.js';

const NODES = `  - id: prep
    run: ./prep.sh
    replay: safe
  - id: work
    depends_on: [prep]
    prompt: do the work
    agent: ./agent.sh
`;

/** Over the cap on the sim's day (2024-01-01) whatever this run spent; `daily_usd: 1000` lets everything through. */
function cap(daily_usd = 5): DailyCap {
  return {
    daily_usd,
    day: '2024-01-01',
    others: { ...emptySums(), runs: 1, attempts: 1, cost_usd: 9 },
    counted: 1,
    of: 1,
    goOn: (node) => `/approve-rerun ${node}`,
  };
}

function decide(sim: Sim, c: DailyCap | undefined) {
  return decideNext(runOf(sim.graph, sim.journal, sim.state), { runner: RUNNER, dailyCap: c });
}

/** "work" escalated at the daily cap, then a person reran from "prep" (upstream) once the cap was raised. */
function rerunAfterTheCap(): Sim {
  const sim = new Sim(graph(graphText(NODES)));
  sim.dispatch('prep');
  sim.succeed('prep');
  const held = decide(sim, cap());
  if (held.kind !== 'budget-escalated') throw new Error(held.kind);
  sim.append(held.events);
  const r = rerunFrom({
    run: sim,
    node: 'prep',
    by: 'ann',
    source: 'cli:ann',
    graph_hash: sim.state.accepted_hash,
  });
  if (!r.ok) throw new Error(r.reason);
  sim.append(r.events);
  return sim;
}

const marks = (p: NodeProgress) => ({
  failures: p.failures,
  allowed: p.allowedFailures,
  budget: p.budget_escalated,
  cap: p.daily_cap_escalated,
  report: p.report,
});

describe('round rule 1: recording, a rerun from upstream and an approved rerun start a round in one place', () => {
  it('a rerun from upstream leaves no mark of the daily cap escalation behind', () => {
    const sim = rerunAfterTheCap();
    expect(marks(sim.state.nodes.get('work')!)).toEqual({
      failures: 0,
      allowed: 2,
      budget: false,
      cap: undefined,
      report: undefined,
    });
  });

  it('a node escalated at the daily cap, rerun from upstream and failed twice gets one more attempt when approved', () => {
    const sim = rerunAfterTheCap();
    sim.dispatch('prep');
    sim.succeed('prep');
    for (const attempt of [1, 2]) {
      const d = decide(sim, cap(1000));
      expect(d).toMatchObject({ kind: 'dispatch', node: { id: 'work' }, attempt });
      if ('events' in d) sim.append(d.events);
      sim.fail('work');
    }
    expect(sim.cp.escalated_nodes).toEqual(['work']);
    sim.approve('work');
    // The wedge of the old fold: pending at 2 of 2 failures, "blocked: no node is ready".
    expect(sim.cp.ready_nodes).toEqual(['work']);
    expect(sim.cp.status).toBe('running');
    expect(decide(sim, cap(1000))).toMatchObject({ kind: 'dispatch', node: { id: 'work' }, attempt: 3 });
  });

  it('recording a node clears the marks of the escalation it was settled from', () => {
    const sim = new Sim(graph(graphText(NODES)));
    sim.dispatch('prep');
    sim.succeed('prep');
    const held = decide(sim, cap());
    if (held.kind !== 'budget-escalated') throw new Error(held.kind);
    sim.append(held.events);
    sim.settle('work');
    const p = sim.state.nodes.get('work')!;
    expect([p.state, p.budget_escalated, p.daily_cap_escalated, p.report]).toEqual([
      'completed',
      false,
      undefined,
      undefined,
    ]);
  });
});

describe('round rule 2: an approval answers the escalation its own report names', () => {
  it('the report says which: the daily cap, the run budget, or failures', () => {
    const budget = { limit: {}, spent: { cost_usd: 0, tokens: 0, turns: 0, wall_minutes: 0 }, by_node: {} };
    const report = { attempted: [], failed: [], approaches_tried: [], needed: 'a person' };
    const p = (r?: object) => ({ report: r }) as NodeProgress;
    expect(escalationAnswered(p({ ...report, budget: { ...budget, limit: { daily_usd: 5 } } }))).toBe(
      'daily-cap',
    );
    expect(escalationAnswered(p({ ...report, budget: { ...budget, limit: { cost_usd: 5 } } }))).toBe(
      'budget',
    );
    expect(escalationAnswered(p(report))).toBe('failures');
    expect(escalationAnswered(p())).toBe('failures');
  });

  it('approving a daily cap escalation lets the node go on that day, without an extra attempt', () => {
    const sim = new Sim(graph(graphText(NODES)));
    sim.dispatch('prep');
    sim.succeed('prep');
    const held = decide(sim, cap());
    if (held.kind !== 'budget-escalated') throw new Error(held.kind);
    sim.append(held.events);
    sim.approve('work');
    const p = sim.state.nodes.get('work')!;
    expect([p.daily_cap_approved, p.failures, p.allowedFailures]).toEqual(['2024-01-01', 0, 2]);
    expect(decide(sim, cap())).toMatchObject({ kind: 'dispatch', node: { id: 'work' }, attempt: 1 });
  });
});

describe('round rule 3: the last allowed attempt is one statement', () => {
  it('attempts are left while failures are under the allowance; the attempt before the last failure is the last', () => {
    for (const allowedFailures of [1, 2, 3])
      for (let failures = 0; failures <= allowedFailures; failures++) {
        expect(attemptsLeft({ failures, allowedFailures })).toBe(failures < allowedFailures);
        expect(lastAllowedAttempt({ failures, allowedFailures })).toBe(failures + 1 >= allowedFailures);
      }
  });

  it('the fold escalates a node exactly when the result decides to escalate it', () => {
    const sim = new Sim(graph(graphText(NODES)));
    sim.dispatch('prep');
    sim.succeed('prep');
    for (;;) {
      const d = decide(sim, undefined);
      if (d.kind !== 'dispatch') break;
      sim.append(d.events);
      const before = sim.state.nodes.get('work')!;
      const escalates = escalationAfter({
        node: sim.graph.nodes[1]!,
        p: before,
        attempt: d.attempt,
        failures: EXIT_1,
        journal: sim.journal,
      });
      sim.fail('work');
      expect(sim.state.nodes.get('work')!.state).toBe(escalates ? 'escalated' : 'pending');
    }
    expect(sim.cp.escalated_nodes).toEqual(['work']);
  });
});
