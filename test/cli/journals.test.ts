// Corrupted journals are refused with an error naming the file and the first bad event, and are never
// overwritten: driven through the CLI against a temporary directory.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { JournalError } from '../../src/journal/state.js';
import {
  COMPLETED,
  eventLine,
  GRAPH_TEXT,
  replaceLine,
  VALID,
  VALID_TEXT,
  withEvents,
} from '../core/journal-fixtures.js';

const AWAY = { kind: 'local', host: 'elsewhere', pid: 1 };
const LEFT = "it was left untouched: restore it from a backup or the journal branch's history";
const UNTOUCHED = 'the journal was left untouched';

const intentAt = VALID_TEXT.indexOf('"intent":"cli"');

/** A corrupted journal: its name, its bytes, and the message that must name the file (`F`) and the first bad event. */
type Corruption = [name: string, bytes: string | Buffer, message: (file: string) => string];

const CORRUPTIONS: Corruption[] = [
  [
    'invalid JSON',
    replaceLine(VALID_TEXT, 3, eventLine(VALID_TEXT, 3).replace('"attempt":1', '"attempt" 1')),
    (f) => `${f}: the journal is not valid JSON at line 5 (event seq 3): Unexpected number; ${LEFT}`,
  ],
  [
    'truncated mid-event',
    VALID_TEXT.slice(0, VALID_TEXT.indexOf(eventLine(VALID_TEXT, 3)) + 40),
    (f) => `${f}: the journal is not valid JSON at line 5 (event seq 3): Unterminated string; ${LEFT}`,
  ],
  [
    'an unquoted value mid-journal',
    VALID_TEXT.replace('"node":"a","attempt":1,"evidence"', '"node":"a","attempt":one,"evidence"'),
    (f) => `${f}: the journal is not valid JSON at line 5 (event seq 3): unexpected character "o"; ${LEFT}`,
  ],
  [
    'empty file',
    '',
    (f) => `${f}: the journal is not valid JSON at line 1: Unexpected end of JSON input; ${LEFT}`,
  ],
  [
    'wrong format string',
    VALID_TEXT.replace('"interlock.journal/1"', '"interlock.journal/2"'),
    (f) => `${f}: not an interlock journal: ✖ Invalid input: expected "interlock.journal/1" → at format`,
  ],
  [
    'not an object',
    '[]\n',
    (f) => `${f}: not an interlock journal: ✖ Invalid input: expected object, received array`,
  ],
  [
    'header without its graph',
    VALID_TEXT.replace(/"graph":\{"name":"demo","hash":"[^"]+","path":"graph.yml"\},\n/, '\n'),
    (f) => `${f}: not an interlock journal: ✖ Invalid input: expected object, received undefined → at graph`,
  ],
  [
    'invalid UTF-8 bytes',
    Buffer.concat([
      Buffer.from(VALID_TEXT.slice(0, intentAt + 10)),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(VALID_TEXT.slice(intentAt + 12)),
    ]),
    (f) => `${f}: line 3 (event seq 1, type "RunStarted") is not valid UTF-8; ${LEFT}`,
  ],
  [
    'forged event type',
    VALID_TEXT.replace('"type":"NodeRecorded"', '"type":"NodeDone"'),
    (f) =>
      `${f}: event #3 (seq 3, type "NodeDone") is malformed: ✖ Invalid discriminator value. Expected 'RunStarted' | 'NodeDispatched' | 'NodeRecorded' | 'NodeFailed' | 'NodeSkipped' | 'NodeInterrupted' | 'RerunApproved' | 'NodeEscalated' | 'RunFailed' | 'RunCompleted' | 'GraphChangeAllowed' | 'NodeAwaitingApproval' | 'NodeApproved' | 'NodeOverdue' | 'NodeExpanded' | 'NodeExpansionFailed' | 'NodeJoined' | 'NodeCycleStarted' | 'RerunFromApproved' | 'NodeCarriedOver' | 'NodeReturned' | 'WorkflowDispatchRetried' → at type`,
  ],
  [
    'missing field',
    VALID_TEXT.replace('"node":"a","attempt":1,"replay"', '"node":"a","replay"'),
    (f) =>
      `${f}: event #2 (seq 2, type "NodeDispatched") is malformed: ✖ Invalid input: expected number, received undefined → at attempt`,
  ],
  [
    'unknown field in an event',
    VALID_TEXT.replace(
      '"node":"a","attempt":1,"evidence"',
      '"node":"a","attempt":1,"forged":true,"evidence"',
    ),
    (f) => `${f}: event #3 (seq 3, type "NodeRecorded") is malformed: ✖ Unrecognized key: "forged"`,
  ],
  [
    'events reordered',
    replaceLine(replaceLine(VALID_TEXT, 2, eventLine(VALID_TEXT, 3)), 3, eventLine(VALID_TEXT, 2)),
    (f) =>
      `${f}: event 3 (NodeRecorded): sequence number 3 where 2 was expected (events reordered or missing); ${UNTOUCHED}`,
  ],
  [
    'an event missing',
    VALID_TEXT.replace(`${eventLine(VALID_TEXT, 3)}\n`, ''),
    (f) =>
      `${f}: event 4 (NodeDispatched): sequence number 4 where 3 was expected (events reordered or missing); ${UNTOUCHED}`,
  ],
  [
    'first event not RunStarted',
    serializeJournal({ ...VALID, events: VALID.events.slice(1).map((e, i) => ({ ...e, seq: i + 1 })) }),
    (f) => `${f}: event 1 (NodeDispatched): the first event must be RunStarted; ${UNTOUCHED}`,
  ],
  [
    'a second dispatch of a node in flight',
    withEvents(VALID, {
      type: 'NodeDispatched',
      node: 'b',
      attempt: 2,
      replay: 'never',
      approach: 'default',
      runner: AWAY,
    }),
    (f) => `${f}: event 5 (NodeDispatched): node "b" is in flight; it cannot be dispatched; ${UNTOUCHED}`,
  ],
  [
    'NodeRecorded for a node never dispatched',
    withEvents(VALID, {
      type: 'NodeRecorded',
      node: 'c',
      attempt: 1,
      evidence: [],
      outputs: {},
      usage: { wall_ms: 1 },
    }),
    (f) => `${f}: event 5 (NodeRecorded): node "c" attempt 1 is not in flight (it is pending); ${UNTOUCHED}`,
  ],
  [
    'an event after RunCompleted',
    withEvents(COMPLETED, {
      type: 'RerunApproved',
      node: 'a',
      attempt: 1,
      approved_by: 'mallory',
      source: 'x',
    }),
    (f) =>
      `${f}: event 9 (RerunApproved): the run already ended with RunCompleted (every node completed or skipped); ${UNTOUCHED}`,
  ],
  [
    'RunCompleted with nodes unresolved',
    withEvents(VALID, { type: 'RunCompleted', reason: 'done', by: 'mallory' }),
    (f) =>
      `${f}: event 5 (RunCompleted): the run cannot complete while "b", "c" are unresolved; ${UNTOUCHED}`,
  ],
  [
    'a node that is not in the graph',
    withEvents(VALID, { type: 'NodeSkipped', node: 'ghost', reason: 'x' }),
    (f) => `${f}: event 5 (NodeSkipped) names node "ghost", which is not in the graph; ${UNTOUCHED}`,
  ],
  [
    'two bad events: the first is named',
    withEvents(
      VALID,
      { type: 'NodeRecorded', node: 'c', attempt: 1, evidence: [], outputs: {}, usage: { wall_ms: 1 } },
      { type: 'RunCompleted', reason: 'done', by: 'mallory' },
    ),
    (f) => `${f}: event 5 (NodeRecorded): node "c" attempt 1 is not in flight (it is pending); ${UNTOUCHED}`,
  ],
];

const COMMANDS: Array<[verb: string, argv: string[]]> = [
  ['run', ['run', 'graph.yml', '--journal', 'run.json', '--run-id', 'demo', '--quiet']],
  ['status', ['status', '--journal', 'run.json']],
  ['approve-rerun', ['approve-rerun', 'b', '--by', 'ann', '--journal', 'run.json']],
];

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-journals-'));
  file = join(dir, 'run.json');
  writeFileSync(join(dir, 'graph.yml'), GRAPH_TEXT);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir },
  });
  return { code, out, err };
}

