// A read given the run its caller folded already (the App's loaded run, passed to a person command's commit) takes
// that state only when it reads that very journal at that version, and the state is the fold from scratch byte for
// byte: for every golden journal, against every prefix the caller may have folded and every version it may name.
// The read itself always happens (it is the compare-and-swap's base), and the header check still refuses a forgery.
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { JournalError, type RunState } from '../../src/journal/state.js';
import { type RunSetup, readRun } from '../../src/runner/journal-io/read.js';
import type { StoredJournal } from '../../src/store/types.js';
import { goldens, loadGolden } from './goldens.js';

const whole = (s: RunState) => JSON.stringify({ ...s, nodes: [...s.nodes.entries()] });
const upTo = (journal: Journal, n: number): Journal => ({ ...journal, events: journal.events.slice(0, n) });
const runner = { kind: 'local' as const };

/** A run's setup over a store whose reads answer `stored`, counting them. */
function setupOver(name: string, stored: StoredJournal, reads: { n: number }): RunSetup {
  const { graph } = loadGolden(name);
  const store = {
    location: `memory:${name}`,
    read: async () => {
      reads.n++;
      return stored;
    },
    write: async () => ({ ok: false as const, conflict: 'not written here' }),
  };
  const start = { intent: 'test', subject: 'issue#1', inputs: {}, github: null };
  return { graph, store, runId: stored.journal.run_id, start };
}

describe("a read given the caller's folded run", () => {
  for (const name of goldens) {
    it(`${name}: takes the state only for that journal at that version, and it is the fold from scratch`, async () => {
      const { journal } = loadGolden(name);
      const n = journal.events.length;
      const reads = { n: 0 };
      const setup = setupOver(name, { journal, version: `v${n}` }, reads);
      const expected = whole(fold(journal, setup.graph));
      const state = fold(journal, setup.graph);
      const same = await readRun(setup, runner, undefined, { base: { journal, version: `v${n}`, state } });
      expect(same.state).toBe(state);
      expect(whole(same.state)).toBe(expected);
      for (let k = 1; k <= n; k++) {
        const prefix = upTo(journal, k);
        const older = { journal: prefix, version: `v${k}`, state: fold(prefix, setup.graph) };
        const read = await readRun(setup, runner, undefined, { base: older });
        expect(whole(read.state), `${name}: the caller folded ${k} events`).toBe(expected);
        if (k < n) expect(read.state).not.toBe(older.state);
      }
      // The same journal under another version (another write of the same text): folded again.
      const renamed = await readRun(setup, runner, undefined, { base: { journal, version: 'other', state } });
      expect(renamed.state).not.toBe(state);
      expect(whole(renamed.state)).toBe(expected);
      expect(reads.n).toBe(n + 2);
    });
  }

  for (const name of goldens) {
    it(`${name}: a read that keeps a prefix folds both to the fold from scratch`, async () => {
      const { journal } = loadGolden(name);
      const n = journal.events.length;
      const setup = setupOver(name, { journal, version: `v${n}` }, { n: 0 });
      const expected = whole(fold(journal, setup.graph));
      for (let k = 1; k <= n; k++) {
        const read = await readRun(setup, runner, undefined, { prefixAt: () => k });
        expect(whole(read.state), `${name}: the whole, a prefix of ${k} kept`).toBe(expected);
        expect(whole(read.prefix!)).toBe(whole(fold(upTo(journal, k), setup.graph)));
      }
      const none = await readRun(setup, runner, undefined, { prefixAt: () => undefined });
      expect(none.prefix).toBeUndefined();
      expect(whole(none.state)).toBe(expected);
    });
  }

  it('reads no event when it takes the state, and still refuses a header its events disagree with', async () => {
    const { journal } = loadGolden('gate');
    const touched = new Set<number>();
    const events = new Proxy(journal.events, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) touched.add(Number(key));
        return Reflect.get(target, key, receiver);
      },
    });
    const watched = { ...journal, events };
    const setup = setupOver('gate', { journal: watched, version: 'v1' }, { n: 0 });
    const state = fold(journal, setup.graph);
    touched.clear();
    await readRun(setup, runner, undefined, { base: { journal: watched, version: 'v1', state } });
    expect([...touched]).toEqual([]);

    const forged = { ...journal, graph: { ...journal.graph, hash: 'sha256:forged' } };
    const forgedSetup = setupOver('gate', { journal: forged, version: 'v1' }, { n: 0 });
    const base = { journal: forged, version: 'v1', state: fold(forged, forgedSetup.graph) };
    const refusal = await readRun(forgedSetup, runner, undefined, { base }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(JournalError);
    expect((refusal as Error).message).toMatch(
      /the header names graph sha256:forged but its events accepted/,
    );
  });
});
