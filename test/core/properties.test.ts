// Properties that must hold for every acyclic graph and every order of events (fast-check).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Graph } from '../../src/graph/model.js';
import type { Journal, NewEvent } from '../../src/journal/events/events.js';
import type { EscalationReport, Evidence, Failure } from '../../src/journal/events/fields.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { type Checkpoint, JournalError } from '../../src/journal/state.js';
import { approveRerun, failRun, settleNode } from '../../src/protocol/commands/person-commands.js';
import { decideNext, decideResult } from '../../src/protocol/decide.js';
import { recoverEvents } from '../../src/protocol/recovery.js';
import { runOf } from '../../src/protocol/run.js';
import { append, graph, RUNNER, startJournal } from './sim.js';

// --- graphs -------------------------------------------------------------------------------------

interface NodeSpec {
  deps: number[];
  replay: 'safe' | 'never' | undefined;
  retries: 0 | 1 | 2;
  cond: 'none' | 'flag' | 'broken';
}

interface GraphCase {
  specs: NodeSpec[];
  /** Declaration order: a permutation of the node indexes, so ids are not in declaration order. */
  order: number[];
  flag: 'on' | 'off' | 'not json';
}

/** Node i may depend only on nodes with a smaller index: acyclic by construction, declared in any order. */
const graphCaseArb: fc.Arbitrary<GraphCase> = fc.integer({ min: 1, max: 7 }).chain((n) =>
  fc.record({
    specs: fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.record({
          deps: fc.subarray(Array.from({ length: i }, (_, k) => k)),
          replay: fc.constantFrom<NodeSpec['replay']>('safe', 'never', undefined),
          retries: fc.constantFrom<NodeSpec['retries']>(0, 1, 2),
          cond: fc.constantFrom<NodeSpec['cond']>('none', 'none', 'flag', 'broken'),
        }),
      ),
    ),
    order: fc.shuffledSubarray(
      Array.from({ length: n }, (_, k) => k),
      { minLength: n, maxLength: n },
    ),
    flag: fc.constantFrom<GraphCase['flag']>('on', 'off', 'not json'),
  }),
);

const CONDITIONS = { flag: "inputs.flag == 'on'", broken: 'fromJSON(inputs.flag).on' } as const;

/** The graph as a JSON text (JSON is YAML), loaded by the real loader. */
function graphOf(c: GraphCase): Graph {
  const nodes = c.order.map((i) => {
    const s = c.specs[i]!;
    return {
      id: `n${i}`,
      run: `echo ${i}`,
      ...(s.deps.length ? { depends_on: s.deps.map((d) => `n${d}`) } : {}),
      ...(s.replay ? { replay: s.replay } : {}),
      ...(s.retries
        ? { retry: [{ env: { TRY: '2' } }, { run: `echo other ${i}` }].slice(0, s.retries) }
        : {}),
      ...(s.cond !== 'none' ? { execute_conditions: [CONDITIONS[s.cond]] } : {}),
    };
  });
  return graph(JSON.stringify({ interlock: 1, name: 'prop', nodes }), 'prop.json');
}

// --- invariants ---------------------------------------------------------------------------------

/** Everything a checkpoint must satisfy, whatever journal it came from. */
function assertInvariants(g: Graph, cp: Checkpoint): void {
  const declared = g.nodes.map((n) => n.id);
  const resolved = new Set([...cp.completed_nodes, ...cp.skipped_nodes]);
  const ready = new Set(cp.ready_nodes);
  // ready_nodes is in declaration order, without repeats
  expect(cp.ready_nodes).toEqual(declared.filter((id) => ready.has(id)));
  for (const id of cp.ready_nodes) {
    expect(cp.active_nodes).not.toContain(id);
    expect(cp.held_nodes).not.toContain(id);
    expect(cp.escalated_nodes).not.toContain(id);
    expect(resolved.has(id)).toBe(false);
    for (const dep of g.nodes.find((n) => n.id === id)!.depends_on) expect(resolved.has(dep)).toBe(true);
  }
  // a node is in at most one of the state lists
  const lists = [cp.completed_nodes, cp.skipped_nodes, cp.held_nodes, cp.escalated_nodes, cp.active_nodes];
  const all = lists.flat();
  expect(new Set(all).size).toBe(all.length);
  // a node that started, ran or was skipped did so after its dependencies ended
  for (const id of all)
    for (const dep of g.nodes.find((n) => n.id === id)!.depends_on) expect(resolved.has(dep)).toBe(true);
  if (cp.status === 'completed') expect(resolved.size).toBe(g.nodes.length);
  if (cp.ended) expect(cp.ready_nodes).toEqual([]);
  expect(cp.status === 'completed' || cp.status === 'failed').toBe(cp.ended !== null);
}

