// The check-run store's view of the run (src/action/report/store-check-run-view.ts) folds each journal it draws
// onto the state it drew last: what it draws is what a view drawing that journal alone draws, for every prefix of
// every golden journal drawn in order, and for a journal that does not continue the last one drawn (an earlier
// prefix, as a re-read after a refused write may be), which is folded from scratch.
import { describe, expect, it } from 'vitest';
import { storeCheckRunView } from '../../src/action/report/store-check-run-view.js';
import type { Journal } from '../../src/journal/events/events.js';
import { goldens, loadGolden } from '../core/goldens.js';

const upTo = (journal: Journal, n: number): Journal => ({ ...journal, events: journal.events.slice(0, n) });

describe("the check-run store's view", () => {
  for (const name of goldens) {
    it(`${name}: each journal drawn after the last is drawn as a view of it alone draws it`, () => {
      const { journal, graph } = loadGolden(name);
      const view = storeCheckRunView(graph);
      const alone = (j: Journal) => storeCheckRunView(graph)(j);
      for (let n = 1; n <= journal.events.length; n++) {
        const prefix = upTo(journal, n);
        expect(view(prefix), `${n} events`).toEqual(alone(prefix));
      }
      // Back to an earlier journal: it does not continue the one drawn last.
      const earlier = upTo(journal, Math.ceil(journal.events.length / 2));
      expect(view(earlier)).toEqual(alone(earlier));
      expect(view(journal)).toEqual(alone(journal));
    });
  }
});
