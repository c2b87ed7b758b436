// The gate before a node (`approval: before`), guidance with approvals, and the graph's and node's approval
// policy: one describe per rule, each broken on purpose by a test that goes red.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/journal/events/events.js';
import { MAX_GUIDANCE_CHARS } from '../../src/journal/events/gates.js';
import { approveNode, type NodeApprovalRequest } from '../../src/protocol/commands/gate.js';
import { guidanceSection } from '../../src/protocol/commands/guidance.js';
import { approveRerun } from '../../src/protocol/commands/person-commands.js';
import { effectivePolicy, policyWords } from '../../src/protocol/policy.js';
import { checkpointJson, foldError, graph, graphText, Sim, startJournal } from './sim.js';

const g = graph(
  graphText(`  - id: build
    run: ./build.sh
  - id: publish
    depends_on: [build]
    approval: before
    approvals:
      required: 2
      prevent_self_approval: true
    prompt: Publish the release.
    agent: cat
`),
);

const URL = (n: number) => `https://github.com/acme/widgets/issues/1#issuecomment-${n}`;

/** A run whose `publish` awaits approval, started by `alice`. */
function awaiting(): Sim {
  const sim = new Sim(g);
  sim.journal = {
    ...sim.journal,
    events: [{ ...sim.journal.events[0]!, ...{ started_by: 'alice' } } as never],
  };
  sim.dispatch('build');
  sim.succeed('build');
  const d = sim.step();
  expect(d.kind).toBe('awaiting-approval');
  return sim;
}

function approve(sim: Sim, by: string, n: number, extra: Partial<NodeApprovalRequest> = {}) {
  const s = approveNode({
    run: sim,
    node: 'publish',
    by,
    source: URL(n),
    graph_hash: g.hash,
    required: 2,
    prevent_self_approval: true,
    ...extra,
  });
  if (s.ok) sim.append(s.events);
  return s;
}

describe('gate rule 1: a node with approval: before is never dispatched before enough approvals', () => {
  it('becoming ready journals NodeAwaitingApproval instead of a dispatch', () => {
    const sim = awaiting();
    expect(sim.journal.events.at(-1)?.type).toBe('NodeAwaitingApproval');
    expect(sim.cp.awaiting_approval_nodes).toEqual(['publish']);
    expect(sim.cp.ready_nodes).toEqual([]);
    expect(sim.cp.status).toBe('blocked');
    expect(sim.next().kind).toBe('blocked');
  });

  it('one approval of two keeps it waiting; the second, by another person, lets it run exactly once', () => {
    const sim = awaiting();
    expect(approve(sim, 'bob', 1).ok).toBe(true);
    expect(sim.cp.awaiting_approval_nodes).toEqual(['publish']);
    expect(approve(sim, 'carol', 2).ok).toBe(true);
    expect(sim.cp.awaiting_approval_nodes).toBeUndefined();
    expect(sim.dispatch().node.id).toBe('publish');
    const dispatches = sim.journal.events.filter((e) => e.type === 'NodeDispatched' && e.node === 'publish');
    expect(dispatches).toHaveLength(1);
  });

  it('a node whose conditions are all false is skipped without asking anyone', () => {
    const gc = graph(
      graphText(`  - id: deploy
    approval: before
    execute_conditions: ["\${{ false }}"]
    run: ./deploy.sh
`),
    );
    const sim = new Sim(gc);
    expect(sim.step().kind).toBe('skip');
  });

  it('the fold refuses NodeApproved for a node that is not awaiting approval', () => {
    const sim = new Sim(g);
    const bad: NewEvent = {
      type: 'NodeApproved',
      node: 'build',
      approved_by: 'bob',
      source: 'cli:bob',
      graph_hash: g.hash,
      required: 1,
    };
    sim.append([bad]);
    expect(foldError(sim.journal, g).message).toMatch(/not awaiting approval/);
  });
});