/** Folding is deterministic: the same journal, twice and after a serialize/parse round trip, gives the same bytes. */
function assertDeterministic(g: Graph, j: Journal): Checkpoint {
  const once = JSON.stringify(fold(j, g).checkpoint);
  expect(JSON.stringify(fold(j, g).checkpoint)).toBe(once);
  const reparsed = parseJournal(serializeJournal(j), 'prop.json');
  expect(JSON.stringify(fold(reparsed, g).checkpoint)).toBe(once);
  return JSON.parse(once) as Checkpoint;
}

/** Folds, accepting only a JournalError as a refusal. */
function foldOrRefuse(j: Journal, g: Graph): Checkpoint | null {
  try {
    return fold(j, g).checkpoint;
  } catch (e) {
    // a refusal is a JournalError and nothing else (plain check: this runs thousands of times)
    if (!(e instanceof JournalError)) throw e;
    return null;
  }
}

/**
 * Folds every prefix of the journal until the first refusal (the fold refuses at the first bad event, so
 * every longer prefix is refused too); each accepted prefix must keep every invariant. Returns how many
 * events were accepted.
 */
function acceptedPrefix(j: Journal, g: Graph): number {
  for (let n = 1; n <= j.events.length; n++) {
    const cp = foldOrRefuse({ ...j, events: j.events.slice(0, n) }, g);
    if (!cp) return n - 1;
    assertInvariants(g, cp);
  }
  return j.events.length;
}

// --- executions through the pure protocol -------------------------------------------------------

type Action = { kind: (typeof ACTIONS)[number]; k: number; mask: number };
const ACTIONS = [
  'next',
  'next',
  'next',
  'succeed',
  'succeed',
  'fail',
  'interrupt',
  'approve',
  'settle',
  'redispatch',
  'failRun',
] as const;
const actionArb: fc.Arbitrary<Action> = fc.record({
  kind: fc.constantFrom(...ACTIONS),
  k: fc.nat(),
  mask: fc.nat(),
});

