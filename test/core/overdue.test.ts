// Rule (issue 26, item 7): a soft bound only notes that the attempt in flight is overdue. NodeOverdue changes no
// node's state, is refused for an attempt that is not in flight, and is shown in the status table.
import { describe, expect, it } from 'vitest';
import { statusRows } from '../../src/render/status.js';
import { append, checkpointJson, foldError, graph, graphText, Sim } from './sim.js';

const G = graph(
  graphText(`  - id: slow
    run: sleep 60
    soft_timeout_minutes: 1
`),
);
const overdue = {
  type: 'NodeOverdue' as const,
  node: 'slow',
  attempt: 1,
  bound: 'soft_timeout_minutes' as const,
  limit: 1,
  observed: 1.01,
};

describe('rule: soft bounds note, they never stop or rerun', () => {
  it('an overdue attempt stays in flight, with the checkpoint as it was', () => {
    const sim = new Sim(G);
    sim.dispatch('slow');
    const before = checkpointJson(sim.journal, G);
    sim.append([overdue]);
    expect(sim.state.nodes.get('slow')!.state).toBe('in_flight');
    // Only the time of the last activity moves.
    const without = (text: string) => ({ ...JSON.parse(text), last_activity_at: undefined });
    expect(without(checkpointJson(sim.journal, G))).toEqual(without(before));
    expect(statusRows(G, sim.state, 'cli')[0]!.join(' ')).toContain(
      '⏰ overdue: attempt 1 is past its soft_timeout_minutes of 1',
    );
    sim.succeed('slow');
    expect(sim.state.nodes.get('slow')!.state).toBe('completed');
  });

  it('is refused for an attempt that is not in flight', () => {
    const sim = new Sim(G);
    sim.dispatch('slow');
    sim.succeed('slow');
    expect(foldError(append(sim.journal, [overdue]), G).message).toMatch(
      /NodeOverdue\): node "slow" attempt 1 is not in flight \(it is completed\)|the run already ended/,
    );
    const fresh = new Sim(G);
    expect(foldError(append(fresh.journal, [overdue]), G).message).toContain('is not in flight');
  });
});
