// A plan's wave (issue 35, src/protocol/plan-wave.ts): what a plan dispatches for its matrix in its one write, and
// which of those dispatches a matrix job may take as its own, re-decided from the journal before it.
import { describe, expect, it } from 'vitest';
import type { RunnerInfo } from '../../src/journal/events/fields.js';
import { fold } from '../../src/journal/fold.js';
import { plannedDecision, planWave } from '../../src/protocol/plan-wave.js';
import { at, graph, graphText, Sim } from './sim.js';

const g = graph(
  graphText(`  - id: a
    run: ./a.sh
  - id: gated
    approval: before
    run: ./gated.sh
  - id: skipped
    execute_conditions: ["\${{ false }}"]
    run: ./skipped.sh
  - id: b
    run: ./b.sh
    retry:
      - run: ./b-again.sh
  - id: after
    depends_on: [a, b]
    run: ./after.sh
`),
);
const RUN = { workflow_run_id: 77, run_attempt: 1 };
const runnerOf = (node: string): RunnerInfo => ({
  kind: 'actions',
  workflow_run_id: 77,
  run_attempt: 1,
  planned_by: 'plan',
  exec_tag: `tag-${node}`,
});

describe("a plan's wave", () => {
  it('dispatches each ready node a job can run alone, in order, each with its place; a gate or a skip is left to its job', () => {
    const sim = new Sim(g);
    const wave = planWave(sim.run, runnerOf, at(2));
    expect(wave.nodes).toEqual(['a', 'b']);
    expect(wave.events.map((e) => e.type)).toEqual(['NodeDispatched', 'NodeDispatched']);
    expect(wave.events.map((e) => (e as { runner: RunnerInfo }).runner.wave)).toEqual([
      { place: 0, size: 2 },
      { place: 1, size: 2 },
    ]);
    const after = sim.append(wave.events).state.checkpoint;
    expect(after.active_nodes).toEqual(['a', 'b']);
    expect(after.ready_nodes).toEqual(['gated', 'skipped']);
  });

  it("the decision taken on the read's prefix is the one from scratch, whatever prefix the read kept", () => {
    const sim = new Sim(g);
    sim.dispatch('b');
    sim.fail('b');
    sim.append(planWave(sim.run, runnerOf, at(9)).events);
    const { journal } = sim.run;
    for (const node of ['a', 'b']) {
      const scratch = JSON.stringify(plannedDecision(sim.run, { node, wave: RUN }));
      expect(scratch).toContain('"kind":"dispatch"');
      for (let k = 0; k <= journal.events.length; k++) {
        const prefix = fold({ ...journal, events: journal.events.slice(0, k) }, sim.run.graph);
        const onto = JSON.stringify(plannedDecision(sim.run, { node, wave: RUN, prefix }));
        expect(onto, `${node}, a prefix of ${k} events`).toBe(scratch);
      }
    }
  });

  it("a job takes the plan's decision again from the journal before it: the same attempt and approach", () => {
    const sim = new Sim(g);
    sim.dispatch('b');
    sim.fail('b');
    const wave = planWave(sim.run, runnerOf, at(9));
    sim.append(wave.events);
    const d = plannedDecision(sim.run, { node: 'b', wave: RUN });
    expect(wave.nodes).toEqual(['a', 'b']);
    expect(d).toMatchObject({ kind: 'dispatch', attempt: 2, approach: { label: 'retry[0]' } });
    // The attempt is told the failure before it, as a job that dispatched it itself would have been.
    expect(JSON.stringify(d?.context)).toContain('exited 1');
  });

  it("is taken only by a job of the plan's run attempt, and only while in flight", () => {
    const sim = new Sim(g);
    sim.append(planWave(sim.run, runnerOf, at(2)).events);
    expect(plannedDecision(sim.run, { node: 'a', wave: { ...RUN, run_attempt: 2 } })).toBeUndefined();
    expect(plannedDecision(sim.run, { node: 'a', wave: { ...RUN, workflow_run_id: 78 } })).toBeUndefined();
    expect(plannedDecision(sim.run, { node: 'gated', wave: RUN })).toBeUndefined();
    sim.succeed('a');
    expect(plannedDecision(sim.run, { node: 'a', wave: RUN })).toBeUndefined();
    // A node its own job dispatched (no `planned_by`) is no plan's.
    const own = new Sim(g);
    own.dispatch('a');
    expect(plannedDecision(own.run, { node: 'a', wave: RUN })).toBeUndefined();
  });
});