/** Carries out one action if it applies; returns the events to append (none when it does not apply). */
function eventsFor(g: Graph, j: Journal, a: Action): NewEvent[] {
  const state = fold(j, g);
  const cp = state.checkpoint;
  const pick = (list: string[]) => list[a.k % list.length];
  switch (a.kind) {
    case 'next': {
      const d = decideNext(runOf(g, j, state), { runner: RUNNER });
      if (d.kind === 'dispatch' || d.kind === 'skip' || d.kind === 'precheck-failed') {
        const id = d.kind === 'dispatch' ? d.node.id : d.node;
        // decideNext only ever proposes a ready node, never one in flight
        expect(cp.active_nodes).not.toContain(id);
        expect(cp.ready_nodes[0]).toBe(id);
      }
      if (d.kind === 'blocked') expect(cp.ready_nodes).toEqual([]);
      return 'events' in d ? d.events : [];
    }
    case 'succeed':
    case 'fail': {
      const id = pick(cp.active_nodes);
      if (!id) return [];
      const attempt = state.nodes.get(id)!.dispatch!.attempt;
      const r = decideResult(runOf(g, j, state), {
        node: id,
        attempt,
        outcome: {
          failures: a.kind === 'fail' ? [{ check: 'exit', message: 'exited 1' }] : [],
          evidence: [],
          outputs: {},
          usage: { wall_ms: a.mask % 100 },
        },
      });
      // a result that arrives after the run ended is stale: it is never written after the end
      expect(r.kind).toBe(cp.ended ? 'stale' : 'write');
      return r.events;
    }
    case 'interrupt':
      return recoverEvents(
        state,
        (id) => ({
          gone: ((a.mask >> g.nodes.findIndex((n) => n.id === id)) & 1) === 1,
          why: 'x',
          observed_ms: 3,
        }),
        'prop',
      ).events;
    case 'approve':
    case 'settle': {
      const id = pick([...cp.held_nodes, ...cp.escalated_nodes]);
      if (!id) return [];
      const s =
        a.kind === 'approve'
          ? approveRerun({
              run: runOf(g, j, state),
              node: id,
              by: 'ann',
              source: 'prop',
              graph_hash: state.accepted_hash,
            })
          : settleNode({
              run: runOf(g, j, state),
              node: id,
              by: 'ann',
              note: 'done by hand',
              source: 'prop',
            });
      expect(s.ok).toBe(!cp.ended);
      return s.ok ? s.events : [];
    }
    case 'redispatch': {
      // A second dispatch of a node in flight is refused by the fold.
      const id = pick(cp.active_nodes);
      if (id) {
        const p = state.nodes.get(id)!;
        const forged = append(j, [
          {
            type: 'NodeDispatched',
            node: id,
            attempt: p.attempts + 1,
            replay: 'safe',
            approach: 'x',
            runner: RUNNER,
          },
        ]);
        expect(() => fold(forged, g)).toThrow(JournalError);
      }
      return [];
    }
    case 'failRun': {
      const s = failRun(state, { by: 'ann', reason: 'stop' });
      expect(s.ok).toBe(!cp.ended);
      return s.ok ? s.events : [];
    }
  }
}

/** Runs the actions, then drives the run to its end the way people would: success, settle, or approve. */
function execute(g: Graph, flag: string, actions: Action[], drain: boolean): Journal {
  let j = startJournal(g, { flag });
  const step = (a: Action) => {
    const events = eventsFor(g, j, a);
    if (events.length) j = append(j, events);
    assertInvariants(g, fold(j, g).checkpoint);
  };
  for (const a of actions) step(a);
  for (let guard = 0; drain && guard < 200; guard++) {
    const cp = fold(j, g).checkpoint;
    if (cp.ended) break;
    if (cp.active_nodes.length) step({ kind: 'succeed', k: 0, mask: 0 });
    else if (cp.ready_nodes.length || cp.status === 'running') step({ kind: 'next', k: 0, mask: 0 });
    else step({ kind: 'settle', k: 0, mask: 0 });
  }
  assertDeterministic(g, j);
  return j;
}

