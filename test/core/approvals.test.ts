// Rule 4, extended: a hold ends only once `required` distinct people approved that attempt, and one
// comment (or delivery) approves once.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { approveRerun } from '../../src/protocol/commands/person-commands.js';
import { append, EXIT_1, graph, graphText, Sim } from './sim.js';

const g = graph(
  graphText(`  - id: deploy
    run: ./deploy.sh
  - id: notify
    run: ./notify.sh
`),
);

const held = () => {
  const sim = new Sim(g);
  sim.dispatch('deploy');
  sim.recover();
  return sim;
};

const URL_A = 'https://github.com/acme/widgets/issues/1#issuecomment-101';
const URL_B = 'https://github.com/acme/widgets/issues/1#issuecomment-102';

const approval = (by: string, source: string, required?: number, attempt = 1): NewEvent => ({
  type: 'RerunApproved',
  node: 'deploy',
  attempt,
  approved_by: by,
  source,
  ...(required !== undefined ? { required } : {}),
});

function approve(sim: Sim, by: string, source: string, required?: number) {
  const s = approveRerun({
    run: sim,
    node: 'deploy',
    by,
    source,
    graph_hash: sim.state.accepted_hash,
    ...(required !== undefined ? { required } : {}),
  });
  if (s.ok) sim.journal = append(sim.journal, s.events);
  return s;
}

describe('rule 4 with several approvers: a hold ends when `required` distinct people approved', () => {
  it('one approval of two keeps the node held; the second, by another person, releases it', () => {
    const sim = held();
    expect(approve(sim, 'ann', URL_A, 2).ok).toBe(true);
    expect(sim.cp.held_nodes).toEqual(['deploy']);
    expect(sim.cp.ready_nodes).toEqual(['notify']);
    expect(sim.state.nodes.get('deploy')?.approvals).toEqual(['ann']);
    expect(approve(sim, 'bob', URL_B, 2).ok).toBe(true);
    expect(sim.cp.held_nodes).toEqual([]);
    expect(sim.cp.ready_nodes).toEqual(['deploy', 'notify']);
    expect(sim.state.nodes.get('deploy')?.approvals).toEqual(['ann', 'bob']);
  });

  it('the `required` count is recorded in the event', () => {
    const sim = held();
    approve(sim, 'ann', URL_A, 2);
    expect(sim.journal.events.at(-1)).toMatchObject({
      type: 'RerunApproved',
      approved_by: 'ann',
      required: 2,
    });
  });

  it('an approval without `required` counts as one of one (journals written before the field still fold)', () => {
    const sim = held();
    sim.journal = append(sim.journal, [approval('ann', URL_A)]);
    expect(sim.cp.held_nodes).toEqual([]);
    expect(sim.cp.ready_nodes).toEqual(['deploy', 'notify']);
  });

  it('in the fold, the same person twice counts once: the node stays held', () => {
    const sim = held();
    sim.journal = append(sim.journal, [approval('ann', URL_A, 2), approval('ann', URL_B, 2)]);
    expect(sim.cp.held_nodes).toEqual(['deploy']);
    expect(sim.state.nodes.get('deploy')?.approvals).toEqual(['ann']);
  });

  it('approveRerun refuses a second approval by the same person, naming the count', () => {
    const sim = held();
    approve(sim, 'ann', URL_A, 2);
    expect(approve(sim, 'ann', URL_B, 2)).toEqual({
      ok: false,
      reason:
        'ann has already approved attempt 1 of "deploy" (1 of 2 approvals): another person must approve',
    });
    expect(sim.journal.events.filter((e) => e.type === 'RerunApproved')).toHaveLength(1);
  });

  it('approveRerun refuses a redelivered approval: the same source URL approves once', () => {
    const sim = held();
    approve(sim, 'ann', URL_A, 2);
    expect(approve(sim, 'bob', URL_A, 2)).toEqual({
      ok: false,
      reason: `this approval (${URL_A}) is already in the journal: one comment approves once`,
    });
  });

  it('a redelivered comment cannot approve a later hold of the same node', () => {
    const sim = held();
    approve(sim, 'ann', URL_A);
    sim.dispatch('deploy');
    sim.recover();
    expect(sim.cp.held_nodes).toEqual(['deploy']);
    expect(approve(sim, 'ann', URL_A).ok).toBe(false);
    // A new comment by the same person approves the new hold.
    expect(approve(sim, 'ann', URL_B).ok).toBe(true);
    expect(sim.cp.held_nodes).toEqual([]);
  });

  it('sources that are not URLs (the CLI) may approve again at a later hold', () => {
    const sim = held();
    approve(sim, 'ann', 'cli:ann');
    sim.dispatch('deploy');
    sim.recover();
    expect(approve(sim, 'ann', 'cli:ann').ok).toBe(true);
  });

  it('approvals count per hold: those of an earlier hold do not release a later one', () => {
    const sim = held();
    approve(sim, 'ann', URL_A, 2);
    approve(sim, 'bob', URL_B, 2);
    sim.dispatch('deploy');
    sim.recover();
    expect(sim.state.nodes.get('deploy')?.approvals).toEqual([]);
    expect(approve(sim, 'ann', `${URL_A}0`, 2).ok).toBe(true);
    expect(sim.cp.held_nodes).toEqual(['deploy']);
  });

  it('an escalated node needs `required` approvals too, and each escalation starts a new count', () => {
    const sim = new Sim(g);
    for (let i = 0; i < 2; i++) {
      sim.dispatch('deploy');
      sim.fail('deploy', EXIT_1);
    }
    expect(sim.cp.escalated_nodes).toEqual(['deploy']);
    sim.journal = append(sim.journal, [approval('ann', URL_A, 2, 2)]);
    expect(sim.cp.escalated_nodes).toEqual(['deploy']);
    sim.journal = append(sim.journal, [approval('bob', URL_B, 2, 2)]);
    expect(sim.cp.escalated_nodes).toEqual([]);
    expect(sim.cp.ready_nodes).toEqual(['deploy', 'notify']);
    sim.dispatch('deploy');
    sim.fail('deploy', EXIT_1);
    expect(sim.cp.escalated_nodes).toEqual(['deploy']);
    expect(sim.state.nodes.get('deploy')?.approvals).toEqual([]);
  });

  it('the fold keeps every approval source, in order', () => {
    const sim = held();
    approve(sim, 'ann', URL_A, 2);
    approve(sim, 'bob', URL_B, 2);
    expect(fold(sim.journal, g).approval_sources).toEqual([URL_A, URL_B]);
  });
});

// Issue 36: a gate's approval and a rerun's pass one check (`approvalRefusal`); the rerun's took the graph hash
// as optional, so a request without one (built from untyped input) approved under whatever graph the run had.
describe('one approval check for gates and reruns', () => {
  it('refuses a rerun approval that names no graph hash, as a gate approval is refused', () => {
    const sim = held();
    const r = approveRerun({ run: sim, node: 'deploy', by: 'ann', source: URL_A } as never);
    expect(r).toEqual({
      ok: false,
      reason:
        'the approval names no graph hash, so it cannot be bound to the graph the run is under: ask again',
    });
  });

  it('refuses a rerun approval under another graph hash', () => {
    const sim = held();
    const r = approveRerun({
      run: sim,
      node: 'deploy',
      by: 'ann',
      source: URL_A,
      graph_hash: 'sha256:0',
    });
    expect(r.ok ? '' : r.reason).toMatch(/^the graph changed since this approval was asked for/);
  });
});
