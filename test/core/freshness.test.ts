/** Which read of a journal is stale (journal/freshness.ts), and the store that never goes back in time. */
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/events/events.js';
import { floorOf, NO_FLOOR, raiseFloor, staleReadShortMs, staleReason } from '../../src/journal/freshness.js';
import { FreshStore } from '../../src/store/fresh.js';
import type { JournalStore, StoredJournal } from '../../src/store/types.js';
import { COMPLETED, VALID } from './journal-fixtures.js';

const prefix = (j: Journal, n: number): Journal => ({ ...j, events: j.events.slice(0, n) });
/** The same length as VALID, but its last event is another one (a journal replaced, or another run's). */
const OTHER: Journal = {
  ...VALID,
  events: [...VALID.events.slice(0, 3), { ...VALID.events[3]!, at: '2030-01-01T00:00:00.000Z' }],
};

describe('a stale read', () => {
  it('is one that lacks an event the reader knows, or shows another in its place', () => {
    const floor = floorOf(VALID);
    expect(floor.seq).toBe(4);
    expect(staleReason(floor, prefix(VALID, 3))).toBe('it holds 3 events, and this reader knows 4');
    expect(staleReason(floor, null)).toBe('it has no journal, and this reader knows 4 events');
    expect(staleReason(floor, OTHER)).toBe('its event 4 is not the one this reader knows');
    expect(staleReason(floor, VALID)).toBeUndefined();
    expect(staleReason(floor, COMPLETED)).toBeUndefined();
  });

  it('needs a floor: a reader that knows nothing takes any answer, a count alone checks only the count', () => {
    expect(staleReason(NO_FLOOR, null)).toBeUndefined();
    expect(staleReason(NO_FLOOR, prefix(VALID, 1))).toBeUndefined();
    expect(staleReason({ seq: 4 }, OTHER)).toBeUndefined();
    expect(staleReason({ seq: 5 }, VALID)).toBe('it holds 4 events, and this reader knows 5');
  });

  it('the floor only rises', () => {
    expect(raiseFloor(floorOf(VALID), prefix(VALID, 2))).toEqual(floorOf(VALID));
    expect(raiseFloor(floorOf(VALID), COMPLETED)).toEqual(floorOf(COMPLETED));
    expect(raiseFloor({ seq: 4 }, VALID)).toEqual(floorOf(VALID));
  });

  it('a decision on what the journal lacks waits for a read begun a window after its cause', () => {
    expect(staleReadShortMs(1_000, 0, 2_000)).toBe(1_000);
    expect(staleReadShortMs(2_000, 0, 2_000)).toBe(0);
    expect(staleReadShortMs(5_000, 0, 2_000)).toBe(0);
    expect(staleReadShortMs(0, undefined, 2_000)).toBe(0);
    expect(staleReadShortMs(0, 0, 0)).toBe(0);
  });
});

/** A store whose reads answer from a script, then the last answer forever. */
function scripted(answers: (Journal | null)[]): JournalStore & { reads: number; written: Journal[] } {
  const store = {
    location: 'test',
    reads: 0,
    written: [] as Journal[],
    async read(): Promise<StoredJournal | null> {
      const j = answers[Math.min(store.reads++, answers.length - 1)]!;
      return j ? { journal: j, version: `v${j.events.length}` } : null;
    },
    async write(journal: Journal) {
      store.written.push(journal);
      return { ok: true as const, version: `v${journal.events.length}` };
    },
  };
  return store;
}

describe('FreshStore', () => {
  const waits: number[] = [];
  const options = { sleep: async (ms: number) => void waits.push(ms) };

  it('reads again, after a short wait, when an answer is older than what the reader wrote', async () => {
    waits.length = 0;
    const inner = scripted([prefix(VALID, 3), prefix(VALID, 2), null, COMPLETED]);
    const store = new FreshStore(inner, options);
    await store.write(VALID, 'v3', 'm');
    const read = await store.read();
    expect(read?.journal).toBe(COMPLETED);
    expect([inner.reads, store.staleAnswers]).toEqual([4, 3]);
    expect(waits).toEqual([200, 400, 800]);
    expect(store.floor).toEqual(floorOf(COMPLETED));
  });

  it('knows what it read: a later, older answer is read again', async () => {
    const inner = scripted([VALID, prefix(VALID, 3), VALID]);
    const store = new FreshStore(inner, options);
    await store.read();
    expect((await store.read())?.journal).toBe(VALID);
    expect(store.staleAnswers).toBe(1);
  });

  it('starts from the floor it is given (a count alone)', async () => {
    const inner = scripted([prefix(VALID, 3), VALID]);
    const store = new FreshStore(inner, { ...options, floor: { seq: 4 } });
    expect((await store.read())?.journal).toBe(VALID);
    expect(store.staleAnswers).toBe(1);
  });

  it('gives up, saying why and that nothing was decided, when reads stay older for the whole window', async () => {
    let now = 0;
    const inner = scripted([prefix(VALID, 3)]);
    const store = new FreshStore(inner, {
      floor: floorOf(VALID),
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
      giveUpAfterMs: 5_000,
    });
    await expect(store.read()).rejects.toThrow(
      /every read answered older than this step already knew \(it holds 3 events, and this reader knows 4\).*Nothing was decided from it/,
    );
  });
});

describe('FreshStore after a refused write', () => {
  const options = { sleep: async () => {} };

  it('reads again once when a read shows the version GitHub just said had changed', async () => {
    const inner = scripted([VALID, VALID, COMPLETED]);
    inner.write = async () => ({ ok: false as const, conflict: 'changed (409)' });
    const store = new FreshStore(inner, options);
    const first = await store.read();
    await store.write(COMPLETED, first!.version, 'm');
    expect((await store.read())?.journal).toBe(COMPLETED);
    expect(store.staleAnswers).toBe(1);
  });

  it('hands the read on after that, and never rereads for a write refused because the branch moved', async () => {
    const inner = scripted([VALID]);
    inner.write = async () => ({ ok: false as const, conflict: 'refused (409)' });
    const store = new FreshStore(inner, options);
    await store.write(COMPLETED, 'v4', 'm');
    expect((await store.read())?.version).toBe('v4');
    expect(store.staleAnswers).toBe(1);
    inner.write = async () => ({ ok: false as const, conflict: 'moved (409)', branchMoved: true as const });
    await store.write(COMPLETED, 'v4', 'm');
    expect((await store.read())?.version).toBe('v4');
    expect(store.staleAnswers).toBe(1);
  });
});