describe('properties of every acyclic graph and every execution', () => {
  it('random executions keep every invariant, fold deterministically and end completed when drained', () => {
    const outcomes = { completed: 0, failed: 0 };
    fc.assert(
      fc.property(graphCaseArb, fc.array(actionArb, { minLength: 5, maxLength: 40 }), (c, actions) => {
        const g = graphOf(c);
        const j = execute(g, c.flag, actions, true);
        const cp = fold(j, g).checkpoint;
        expect(['completed', 'failed']).toContain(cp.status);
        if (cp.status === 'completed' || cp.status === 'failed') outcomes[cp.status]++;
        if (cp.status === 'completed')
          expect(new Set([...cp.completed_nodes, ...cp.skipped_nodes]).size).toBe(g.nodes.length);
        // a run never has more attempts of a node than its budget allows without a person's approval
        for (const n of g.nodes) {
          const approvals = j.events.filter((e) => e.type === 'RerunApproved' && e.node === n.id).length;
          const interruptions = j.events.filter(
            (e) => e.type === 'NodeInterrupted' && e.node === n.id,
          ).length;
          expect(cp.attempts[n.id]).toBeLessThanOrEqual(n.approaches.length + approvals + interruptions);
        }
      }),
      { numRuns: 50 },
    );
    // not vacuous: both ends are reached
    expect(outcomes.completed).toBeGreaterThan(0);
    expect(outcomes.failed).toBeGreaterThan(0);
  });

  it('every NodeDispatched in an accepted journal was of a ready node, never of one in flight', () => {
    fc.assert(
      fc.property(graphCaseArb, fc.array(actionArb, { minLength: 5, maxLength: 30 }), (c, actions) => {
        const g = graphOf(c);
        const j = execute(g, c.flag, actions, false);
        j.events.forEach((e, i) => {
          if (e.type !== 'NodeDispatched') return;
          const before = fold({ ...j, events: j.events.slice(0, i) }, g).checkpoint;
          expect(before.ready_nodes).toContain(e.node);
          expect(before.active_nodes).not.toContain(e.node);
        });
      }),
      { numRuns: 40 },
    );
  });

  it('held nodes are never ready and leave the hold only by a record, an approval or the end of the run', () => {
    fc.assert(
      fc.property(graphCaseArb, fc.array(actionArb, { minLength: 5, maxLength: 30 }), (c, actions) => {
        const g = graphOf(c);
        const j = execute(g, c.flag, actions, false);
        let held = new Set<string>();
        for (let i = 1; i <= j.events.length; i++) {
          const cp = fold({ ...j, events: j.events.slice(0, i) }, g).checkpoint;
          const e = j.events[i - 1]!;
          for (const id of held) {
            if (cp.held_nodes.includes(id)) continue;
            // the event that ended the hold names the node (record or approval), or ends the run
            const ok =
              e.type === 'RunFailed' ||
              ((e.type === 'NodeRecorded' || e.type === 'RerunApproved') && e.node === id);
            expect(ok).toBe(true);
          }
          held = new Set(cp.held_nodes);
        }
      }),
      { numRuns: 40 },
    );
  });
});

// --- arbitrary event sequences ------------------------------------------------------------------

