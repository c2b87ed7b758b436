// After a conflict, the writers that met line up: each finds its place among the nodes that may be racing, and
// its wait counts from when the client lets its write go, not from the refused write. A matrix job lines up before
// its first write too, when it reads the version every job of the first round reads (nothing in flight).
import { describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { TUNING } from '../../src/os/tuning.js';
import { commit } from '../../src/runner/journal-io/commit.js';
import { contenderPlace, lineUpWait } from '../../src/runner/journal-io/pacing.js';

/** The line-up's slot when INTERLOCK_LINE_UP_SLOT_MS is unset. */
const LINE_UP_SLOT_MS = TUNING.INTERLOCK_LINE_UP_SLOT_MS.default;

import { type RunSetup, readRun } from '../../src/runner/journal-io/read.js';
import type { JournalStore, StoredJournal, WriteResult } from '../../src/store/types.js';

const graph = parseGraph({
  path: 'g.yml',
  text: `interlock: 1
name: line
nodes:
  - id: a
    run: echo a
  - id: b
    run: echo b
  - id: c
    run: echo c
`,
});
const runner = { kind: 'local' as const, host: 'test', pid: 1 };

/** A store in memory that refuses the first `refuse` writes and holds each write `spacingMs` after the last. */
class LineStore implements JournalStore {
  readonly location = 'memory';
  stored: StoredJournal | null = null;
  reads: number[] = [];
  writes: number[] = [];
  private last = 0;
  constructor(
    private refuse: number,
    private readonly spacingMs: number,
  ) {}
  async read() {
    this.reads.push(Date.now());
    return this.stored;
  }
  writableInMs() {
    return Math.max(0, this.last + this.spacingMs - Date.now());
  }
  async write(journal: Journal, expected: string | null): Promise<WriteResult> {
    this.last = Date.now();
    this.writes.push(this.last);
    if (this.refuse-- > 0) return { ok: false, conflict: 'moved on (test)' };
    if ((this.stored?.version ?? null) !== expected) return { ok: false, conflict: 'stale (test)' };
    this.stored = { journal, version: String(this.writes.length) };
    return { ok: true, version: this.stored.version };
  }
}

const setupOf = (store: JournalStore): RunSetup => ({
  graph,
  store,
  runId: 'line/1',
  start: { intent: 'test', subject: 'local', inputs: {}, github: undefined },
});

describe('contenderPlace', () => {
  it('puts the nodes in flight first, then the ready ones, in the order of the fold', async () => {
    const cur = await readRun(setupOf(new LineStore(0, 0)), runner);
    const dispatch = (node: string) => ({
      type: 'NodeDispatched' as const,
      node,
      attempt: 1,
      replay: 'never' as const,
      approach: 'default',
      runner,
    });
    expect(contenderPlace(cur.state, [dispatch('a')])).toBe(0);
    expect(contenderPlace(cur.state, [dispatch('c')])).toBe(2);
    expect(contenderPlace(cur.state, [])).toBe(-1);
  });
});

describe('the wait after a conflict', () => {
  it('starts once the client lets the next write go: spaced writers that met do not meet again at once', async () => {
    const store = new LineStore(1, 300);
    const setup = setupOf(store);
    await commit(setup, runner, (cur) => ({
      events: [
        {
          type: 'NodeDispatched' as const,
          node: 'c',
          attempt: 1,
          replay: 'never' as const,
          approach: 'default',
          runner,
        },
      ].filter(() => cur.state.checkpoint.ready_nodes.includes('c')),
    }));
    expect(store.writes).toHaveLength(2);
    // "c" stands third among the ready nodes: two round trips (at least 20 ms each) after the spacing's 300 ms.
    expect(store.reads[1]! - store.writes[0]!).toBeGreaterThanOrEqual(300 + 2 * 20 - 5);
    expect(store.stored?.journal.events.map((e) => e.type)).toEqual(['RunStarted', 'NodeDispatched']);
  });
});

describe('lineUp: a matrix job before its first write', () => {
  const dispatchOf = (node: string) => (cur: Awaited<ReturnType<typeof readRun>>) => ({
    events: [
      {
        type: 'NodeDispatched' as const,
        node,
        attempt: (cur.state.nodes.get(node)?.attempts ?? 0) + 1,
        replay: 'never' as const,
        approach: 'default',
        runner,
      },
    ],
  });

  it('the node third in line waits for the third slot of the cycle on the clock and reads again before writing', async () => {
    const store = new LineStore(0, 0);
    await commit(setupOf(store), runner, dispatchOf('c'), { lineUp: true });
    expect(store.reads).toHaveLength(2);
    expect(store.writes).toHaveLength(1);
    // Three nodes ready: a cycle of three slots, each a job's two writes at GitHub's pace (not a read's round trip).
    const cycle = 3 * LINE_UP_SLOT_MS;
    const into = store.reads[1]! % cycle;
    expect(into).toBeGreaterThanOrEqual(2 * LINE_UP_SLOT_MS - 5);
    expect(into).toBeLessThan(2 * LINE_UP_SLOT_MS + 500);
  });

  it('jobs that start at different times still write in different slots (the slots are on the clock)', () => {
    const snap = { state: { checkpoint: { active_nodes: ['a'], ready_nodes: ['b', 'c', 'd'] } } } as never;
    const ev = (node: string) => [{ type: 'NodeDispatched', node }] as never;
    const at = (node: string, now: number) => now + lineUpWait(snap, ev(node), { roundTripMs: 20 }, now);
    for (const now of [0, 1234, 7001, 59_999]) {
      const slots = ['b', 'c', 'd'].map((n) => (at(n, now) % (4 * LINE_UP_SLOT_MS)) / LINE_UP_SLOT_MS);
      expect(slots).toEqual([1, 2, 3]);
    }
    // A node alone in flight or ready never waits.
    const alone = { state: { checkpoint: { active_nodes: [], ready_nodes: ['b'] } } } as never;
    expect(lineUpWait(alone, ev('b'), { roundTripMs: 20 }, 1234)).toBe(0);
  });

  it('takes the slot its face read (RunSetup.lineUpSlotMs), never shorter than a round trip', () => {
    const snap = { state: { checkpoint: { active_nodes: ['a'], ready_nodes: ['b', 'c', 'd'] } } } as never;
    const ev = (node: string) => [{ type: 'NodeDispatched', node }] as never;
    const slotOf = (pace: { roundTripMs: number; slotMs?: number }) =>
      ['b', 'c', 'd'].map((n) => lineUpWait(snap, ev(n), pace, 0));
    expect(slotOf({ roundTripMs: 20, slotMs: 500 })).toEqual([500, 1000, 1500]);
    expect(slotOf({ roundTripMs: 700, slotMs: 500 })).toEqual([700, 1400, 2100]);
  });

  it('a writer that starts once a node is in flight still waits for its own slot, then writes', async () => {
    const first = new LineStore(0, 0);
    await commit(setupOf(first), runner, dispatchOf('a'), { lineUp: true });
    expect(first.reads[1]! % (3 * LINE_UP_SLOT_MS)).toBeLessThan(500);
    // "a" is in flight now; "c" is still in the line-up, third of the three in flight or ready.
    const later = first;
    later.reads = [];
    await commit(setupOf(later), runner, dispatchOf('c'), { lineUp: true });
    expect(later.reads).toHaveLength(2);
    expect(later.reads[1]! % (3 * LINE_UP_SLOT_MS)).toBeGreaterThanOrEqual(2 * LINE_UP_SLOT_MS - 5);
    expect(later.stored?.journal.events.map((e) => e.type)).toEqual([
      'RunStarted',
      'NodeDispatched',
      'NodeDispatched',
    ]);
  });

  it('without lineUp a writer never waits to read again', async () => {
    const store = new LineStore(0, 0);
    await commit(setupOf(store), runner, dispatchOf('c'));
    expect(store.reads).toHaveLength(1);
  });
});
