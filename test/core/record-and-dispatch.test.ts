// `node: all`'s record-and-dispatch write (issue 36: decided in the protocol, no longer in the shell): the write
// that records a result carries the next dispatch only after a recorded result, with nothing else in flight.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/journal/events/events.js';
import { nextInRecordWrite } from '../../src/protocol/record-and-dispatch.js';
import { graph, graphText, RUNNER, Sim } from './sim.js';

const g = graph(
  graphText(`  - id: a
    run: ./a.sh
  - id: b
    depends_on: [a]
    run: ./b.sh
  - id: side
    run: ./side.sh
`),
);
const recorded = (node: string): NewEvent[] => [
  { type: 'NodeRecorded', node, attempt: 1, evidence: [], outputs: {}, usage: { wall_ms: 1 } },
];
const AT = '2025-01-01T00:10:00.000Z';

describe('the record-and-dispatch write', () => {
  it('carries the next dispatch after a recorded result', () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    sim.succeed('a');
    sim.dispatch('side');
    sim.succeed('side');
    const next = nextInRecordWrite(sim.run, {
      result: { events: [], recordedAll: true },
      at: AT,
      runner: RUNNER,
    });
    expect(next?.decision).toMatchObject({ kind: 'dispatch', node: { id: 'b' } });
  });

  it('leaves a failure, or a result that did not record every node, to be written alone', () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    expect(
      nextInRecordWrite(sim.run, {
        result: { events: recorded('a'), recordedAll: false },
        at: AT,
        runner: RUNNER,
      }),
    ).toBe(undefined);
  });

  it('writes the result alone while another attempt is in flight: a whole step recovers first', () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    sim.dispatch('side');
    expect(
      nextInRecordWrite(sim.run, {
        result: { events: recorded('a'), recordedAll: true },
        at: AT,
        runner: RUNNER,
      }),
    ).toBe(undefined);
    const alone = new Sim(g);
    alone.dispatch('a');
    const next = nextInRecordWrite(alone.run, {
      result: { events: recorded('a'), recordedAll: true },
      at: AT,
      runner: RUNNER,
    });
    expect(next?.decision.kind).toBe('dispatch');
  });

  it("completes the run in the same write when the result was the run's last", () => {
    const sim = new Sim(g);
    for (const id of ['a', 'side']) {
      sim.dispatch(id);
      sim.succeed(id);
    }
    sim.dispatch('b');
    const next = nextInRecordWrite(sim.run, {
      result: { events: recorded('b'), recordedAll: true },
      at: AT,
      runner: RUNNER,
    });
    expect(next?.decision.kind).toBe('complete');
  });
});
