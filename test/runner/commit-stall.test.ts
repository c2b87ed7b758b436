// A write refused while reads by branch name still answer from before the write that refused it looks like a store
// that keeps refusing (the journal "did not change"). The commit reads once more from where the past cannot answer
// before it gives up: the flake of `for_each/never/after-dispatch-write` in the reliability suite.
import { describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { appendEvents } from '../../src/journal/parse.js';
import { commit } from '../../src/runner/journal-io/commit.js';
import type { RunSetup } from '../../src/runner/journal-io/read.js';
import type { JournalStore, StoredJournal, WriteResult } from '../../src/store/types.js';

const graph = parseGraph({
  path: 'g.yml',
  text: `interlock: 1
name: stall
nodes:
  - id: a
    run: echo a
`,
});
const runner = { kind: 'local' as const, host: 'test', pid: 1 };
const WINDOW_MS = 400;

/**
 * A store in memory whose reads answer the version before the last write for `lateMs` after it (as GitHub's reads
 * by branch name do), and whose writes compare against the true version.
 */
class LateStore implements JournalStore {
  readonly location = 'memory';
  stored: StoredJournal | null = null;
  private before: StoredJournal | null = null;
  private writtenAt = 0;
  /** When each read and each write began. */
  log: { op: 'read' | 'write'; at: number }[] = [];
  constructor(private readonly lateMs: number) {}
  async read() {
    this.log.push({ op: 'read', at: Date.now() });
    return Date.now() - this.writtenAt < this.lateMs ? this.before : this.stored;
  }
  async write(journal: Journal, expected: string | null): Promise<WriteResult> {
    this.log.push({ op: 'write', at: Date.now() });
    if ((this.stored?.version ?? null) !== expected)
      return { ok: false, conflict: 'is at another version (test)' };
    this.put(journal);
    return { ok: true, version: this.stored!.version };
  }
  /** Another writer's write: its events land, and reads answer from before it for a while. */
  put(journal: Journal) {
    this.before = this.stored;
    this.stored = { journal, version: `v${journal.events.length}` };
    this.writtenAt = Date.now();
  }
}

const setupOf = (store: JournalStore, windowMs: number): RunSetup => ({
  graph,
  store,
  runId: 'stall/1',
  start: { intent: 'test', subject: 'local', inputs: {}, github: undefined },
  staleRead: { at: Date.now() - 60_000, windowMs },
});

const dispatch = (node: string) => ({
  type: 'NodeDispatched' as const,
  node,
  attempt: 1,
  replay: 'never' as const,
  approach: 'default',
  runner,
});

/** A journal that has started, then another writer's dispatch of "a" (reads answer from before it for a while). */
async function started(store: LateStore): Promise<void> {
  await commit(setupOf(store, 0), runner, () => ({ events: [] }), { create: true });
  store.put(appendEvents(store.stored!.journal, [dispatch('a')], new Date().toISOString()));
  store.log = [];
}

/** Dispatch "a" unless it was dispatched already. */
const dispatchOnce = (cur: { state: { nodes: Map<string, { attempts: number }> } }) => ({
  events: cur.state.nodes.get('a')?.attempts ? [] : [dispatch('a')],
});

/** A store answering 409 to every write, the journal never moving. */
function refuseAll(store: LateStore) {
  store.write = async () => {
    store.log.push({ op: 'write', at: Date.now() });
    return { ok: false, conflict: 'refused (test)' };
  };
}

describe('a write refused while reads answer from the past', () => {
  it('decides again from a read begun a stale window after the refusal, which shows the journal moved on', async () => {
    const store = new LateStore(WINDOW_MS);
    await started(store);
    // Without the late-proof read: four stale reads in a row, "refused 4 times although the journal did not change".
    await commit(setupOf(store, WINDOW_MS), runner, dispatchOnce);
    expect(store.stored!.journal.events.map((e) => e.type)).toEqual(['RunStarted', 'NodeDispatched']);
  });

  it('a store that keeps refusing is still given up on, after one read begun a stale window after the refusal', async () => {
    const store = new LateStore(0);
    await started(store);
    refuseAll(store);
    await expect(
      commit(setupOf(store, WINDOW_MS), runner, () => ({ events: [dispatch('a')] })),
    ).rejects.toThrow(/refused 4 times although the journal did not change \(refused \(test\)\)/);
    expect(store.log.filter((l) => l.op === 'write')).toHaveLength(4);
    const lastWrite = store.log.filter((l) => l.op === 'write').at(-1)!.at;
    const lastRead = store.log.at(-1)!;
    expect(lastRead.op).toBe('read');
    expect(lastRead.at - lastWrite).toBeGreaterThanOrEqual(WINDOW_MS);
  });

  it('where every read is exact (no stale window), a stall is given up on without waiting for one', async () => {
    const store = new LateStore(0);
    await started(store);
    refuseAll(store);
    await expect(commit(setupOf(store, 0), runner, () => ({ events: [dispatch('a')] }))).rejects.toThrow(
      /did not change/,
    );
    expect(store.log.filter((l) => l.op === 'write')).toHaveLength(4);
    // The first read, and one after each of the four refusals: none waiting for a stale window.
    expect(store.log.filter((l) => l.op === 'read')).toHaveLength(5);
  });
});
