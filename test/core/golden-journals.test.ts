// Journals written today stay readable: the golden journals under test/fixtures/journals/ (written by the real
// CLI and the real Action, see its README) must parse without losing a field, and fold to the
// checkpoint committed beside them, byte for byte. A failure here means the journal format changed: give it a
// new `format` and a migration; never regenerate the fixtures to make this pass.
import { describe, expect, it } from 'vitest';
import { EventSchema, JOURNAL_FORMAT, JournalHeaderSchema } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { goldens, loadGolden as load } from './goldens.js';

/** The checkpoint as `interlock status --json` prints it (the form the fixtures were written in). */
const printed = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

describe('golden journals of interlock.journal/1', () => {
  it('there are golden journals, all in the current format', () => {
    expect(goldens).toEqual([
      'action-demo',
      'agents',
      'cli',
      'dispatch-retried',
      'effects',
      'for-each',
      'gate',
      'loops',
      'loops-fork',
      'network',
      'serialized',
      'sessions',
      'sessions-isolated',
      'setup',
      'soft',
      'subgraphs',
      'subgraphs-fork',
    ]);
    for (const name of goldens) expect(load(name).journal.format).toBe(JOURNAL_FORMAT);
  });

  for (const name of goldens) {
    it(`${name}: parses without losing or changing a field, and serializes stably`, () => {
      const { text, journal } = load(name);
      const written = serializeJournal(journal);
      // Equal as data; not always as bytes: parsing puts a runner's known fields before extra ones.
      expect(JSON.parse(written)).toEqual(JSON.parse(text));
      expect(serializeJournal(parseJournal(written, name))).toBe(written);
    });

    it(`${name}: its graph is the one the journal names (same hash)`, () => {
      const { journal, graph } = load(name);
      expect(graph.hash).toBe(journal.graph.hash);
    });

    it(`${name}: folds to the committed checkpoint, byte for byte, every time`, () => {
      const { journal, graph, checkpoint } = load(name);
      expect(printed(fold(journal, graph).checkpoint)).toBe(checkpoint);
      expect(printed(fold(parseJournal(serializeJournal(journal), name), graph).checkpoint)).toBe(checkpoint);
    });
  }

  it('together they hold every event type and every field the format defines', () => {
    const seen = new Set<string>();
    for (const name of goldens) {
      const raw = JSON.parse(load(name).text) as Record<string, unknown> & {
        events: Record<string, unknown>[];
      };
      for (const key of Object.keys(raw)) seen.add(`journal.${key}`);
      for (const event of raw.events) for (const key of Object.keys(event)) seen.add(`${event.type}.${key}`);
    }
    const defined = [
      ...Object.keys(JournalHeaderSchema.shape).map((k) => `journal.${k}`),
      ...EventSchema().options.flatMap((o) => Object.keys(o.shape).map((k) => `${o.shape.type.value}.${k}`)),
    ];
    expect(defined.filter((f) => !seen.has(f))).toEqual([]);
  });
});
