// The fold event by event agrees with the fold from scratch: for every golden journal (every event type the
// format has), folding the events past any prefix onto the prefix's state gives the state of the whole journal,
// byte for byte, and leaves the prefix's state as it was; a journal that breaks a rule is refused with the same
// error either way, and a change that breaks none folds to the same state. And the fold onto a state reads only the new events.
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/events/events.js';
import { fold, foldOnto } from '../../src/journal/fold.js';
import { JournalError, type RunState } from '../../src/journal/state.js';
import { goldens, loadGolden } from './goldens.js';

/** Everything a state holds, as text: its checkpoint, and each node's progress in the fold's order. */
const whole = (s: RunState) => JSON.stringify({ ...s, nodes: [...s.nodes.entries()] });

const upTo = (journal: Journal, n: number): Journal => ({ ...journal, events: journal.events.slice(0, n) });

/** The state a fold gives, or the error it throws, as text. */
function outcome(f: () => RunState): string {
  try {
    return whole(f());
  } catch (e) {
    expect(e).toBeInstanceOf(JournalError);
    return `${(e as JournalError).seq}: ${(e as Error).message}`;
  }
}

describe('the fold onto a state agrees with the fold from scratch', () => {
  for (const name of goldens) {
    it(`${name}: from every prefix, in one go and one event at a time`, () => {
      const { journal, graph } = loadGolden(name);
      const expected = whole(fold(journal, graph));
      for (let k = 0; k <= journal.events.length; k++) {
        const before = fold(upTo(journal, k), graph);
        const was = whole(before);
        expect(whole(foldOnto(before, journal, graph)), `${name} from event ${k}`).toBe(expected);
        expect(whole(before), `${name}: the state of ${k} events is unchanged`).toBe(was);
      }
      let step = fold(upTo(journal, 0), graph);
      for (let k = 1; k <= journal.events.length; k++) step = foldOnto(step, upTo(journal, k), graph);
      expect(whole(step)).toBe(expected);
    });

    it(`${name}: a journal changed past the prefix is folded, or refused, alike`, () => {
      const { journal, graph } = loadGolden(name);
      const n = journal.events.length;
      const broken: Journal[] = [
        // An event repeated, one dropped, two swapped, the end written twice.
        { ...journal, events: [...journal.events, { ...journal.events[n - 1]!, seq: n + 1 }] },
        {
          ...journal,
          events: [...journal.events.slice(0, n - 2), { ...journal.events[n - 1]!, seq: n - 1 }],
        },
        {
          ...journal,
          events: [
            ...journal.events.slice(0, n - 2),
            { ...journal.events[n - 1]!, seq: n - 1 },
            { ...journal.events[n - 2]!, seq: n },
          ],
        },
      ];
      let refused = 0;
      for (const bad of broken) {
        const scratch = outcome(() => fold(bad, graph));
        const onto = outcome(() => foldOnto(fold(upTo(bad, n - 3), graph), bad, graph));
        expect(onto).toBe(scratch);
        if (!scratch.startsWith('{')) refused++;
      }
      // The repeated event at least breaks a rule in every journal.
      expect(refused).toBeGreaterThan(0);
    });
  }

  it('reads only the events past those its state was folded from', () => {
    const { journal, graph } = loadGolden('for-each');
    const k = journal.events.length - 3;
    const before = fold(upTo(journal, k), graph);
    const read = new Set<number>();
    const events = new Proxy(journal.events, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) read.add(Number(key));
        return Reflect.get(target, key, receiver);
      },
    });
    foldOnto(before, { ...journal, events }, graph);
    // The last event folded before (to know the journal continues it) and the three new ones.
    expect([...read].sort((a, b) => a - b)).toEqual([k - 1, k, k + 1, k + 2]);
  });

  it('folds from scratch a journal that does not continue the one its state came from', () => {
    const { journal, graph } = loadGolden('gate');
    const k = journal.events.length - 2;
    const before = fold(upTo(journal, k), graph);
    // The same events, but copies: another journal, which need not hold what the state was folded from.
    const other = { ...journal, events: journal.events.map((e) => ({ ...e })) };
    expect(whole(foldOnto(before, other, graph))).toBe(whole(fold(other, graph)));
    // A state this module did not make is folded from scratch too.
    const made = { ...before };
    expect(whole(foldOnto(made, journal, graph))).toBe(whole(fold(journal, graph)));
  });
});
