// checkEvent (src/journal/events/events.ts) builds only the schema of the event's type; it must answer exactly as
// the whole discriminated union does: the same data for every event of the golden journals, and the same issues,
// worded the same, for each of them broken in the ways a hand edit breaks an event.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { checkEvent, EventSchema } from '../../src/journal/events/events.js';
import { goldens, loadGolden } from './goldens.js';

/** What a check answered, in the terms parseJournal and the commit's check read it in. */
function answer(r: z.ZodSafeParseResult<unknown>) {
  return r.success
    ? { data: r.data }
    : { issues: JSON.parse(JSON.stringify(r.error.issues)), pretty: z.prettifyError(r.error) };
}

/** The event broken in each way a hand edit breaks one. */
function broken(ev: Record<string, unknown>): unknown[] {
  const { seq: _, ...noSeq } = ev;
  const { type: __, ...noType } = ev;
  return [
    noSeq,
    noType,
    { ...ev, seq: 'one' },
    { ...ev, at: 'yesterday' },
    { ...ev, extra: true },
    { ...ev, type: 'NodeTeleported' },
    { ...ev, type: 'constructor' },
    { ...ev, type: 7 },
    ...Object.keys(ev)
      .filter((k) => !['seq', 'at', 'type'].includes(k))
      .flatMap((k) => {
        const { [k]: ___, ...without } = ev;
        return [without, { ...ev, [k]: null }];
      }),
  ];
}

const events = goldens.flatMap((name) =>
  (loadGolden(name).journal.events as unknown as Record<string, unknown>[]).map((ev) => ({ name, ev })),
);

describe('checkEvent answers as EventSchema does', () => {
  it('has events of every type to compare', () => {
    const types = new Set(events.map(({ ev }) => ev.type));
    // Every type the union knows, but those no golden journal holds (checked broken below through the others).
    expect(types.size).toBeGreaterThanOrEqual(20);
  });

  it('for every event of the golden journals: the same data', () => {
    for (const { ev } of events) expect(answer(checkEvent(ev))).toEqual(answer(EventSchema().safeParse(ev)));
  });

  it('for each of them broken: the same issues, in the same words', () => {
    let compared = 0; // of them refused (a field left out may be optional)
    for (const { name, ev } of events)
      for (const bad of broken(ev)) {
        const mine = answer(checkEvent(bad));
        expect(mine, `${name}: ${JSON.stringify(bad)}`).toEqual(answer(EventSchema().safeParse(bad)));
        if (mine.issues) compared++;
      }
    expect(compared).toBeGreaterThan(1000);
  });

  it("for what is not an event at all: the union's own answer", () => {
    for (const bad of [null, undefined, 'NodeRecorded', 7, [], [{ type: 'RunStarted' }], {}])
      expect(answer(checkEvent(bad))).toEqual(answer(EventSchema().safeParse(bad)));
  });
});
