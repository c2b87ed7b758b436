// The workflow dispatch a journaled approval or settlement still owes (issues 50 and 45): one rule, `owedDispatch`, read by the App's
// copies of a delivery and by a re-run `mode: comment` job alike (src/approvals/applying/retry-dispatch.ts). Pure:
// each case is a journal and the answer it gives.
import { describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal, NewEvent } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { appendEvents } from '../../src/journal/parse.js';
import { owedDispatch } from '../../src/protocol/commands/owed-dispatch.js';
import { buildJournal, GRAPH_PATH, GRAPH_TEXT } from '../app/world.js';

const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
const SOURCE = 'https://github.com/acme/widgets/issues/1#issuecomment-501';
const OTHER = 'https://github.com/acme/widgets/issues/1#issuecomment-777';
const RUNNER = { kind: 'actions' as const, workflow_run_id: 7002, run_attempt: 1, job: 'interlock' };

const approval: NewEvent = {
  type: 'RerunApproved',
  node: 'deploy',
  attempt: 1,
  approved_by: 'bob',
  source: SOURCE,
  graph_hash: graph.hash,
};
const dispatched: NewEvent = {
  type: 'NodeDispatched',
  node: 'deploy',
  attempt: 2,
  replay: 'never',
  approach: 'default',
  runner: RUNNER,
};
const retried: NewEvent = {
  type: 'WorkflowDispatchRetried',
  source: SOURCE,
  workflow: 'interlock.yml',
  since: '2025-01-02T00:00:00.000Z',
};

/** The held run (deploy interrupted), then `writes`, each at its own time. */
function heldThen(...writes: { events: NewEvent[]; at: string }[]): Journal {
  let j = buildJournal(graph, { shape: 'held' });
  for (const w of writes) j = appendEvents(j, w.events, w.at);
  return j;
}

const owed = (j: Journal, source = SOURCE) => owedDispatch(j, fold(j, graph), source);

describe('owed-dispatch rule 1: an approval journaled after the last dispatch, its node ready, owes the dispatch', () => {
  it('a rerun approved and nothing after: owed, the approval is the claim', () => {
    const j = heldThen({ events: [approval], at: '2025-01-02T00:00:00.000Z' });
    expect(owed(j)).toEqual({
      node: 'deploy',
      since: '2025-01-02T00:00:00.000Z',
      claim: j.events.at(-1)!.seq,
    });
  });

  it('asked for another comment than the approval: nothing', () => {
    const j = heldThen({ events: [approval], at: '2025-01-02T00:00:00.000Z' });
    expect(owed(j, OTHER)).toBeUndefined();
  });
});

describe('owed-dispatch rule 2: a step that dispatched the node, an ended run or a node not ready owes nothing', () => {
  it('the node dispatched since the approval: nothing', () => {
    const j = heldThen(
      { events: [approval], at: '2025-01-02T00:00:00.000Z' },
      { events: [dispatched], at: '2025-01-02T00:01:00.000Z' },
    );
    expect(owed(j)).toBeUndefined();
  });

  it('a rerun from plan approved, plan a `replay: never` node held for /approve-rerun (none ready): nothing', () => {
    const rerun: NewEvent = {
      type: 'RerunFromApproved',
      node: 'plan',
      nodes: ['plan', 'deploy', 'notify'],
      approved_by: 'bob',
      source: SOURCE,
      graph_hash: graph.hash,
    };
    const j = heldThen({ events: [rerun], at: '2025-01-02T00:00:00.000Z' });
    expect(fold(j, graph).checkpoint.held_nodes).toContain('plan');
    expect(fold(j, graph).checkpoint.ready_nodes).toEqual([]);
    expect(owed(j)).toBeUndefined();
  });

  it('the run failed since the approval: nothing', () => {
    const j = heldThen(
      { events: [approval], at: '2025-01-02T00:00:00.000Z' },
      { events: [{ type: 'RunFailed', reason: 'abandoned', by: 'alice' }], at: '2025-01-02T00:01:00.000Z' },
    );
    expect(owed(j)).toBeUndefined();
  });
});