function eventArb(ids: string[], hash: string): fc.Arbitrary<NewEvent> {
  const node = fc.constantFrom(...ids, 'ghost');
  const attempt = fc.constantFrom(1, 1, 2, 3);
  const usage = fc.record({ wall_ms: fc.nat({ max: 1000 }) });
  return fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        type: fc.constant('NodeDispatched' as const),
        node,
        attempt,
        replay: fc.constantFrom('safe' as const, 'never' as const),
        approach: fc.constant('default'),
        runner: fc.constant(RUNNER),
      }),
    },
    {
      weight: 6,
      arbitrary: fc.record(
        {
          type: fc.constant('NodeRecorded' as const),
          node,
          attempt: fc.integer({ min: 0, max: 3 }),
          evidence: fc.constant<Evidence[]>([]),
          outputs: fc.constant({}),
          usage,
          recorded_by: fc.constant('ann'),
        },
        { requiredKeys: ['type', 'node', 'attempt', 'evidence', 'outputs', 'usage'] },
      ),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        type: fc.constant('NodeFailed' as const),
        node,
        attempt,
        failures: fc.constant<Failure[]>([{ check: 'exit', message: 'exited 1' }]),
        usage,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ type: fc.constant('NodeSkipped' as const), node, reason: fc.constant('no') }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        type: fc.constant('NodeInterrupted' as const),
        node,
        attempt,
        observed_usage: usage,
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        type: fc.constant('RerunApproved' as const),
        node,
        attempt,
        approved_by: fc.constant('ann'),
        source: fc.constant('x'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('NodeEscalated' as const),
        node,
        report: fc.constant<EscalationReport>({
          attempted: [],
          failed: [],
          approaches_tried: [],
          needed: 'a person',
        }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constantFrom('RunFailed' as const, 'RunCompleted' as const),
        reason: fc.constant('r'),
        by: fc.constant('ann'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('GraphChangeAllowed' as const),
        from: fc.constantFrom(hash, 'sha256:x'),
        to: fc.constantFrom(hash, 'sha256:y'),
        by: fc.constant('ann'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constant({
        type: 'RunStarted' as const,
        graph: { name: 'prop', hash, path: 'p' },
        intent: 'i',
        subject: 's',
        runner: RUNNER,
      }),
    },
  );
}

describe('properties of arbitrary event sequences', () => {
  it('fold either refuses with a JournalError or gives a checkpoint that keeps every invariant', () => {
    const arb = graphCaseArb.chain((c) => {
      const g = graphOf(c);
      return fc.tuple(
        fc.constant(g),
        fc.array(
          eventArb(
            g.nodes.map((n) => n.id),
            g.hash,
          ),
          { maxLength: 25 },
        ),
      );
    });
    let accepted = 0;
    fc.assert(
      fc.property(arb, fc.boolean(), ([g, events], started) => {
        const j = started
          ? append(startJournal(g), events)
          : append({ ...startJournal(g), events: [] }, events);
        const n = acceptedPrefix(j, g);
        accepted += Math.max(0, n - 1);
        if (n === j.events.length) assertDeterministic(g, j);
        else expect(() => fold(j, g)).toThrow(JournalError);
      }),
      { numRuns: 150 },
    );
    // not vacuous: some arbitrary events past RunStarted are accepted
    expect(accepted).toBeGreaterThan(0);
  });

  it('whatever event arrives next, the fold refuses it with a JournalError or keeps every invariant', () => {
    // Each arbitrary event is offered to the journal so far: refused ones are left out, accepted ones kept,
    // so the sequences reach deep into runs no protocol decision would produce.
    const arb = graphCaseArb.chain((c) => {
      const g = graphOf(c);
      const events = eventArb(
        g.nodes.map((n) => n.id),
        g.hash,
      );
      return fc.tuple(fc.constant(g), fc.array(events, { minLength: 20, maxLength: 60 }));
    });
    const seen = { accepted: 0, refused: 0, completed: 0, held: 0 };
    fc.assert(
      fc.property(arb, ([g, events]) => {
        let j = startJournal(g);
        for (const e of events) {
          const next = append(j, [e]);
          const cp = foldOrRefuse(next, g);
          if (!cp) {
            seen.refused++;
            continue;
          }
          seen.accepted++;
          if (cp.status === 'completed') seen.completed++;
          if (cp.held_nodes.length) seen.held++;
          assertInvariants(g, cp);
          j = next;
        }
        assertDeterministic(g, j);
      }),
      { numRuns: 80 },
    );
    // not vacuous: the sequences go deep, and are refused often
    expect(seen.accepted).toBeGreaterThan(100);
    expect(seen.refused).toBeGreaterThan(100);
    expect(seen.held).toBeGreaterThan(0);
  });

  it('a valid journal with events dropped, repeated, swapped or renumbered is refused or keeps every invariant', () => {
    const edit = fc.record({
      op: fc.constantFrom('drop', 'repeat', 'swap', 'renumber'),
      i: fc.nat(),
      k: fc.nat(),
    });
    fc.assert(
      fc.property(
        graphCaseArb,
        fc.array(actionArb, { maxLength: 30 }),
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        (c, actions, edits) => {
          const g = graphOf(c);
          const j = execute(g, c.flag, actions, false);
          let events = [...j.events];
          for (const { op, i, k } of edits) {
            const a = i % events.length;
            const b = k % events.length;
            if (op === 'drop') events.splice(a, 1);
            if (op === 'repeat') events.splice(a, 0, events[a]!);
            if (op === 'swap') [events[a], events[b]] = [events[b]!, events[a]!];
            if (op === 'renumber') events = events.map((e, n) => ({ ...e, seq: n + 1 }));
            if (events.length === 0) break;
          }
          acceptedPrefix({ ...j, events }, g);
        },
      ),
      { numRuns: 70 },
    );
  });
});