describe('a corrupted journal is refused, named, and left byte-identical', () => {
  const table = CORRUPTIONS.flatMap(([name, bytes, message]) =>
    COMMANDS.map(([verb, argv]) => [`${verb}: ${name}`, bytes, message, argv] as const),
  );

  it.each(table)('%s', async (_name, bytes, message, argv) => {
    writeFileSync(file, bytes);
    const before = readdirSync(dir).sort();
    const r = await cli([...argv]);
    expect(r).toEqual({ code: 2, out: '', err: `interlock: ${message(file)}\n` });
    expect(readFileSync(file).equals(Buffer.from(bytes))).toBe(true);
    // no lock, temp file or log was left beside it
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it.each([
    ['settle', ['settle', 'b', '--by', 'ann', '--note', 'done', '--journal', 'run.json']],
    ['fail-run', ['fail-run', '--by', 'ann', '--reason', 'stop', '--journal', 'run.json']],
    ['recover', ['recover', '--assume-dead', '--journal', 'run.json']],
  ])('%s refuses it too', async (_verb, argv) => {
    const [, bytes, message] = CORRUPTIONS.find(
      ([name]) => name === 'a second dispatch of a node in flight',
    )!;
    writeFileSync(file, bytes);
    expect(await cli(argv)).toEqual({ code: 2, out: '', err: `interlock: ${message(file)}\n` });
    expect(readFileSync(file).equals(Buffer.from(bytes))).toBe(true);
  });

  it('the same journal, uncorrupted, is read: status exits 0 and writes nothing', async () => {
    writeFileSync(file, VALID_TEXT);
    const r = await cli(['status', '--json', '--journal', 'run.json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      run_id: 'demo',
      status: 'running',
      completed_nodes: ['a'],
      active_nodes: ['b'],
      ready_nodes: ['c'],
    });
    expect(readFileSync(file, 'utf8')).toBe(VALID_TEXT);
  });

  it('parseJournal refuses the same corruptions with a JournalError naming the file', () => {
    for (const [name, bytes, message] of CORRUPTIONS) {
      let error: unknown;
      try {
        parseJournal(typeof bytes === 'string' ? bytes : new Uint8Array(bytes), 'runs/demo.json');
      } catch (e) {
        error = e;
      }
      // shape errors are the parser's; rule breaks are found by the fold (the CLI adds the file to those)
      if (error === undefined) {
        expect(message('F'), name).toMatch(/^F: event \d+ \(/);
        continue;
      }
      expect(error, name).toBeInstanceOf(JournalError);
      expect((error as Error).message, name).toBe(message('runs/demo.json'));
    }
  });
});