describe('owed-dispatch rule 3: the latest claim since the last dispatch starts the lease, a retry included', () => {
  it('a WorkflowDispatchRetried after the approval is the claim: its time and seq', () => {
    const j = heldThen(
      { events: [approval], at: '2025-01-02T00:00:00.000Z' },
      { events: [retried], at: '2025-01-02T00:02:00.000Z' },
    );
    expect(owed(j)).toEqual({
      node: 'deploy',
      since: '2025-01-02T00:02:00.000Z',
      claim: j.events.at(-1)!.seq,
    });
  });

  it('the fold refuses a retry that names no approval the journal holds', () => {
    const j = heldThen({ events: [{ ...retried, source: OTHER }], at: '2025-01-02T00:02:00.000Z' });
    expect(() => fold(j, graph)).toThrow(/which no approval or settlement holds/);
  });
});

/** `/settle deploy` from `SOURCE`, as settleNode writes it: a person's NodeRecorded, its delivery in its words. */
const settled = (source = SOURCE): NewEvent => ({
  type: 'NodeRecorded',
  node: 'deploy',
  attempt: 1,
  evidence: [{ check: 'person', passed: true, observed: `bob: checked by hand (${source})` }],
  outputs: {},
  usage: { wall_ms: 0 },
  recorded_by: 'bob',
  note: 'checked by hand',
});

describe('owed-dispatch rule 4: a settlement (`/settle`) that left a node ready owes the dispatch as an approval does', () => {
  it('deploy settled and nothing after (notify ready): owed, the settlement is the claim', () => {
    const j = heldThen({ events: [settled()], at: '2025-01-02T00:00:00.000Z' });
    expect(fold(j, graph).checkpoint.ready_nodes).toEqual(['notify']);
    expect(owed(j)).toEqual({
      node: 'deploy',
      since: '2025-01-02T00:00:00.000Z',
      claim: j.events.at(-1)!.seq,
    });
  });

  it('asked for another comment than the settlement: nothing', () => {
    const j = heldThen({ events: [settled()], at: '2025-01-02T00:00:00.000Z' });
    expect(owed(j, OTHER)).toBeUndefined();
  });

  it('notify dispatched since the settlement: nothing', () => {
    const j = heldThen(
      { events: [settled()], at: '2025-01-02T00:00:00.000Z' },
      { events: [{ ...dispatched, node: 'notify', attempt: 1 }], at: '2025-01-02T00:01:00.000Z' },
    );
    expect(owed(j)).toBeUndefined();
  });

  it('the run failed since the settlement: nothing', () => {
    const j = heldThen(
      { events: [settled()], at: '2025-01-02T00:00:00.000Z' },
      { events: [{ type: 'RunFailed', reason: 'abandoned', by: 'alice' }], at: '2025-01-02T00:01:00.000Z' },
    );
    expect(owed(j)).toBeUndefined();
  });

  it('a retry of the settlement is the claim, and the fold takes it (it names a settlement the journal holds)', () => {
    const j = heldThen(
      { events: [settled()], at: '2025-01-02T00:00:00.000Z' },
      { events: [retried], at: '2025-01-02T00:02:00.000Z' },
    );
    expect(owed(j)).toEqual({
      node: 'deploy',
      since: '2025-01-02T00:02:00.000Z',
      claim: j.events.at(-1)!.seq,
    });
  });

  it("the fold refuses a retry naming a settlement's words that end otherwise", () => {
    const j = heldThen(
      { events: [settled(OTHER)], at: '2025-01-02T00:00:00.000Z' },
      { events: [retried], at: '2025-01-02T00:02:00.000Z' },
    );
    expect(() => fold(j, graph)).toThrow(/which no approval or settlement holds/);
  });
});