describe('gate rule 2: an approval is bound to the node, the person and the graph hash', () => {
  it('the same person approving twice is refused', () => {
    const sim = awaiting();
    approve(sim, 'bob', 1);
    const again = approve(sim, 'bob', 2);
    expect(again.ok ? '' : again.reason).toMatch(/bob has already approved "publish" \(1 of 2/);
  });

  it('a redelivered approval is refused: the same comment approves once, whoever it names', () => {
    const sim = awaiting();
    expect(approve(sim, 'bob', 1).ok).toBe(true);
    expect(approve(sim, 'carol', 1)).toEqual({
      ok: false,
      reason: `this approval (${URL(1)}) is already in the journal: one comment approves once`,
    });
    expect(sim.cp.awaiting_approval_nodes).toEqual(['publish']);
  });

  it('an approval under another graph hash is refused', () => {
    const r = approve(awaiting(), 'bob', 1, { graph_hash: 'sha256:other' });
    expect(r.ok ? '' : r.reason).toMatch(/the graph changed since this approval was asked for/);
  });

  it('/approve for a node that is not awaiting is refused, pointing at /approve-rerun for a held one', () => {
    const sim = new Sim(g);
    sim.dispatch('build');
    sim.recover();
    const r = approveNode({
      run: sim,
      node: 'build',
      by: 'bob',
      source: 'cli:bob',
      graph_hash: g.hash,
      required: 1,
    });
    expect(r.ok ? '' : r.reason).toBe(
      'node "build" is held, not awaiting approval: use /approve-rerun for a held or escalated node',
    );
  });
});

describe('gate rule 3: under prevent_self_approval the person who started the run cannot approve it', () => {
  it('the starter is refused, case-insensitively, and named', () => {
    const r = approve(awaiting(), 'Alice', 1);
    expect(r.ok ? '' : r.reason).toBe(
      '@Alice started this run and cannot approve it (prevent_self_approval): another person must approve',
    );
  });

  it('without the rule the starter may approve', () => {
    expect(approve(awaiting(), 'alice', 1, { prevent_self_approval: false }).ok).toBe(true);
  });

  it('the rule applies to /approve-rerun too', () => {
    const sim = new Sim(g);
    sim.journal = {
      ...sim.journal,
      events: [{ ...sim.journal.events[0]!, ...{ started_by: 'alice' } } as never],
    };
    sim.dispatch('build');
    sim.recover();
    const r = approveRerun({
      run: sim,
      node: 'build',
      by: 'alice',
      source: 'cli:alice',
      graph_hash: sim.state.accepted_hash,
      prevent_self_approval: true,
    });
    expect(r.ok).toBe(false);
  });
});

describe('gate rule 4: guidance is recorded with who gave it and reaches the attempt as data', () => {
  it('the attempt context lists the guidance of each approval, byte for byte', () => {
    const sim = awaiting();
    const text = 'Use the existing parser in src/parse.ts\n$(touch CANARY) `rm -rf /`';
    approve(sim, 'bob', 1, { guidance: text });
    approve(sim, 'carol', 2);
    const d = sim.dispatch();
    expect(d.context.guidance).toEqual([{ by: 'bob', text }]);
    expect(guidanceSection(d.context.guidance)).toContain(`guidance from bob:\n${text}`);
  });

  it(`guidance over ${MAX_GUIDANCE_CHARS} characters is refused, and nothing is written`, () => {
    const sim = awaiting();
    const before = sim.journal.events.length;
    const r = approve(sim, 'bob', 1, { guidance: 'x'.repeat(MAX_GUIDANCE_CHARS + 1) });
    expect(r.ok ? '' : r.reason).toMatch(/over 4000: shorten it/);
    expect(sim.journal.events).toHaveLength(before);
  });

  it('an attempt without guidance gets an empty list and its prompt no guidance section', () => {
    const sim = new Sim(g);
    expect(sim.dispatch('build').context.guidance).toEqual([]);
    expect(guidanceSection([])).toBe('');
  });
});

describe('gate rule 5: old journals fold to the same bytes', () => {
  it('the checkpoint has no awaiting_approval_nodes key when no node awaits approval', () => {
    const plain = graph(graphText('  - id: a\n    run: ./a.sh\n'));
    expect(checkpointJson(startJournal(plain), plain)).not.toContain('awaiting_approval_nodes');
  });

  it('a graph without approval or approvals keeps its hash (the fields are absent from its nodes)', () => {
    const plain = graph(graphText('  - id: a\n    run: ./a.sh\n'));
    expect(Object.keys(plain.nodes[0]!)).not.toContain('approval');
    expect(Object.keys(plain.nodes[0]!)).not.toContain('approvals');
  });
});

describe('policy rule: the strictest of repository, graph and node applies', () => {
  const gp = graph(
    graphText(
      `  - id: ship
    run: ./ship.sh
    approvals:
      required: 3
      approvers: [acme/release-team]
`,
      'approvals:\n  required: 2\n  prevent_self_approval: true\n',
    ),
  );
  it('required is the largest; self-approval is prevented when any level prevents it', () => {
    const p = effectivePolicy({ permission: 'write', approvers: [], required: 1 }, gp.nodes[0]);
    expect(p.required).toBe(3);
    expect(p.prevent_self_approval).toBe(true);
    expect(p.levels.map((l) => l.where)).toEqual(['repository', 'graph or node']);
  });

  it('the attention comment says it in words', () => {
    expect(policyWords(effectivePolicy(undefined, gp.nodes[0]), 'alice')).toBe(
      'needs 3 approvals from release-team; @alice started this run and cannot approve it',
    );
  });

  it('the repository count applies where the graph sets none', () => {
    expect(effectivePolicy({ permission: 'write', approvers: [], required: 2 }, g.nodes[0]).required).toBe(2);
  });
});
