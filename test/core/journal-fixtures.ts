// A valid journal for the graph below, and ways to corrupt it, as bytes on disk.
import { parseGraph } from '../../src/graph/load/load.js';
import { JOURNAL_FORMAT, type Journal } from '../../src/journal/events/events.js';
import { appendEvents, serializeJournal } from '../../src/journal/parse.js';

export const GRAPH_TEXT = `interlock: 1
name: demo
nodes:
  - id: a
    run: echo a
  - id: b
    run: echo b
    depends_on: [a]
  - id: c
    run: echo c
`;

export const GRAPH = parseGraph({ path: 'graph.yml', text: GRAPH_TEXT });
const REF = { name: GRAPH.name, hash: GRAPH.hash, path: 'graph.yml' };
const AWAY = { kind: 'local' as const, host: 'elsewhere', pid: 1 };
const AT = '2024-01-01T00:00:00.000Z';

const base: Journal = { format: JOURNAL_FORMAT, run_id: 'demo', graph: REF, events: [] };

/** RunStarted, a dispatched and recorded, b in flight on another host, c pending. */
export const VALID: Journal = appendEvents(
  base,
  [
    { type: 'RunStarted', graph: REF, intent: 'cli', subject: 'local', runner: AWAY },
    { type: 'NodeDispatched', node: 'a', attempt: 1, replay: 'never', approach: 'default', runner: AWAY },
    { type: 'NodeRecorded', node: 'a', attempt: 1, evidence: [], outputs: {}, usage: { wall_ms: 5 } },
    { type: 'NodeDispatched', node: 'b', attempt: 1, replay: 'never', approach: 'default', runner: AWAY },
  ],
  AT,
);

/** Every node recorded and the run completed. */
export const COMPLETED: Journal = appendEvents(
  VALID,
  [
    { type: 'NodeRecorded', node: 'b', attempt: 1, evidence: [], outputs: {}, usage: { wall_ms: 5 } },
    { type: 'NodeDispatched', node: 'c', attempt: 1, replay: 'never', approach: 'default', runner: AWAY },
    { type: 'NodeRecorded', node: 'c', attempt: 1, evidence: [], outputs: {}, usage: { wall_ms: 5 } },
    { type: 'RunCompleted', reason: 'every node completed or skipped', by: 'interlock' },
  ],
  AT,
);

export const VALID_TEXT = serializeJournal(VALID);

/** The journal's lines: header, `"events": [`, one event a line, `]`, `}`. Event n is line n + 2. */
export function eventLine(text: string, seq: number): string {
  return text.split('\n')[seq + 1]!;
}

export function replaceLine(text: string, seq: number, line: string): string {
  const lines = text.split('\n');
  lines[seq + 1] = line;
  return lines.join('\n');
}

/** Appends events to a valid journal's text without validating them (they may be bad on purpose). */
export function withEvents(j: Journal, ...events: object[]): string {
  let seq = j.events.length;
  return serializeJournal({
    ...j,
    events: [...j.events, ...events.map((e) => ({ seq: ++seq, at: AT, ...e }))] as Journal['events'],
  });
}
