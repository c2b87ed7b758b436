// Fuzzing with fast-check: graph files, journals, event orders under concurrent writers, comment parsing, and
// the paths untrusted text takes (expressions, output files, log lines). Bounded in `npm test`; `npm run fuzz`
// runs each property many more times (INTERLOCK_FUZZ_RUNS).

import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fileCommand } from '../../src/action/commands.js';
import { logLine } from '../../src/action/entry.js';
import { MAX_COMMENT_CHARS, parseComment, shown } from '../../src/approvals/commands/parse.js';
import { interpolate } from '../../src/expressions/evaluate.js';
import { GraphError } from '../../src/graph/errors.js';
import { parseGraph } from '../../src/graph/load/load.js';
import { isNodeName } from '../../src/graph/schema/subgraph.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../../src/journal/events/events.js';
import type { RunnerInfo } from '../../src/journal/events/fields.js';
import { fold } from '../../src/journal/fold.js';
import { appendEvents, parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { validRunId } from '../../src/journal/run-id.js';
import { JournalError } from '../../src/journal/state.js';
import { parseOutputFile } from '../../src/protocol/attempt/output-file.js';
import { decideNext, decideResult } from '../../src/protocol/decide.js';
import { runOf } from '../../src/protocol/run.js';
import { commit } from '../../src/runner/journal-io/commit.js';
import type { RunSetup } from '../../src/runner/journal-io/read.js';
import type { JournalStore, StoredJournal, WriteResult } from '../../src/store/types.js';

/** Runs per property: the base in `npm test`, INTERLOCK_FUZZ_RUNS × base / 100 under `npm run fuzz`. */
function runs(base: number): number {
  const scale = Number(process.env.INTERLOCK_FUZZ_RUNS);
  const n = Number.isFinite(scale) && scale > 0 ? Math.max(base, Math.round((base * scale) / 100)) : base;
  planned.push(n);
  return n;
}
const planned: number[] = [];
// `npm run reliability` reads how many cases ran.
afterAll(() => {
  const file = process.env.INTERLOCK_FUZZ_REPORT;
  if (file)
    writeFileSync(
      file,
      JSON.stringify({ properties: planned.length, cases: planned.reduce((a, b) => a + b, 0) }),
    );
});
const LONG = process.env.INTERLOCK_FUZZ_RUNS ? 600_000 : 30_000;

// --- graphs ---------------------------------------------------------------------------------------------

const VALID_GRAPH = `interlock: 1
name: fuzz
defaults:
  agent: cat
nodes:
  - id: build
    run: make
    env:
      TITLE: \${{ github.event.issue.title }}
    validates:
      - file: out.txt
        contains: "^ok"
  - id: test
    depends_on: [build]
    prompt: "Test \${{ nodes.build.outputs.x }}"
    outputs: [x]
    retry:
      - {}
      - run: make test
  - id: ship
    depends_on: [test]
    replay: safe
    execute_conditions: ["inputs.go == 'yes'"]
    run: ./ship.sh
`;

/** Characters that break YAML, JSON, expressions and shells, and some that merely look like others. */
const NASTY = [
  ...':-[]{}#&*!|>\'"%@`,?$\\\n\t\r\0 ',
  '${{',
  '}}',
  '<<',
  '---',
  '\u00a0',
  '\u200b',
  '\ufeff',
  '／',
  'é',
  '🔥',
  '\ud800',
];

/** A mutation of the valid graph text: characters inserted, deleted or replaced at random places. */
const mutatedGraph = fc
  .array(
    fc.record({
      at: fc.nat({ max: VALID_GRAPH.length }),
      del: fc.nat({ max: 6 }),
      ins: fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 6 }), fc.constant('')),
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((edits) => {
    let text = VALID_GRAPH;
    for (const e of edits) {
      const at = Math.min(e.at, text.length);
      text = text.slice(0, at) + e.ins + text.slice(at + e.del);
    }
    return text;
  });

const FIELDS = [
  'id',
  'run',
  'prompt',
  'agent',
  'depends_on',
  'replay',
  'retry',
  'validates',
  'env',
  'outputs',
];
/** Graph-shaped JSON with random values where fields are: the schema's edges. */
const graphShaped = fc
  .record({
    interlock: fc.oneof(fc.constant(1), fc.jsonValue()),
    name: fc.oneof(fc.constant('fuzz'), fc.string({ maxLength: 10 })),
    nodes: fc.array(
      fc.dictionary(
        fc.constantFrom(...FIELDS, 'x', '__proto__', 'constructor'),
        fc.jsonValue({
          maxDepth: 2,
          stringUnit: fc.constantFrom('a', '\n', '"', '\\', '$', '{', '}', ' ', '\0', 'é'),
        }),
        { maxKeys: 5 },
      ),
      { maxLength: 4 },
    ),
  })
  .map((o) => JSON.stringify(o));

/** Loads, accepting only a located GraphError as a refusal; a graph that loads is loaded the same way twice. */
function loadOrRefuse(text: string, path = 'graph.yml'): void {
  let first: string;
  try {
    first = parseGraph({ path, text }).hash;
  } catch (e) {
    if (!(e instanceof GraphError)) throw e;
    for (const line of e.message.split('\n'))
      if (!/^graph\.(yml|json):\d+:\d+: \S/.test(line)) throw new Error(`an unlocated error line: ${line}`);
    return;
  }
  expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(parseGraph({ path, text }).hash).toBe(first);
}

describe('fuzz: graph files', () => {
  it(
    'a mutated graph file loads deterministically or is refused with located errors, never a crash',
    () => {
      fc.assert(
        fc.property(mutatedGraph, (text) => loadOrRefuse(text)),
        { numRuns: runs(150) },
      );
    },
    LONG,
  );

  it(
    'graph-shaped JSON with random values loads or is refused with located errors',
    () => {
      fc.assert(
        fc.property(graphShaped, (text) => loadOrRefuse(text, 'graph.json')),
        { numRuns: runs(150) },
      );
    },
    LONG,
  );

  it(
    'any text at all is loaded or refused with located errors',
    () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => loadOrRefuse(text)),
        { numRuns: runs(150) },
      );
    },
    LONG,
  );
});

// --- journals -------------------------------------------------------------------------------------------

const GRAPH = parseGraph({
  path: 'graph.yml',
  text: `interlock: 1\nname: j\nnodes:\n  - id: a\n    run: x\n  - id: b\n    run: x\n    depends_on: [a]\n  - id: c\n    replay: safe\n    run: x\n`,
});
const RUNNER: RunnerInfo = { kind: 'local', host: 'h', pid: 1, exec_tag: 't' };
const REF = { name: GRAPH.name, hash: GRAPH.hash, path: 'graph.yml' };
const BASE = appendEvents(
  { format: JOURNAL_FORMAT, run_id: 'j', graph: REF, events: [] },
  [
    { type: 'RunStarted', graph: REF, intent: 'cli', subject: 'local', runner: RUNNER },
    { type: 'NodeDispatched', node: 'a', attempt: 1, replay: 'never', approach: 'default', runner: RUNNER },
    {
      type: 'NodeRecorded',
      node: 'a',
      attempt: 1,
      evidence: [{ check: 'file x', passed: true, observed: 'x exists' }],
      outputs: { k: 'v\n"quoted"' },
      usage: { wall_ms: 5 },
    },
    { type: 'NodeDispatched', node: 'c', attempt: 1, replay: 'safe', approach: 'default', runner: RUNNER },
    { type: 'NodeInterrupted', node: 'c', attempt: 1, observed_usage: { wall_ms: 3 } },
  ],
  '2024-01-01T00:00:00.000Z',
);
const BASE_TEXT = serializeJournal(BASE);

/** Journal bytes with flips, cuts, swapped lines and inserted junk. */
const mutatedJournal = fc.oneof(
  fc
    .record({ at: fc.nat({ max: BASE_TEXT.length - 1 }), byte: fc.integer({ min: 0, max: 255 }) })
    .map(({ at, byte }) => {
      const b = Buffer.from(BASE_TEXT);
      b[at] = byte;
      return b;
    }),
  fc.nat({ max: BASE_TEXT.length }).map((n) => Buffer.from(BASE_TEXT.slice(0, n))),
  fc.tuple(fc.nat({ max: 8 }), fc.nat({ max: 8 })).map(([i, j]) => {
    const lines = BASE_TEXT.split('\n');
    const a = lines[i % lines.length]!;
    lines[i % lines.length] = lines[j % lines.length]!;
    lines[j % lines.length] = a;
    return Buffer.from(lines.join('\n'));
  }),
  fc
    .tuple(
      fc.nat({ max: BASE_TEXT.length }),
      fc.constantFrom(...NASTY, '{"seq":9}', ',', 'null', '"type":"X"'),
    )
    .map(([at, s]) => Buffer.from(BASE_TEXT.slice(0, at) + s + BASE_TEXT.slice(at))),
);

describe('fuzz: journals', () => {
  it(
    'corrupted journal bytes are read and folded, or refused with a JournalError naming the file; never a crash',
    () => {
      fc.assert(
        fc.property(mutatedJournal, (bytes) => {
          let j: Journal;
          try {
            j = parseJournal(new Uint8Array(bytes), 'runs/j.json');
          } catch (e) {
            if (!(e instanceof JournalError)) throw e;
            expect(e.message).toMatch(/^runs\/j\.json: /);
            return;
          }
          try {
            const once = JSON.stringify(fold(j, GRAPH).checkpoint);
            expect(JSON.stringify(fold(parseJournal(serializeJournal(j), 'again'), GRAPH).checkpoint)).toBe(
              once,
            );
          } catch (e) {
            if (!(e instanceof JournalError)) throw e;
          }
        }),
        { numRuns: runs(300) },
      );
    },
    LONG,
  );

  it('a journal written and read back is the same journal', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.string({ maxLength: 30 }),
        (value, note) => {
          const j = appendEvents(
            BASE,
            [{ type: 'RunFailed', reason: value || 'x', by: note || 'y' }],
            '2024-01-01T00:00:01.000Z',
          );
          expect(parseJournal(serializeJournal(j), 'j')).toEqual(j);
        },
      ),
      { numRuns: runs(200) },
    );
  });
});

// --- event orders under concurrent writers ---------------------------------------------------------------

/** An in-memory store with the real compare-and-swap contract, whose reads and writes fast-check interleaves. */
class SchedulerStore implements JournalStore {
  readonly location = 'memory';
  text: string | null = null;
  version = 0;
  writes = 0;
  conflicts = 0;
  constructor(private readonly s: fc.Scheduler) {}
  read(): Promise<StoredJournal | null> {
    return this.s
      .schedule(Promise.resolve(), 'read')
      .then(() =>
        this.text === null
          ? null
          : { journal: parseJournal(this.text, 'memory'), version: String(this.version) },
      );
  }
  write(journal: Journal, expected: string | null): Promise<WriteResult> {
    return this.s.schedule(Promise.resolve(), 'write').then(() => {
      const now = this.text === null ? null : String(this.version);
      if (now !== expected) {
        this.conflicts++;
        return { ok: false as const, conflict: 'moved on' };
      }
      this.text = serializeJournal(journal);
      this.version++;
      this.writes++;
      return { ok: true as const, version: String(this.version) };
    });
  }
}

const FAN = parseGraph({
  path: 'fan.yml',
  text: `interlock: 1\nname: fan\nnodes:\n${['n1', 'n2', 'n3', 'n4'].map((id) => `  - id: ${id}\n    run: x\n`).join('')}  - id: join\n    depends_on: [n1, n2, n3, n4]\n    run: x\n`,
});

describe('fuzz: concurrent writers on one journal', () => {
  it(
    'in every interleaving fast-check picks, each node is dispatched once and recorded once, and no event is lost',
    async () => {
      let conflicts = 0;
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 4 }), async (s, writers) => {
          const store = new SchedulerStore(s);
          const setup: RunSetup = {
            graph: FAN,
            store,
            runId: 'fan',
            start: { intent: 'fuzz', subject: 'local', inputs: {}, github: null },
            now: () => '2024-01-01T00:00:00.000Z',
          };
          const ran: string[] = [];
          const writer = async (w: number) => {
            const runner: RunnerInfo = { kind: 'local', host: 'h', pid: 100 + w, exec_tag: `w${w}` };
            for (let i = 0; i < 10; i++) {
              const d = await commit(
                setup,
                runner,
                (cur) => {
                  const dec = decideNext(runOf(FAN, cur.journal, cur.state), { runner });
                  return {
                    dec,
                    events:
                      dec.kind === 'dispatch' || dec.kind === 'complete' ? dec.events : ([] as NewEvent[]),
                  };
                },
                { create: true },
              );
              if (d.chosen.dec.kind !== 'dispatch') return;
              const node = d.chosen.dec.node.id;
              ran.push(node);
              await commit(
                setup,
                runner,
                (c) =>
                  decideResult(runOf(FAN, c.journal, c.state), {
                    node,
                    attempt: 1,
                    outcome: { failures: [], evidence: [], outputs: {}, usage: { wall_ms: 1 } },
                  }),
                { known: d.cur },
              );
            }
          };
          await s.waitFor(Promise.all(Array.from({ length: writers }, (_, w) => writer(w))));
          const j = parseJournal(store.text!, 'memory');
          expect(j.events.map((e) => e.seq)).toEqual(j.events.map((_, i) => i + 1));
          const cp = fold(j, FAN).checkpoint;
          // a writer stops at "blocked" while a peer's node is in flight; the drained run completes when all stop.
          const ids = FAN.nodes.map((n) => n.id);
          expect([...ran].sort()).toEqual(
            ids.filter((id) => j.events.some((e) => e.type === 'NodeDispatched' && e.node === id)).sort(),
          );
          for (const id of ids)
            expect(
              j.events.filter((e) => e.type === 'NodeDispatched' && e.node === id).length,
            ).toBeLessThanOrEqual(1);
          for (const id of ran)
            expect(j.events.filter((e) => e.type === 'NodeRecorded' && e.node === id)).toHaveLength(1);
          expect(cp.active_nodes).toEqual([]);
          conflicts += store.conflicts;
        }),
        { numRuns: runs(40) },
      );
      // The interleavings did make writers collide: the property was exercised, not vacuous.
      expect(conflicts).toBeGreaterThan(0);
    },
    LONG,
  );
});

// --- comments -------------------------------------------------------------------------------------------

const NAMES = ['/approve-rerun', '/settle', '/fail-run', '/interlock status'];
const wordArb = fc.oneof(
  fc.constantFrom('deploy', 'plan', 'fix/issue-1', '--run=fix/issue-1', 'a b', '$(id)', '`id`', '../x', '✓'),
  fc.string({ maxLength: 12 }),
);
const commandLine = fc
  .tuple(
    fc.constantFrom(...NAMES),
    fc.array(wordArb, { maxLength: 4 }),
    fc.constantFrom('', ' ', '  ', '   '),
  )
  .map(([name, words, indent]) => `${indent}${name}${words.length ? ` ${words.join(' ')}` : ''}`);
const bodyArb = fc
  .array(
    fc.oneof(
      commandLine,
      fc.string({ maxLength: 40 }),
      fc.constantFrom('```', '~~~', '> ', '<!--', '-->', ''),
    ),
    {
      maxLength: 8,
    },
  )
  .map((lines) => lines.join(fc.sample(fc.constantFrom('\n', '\r\n', '\r'), 1)[0]!));

describe('fuzz: comment parsing (src/approvals/commands/parse.ts)', () => {
  it('never throws; a command read names a valid node and run id, on a plain line of the body', () => {
    fc.assert(
      fc.property(fc.oneof(bodyArb, fc.string({ unit: 'grapheme', maxLength: 200 })), (body) => {
        const r = parseComment(body);
        if (r.kind !== 'command') return;
        const c = r.command;
        // A node, an instance (`work[3]`) or a sub-graph's node (`review/build`), never anything else.
        if ('node' in c) expect(isNodeName(c.node), c.node).toBe(true);
        if (c.runId !== undefined) expect(validRunId(c.runId)).toBe(true);
        const line = body.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)[r.line - 1]!;
        expect(line).toMatch(/^ {0,3}\/(approve-rerun|settle|fail-run|interlock)(\s|$)/);
      }),
      { numRuns: runs(500) },
    );
  });

  it('a command inside a fenced block, a quote or an HTML comment is never read', () => {
    fc.assert(
      fc.property(
        commandLine,
        fc.constantFrom<[string, string]>(
          ['```\n', '\n```'],
          ['~~~sh\n', '\n~~~'],
          ['<!--\n', '\n-->'],
          ['> ', ''],
        ),
        (line, [open, close]) => {
          expect(parseComment(`${open}${line}${close}`).kind).toBe('none');
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('a look-alike slash or a command glued to text is never a command', () => {
    fc.assert(
      fc.property(commandLine, fc.constantFrom('／', '∕', '⁄', '\u200b/', 'x/', '\t/'), (line, slash) => {
        expect(parseComment(line.trimStart().replace(/^\//, slash)).kind).toBe('none');
      }),
      { numRuns: runs(300) },
    );
  });

  it('two commands on plain lines are refused, never one of them chosen', () => {
    fc.assert(
      fc.property(commandLine, commandLine, fc.string({ maxLength: 20 }), (a, b, mid) => {
        const body = `${a}\n${mid.replace(/[\r\n]/g, ' ')}\n${b}`;
        const r = parseComment(body);
        if (r.kind === 'command') {
          // only when one of the lines was not a command after all (bad words make `refused`, not a command)
          expect(parseComment(a).kind === 'none' || parseComment(b).kind === 'none').toBe(true);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it('an oversized comment is never read for commands', () => {
    fc.assert(
      fc.property(commandLine, fc.integer({ min: 1, max: 50 }), (line, extra) => {
        const body = `${line}\n${'x'.repeat(MAX_COMMENT_CHARS - line.length + extra)}`;
        expect(parseComment(body).kind).not.toBe('command');
      }),
      { numRuns: runs(30) },
    );
  });

  it('untrusted text shown in a reply stays in one code span: no newline, no backtick inside', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (text) => {
        const s = shown(text);
        expect(s.startsWith('`') && s.endsWith('`')).toBe(true);
        expect(s.slice(1, -1)).not.toMatch(/[`\n\r]/);
      }),
      { numRuns: runs(300) },
    );
  });
});

// --- untrusted text through expressions, output files and the step log -------------------------------------

describe('fuzz: untrusted text is data, never code', () => {
  it('an expression yields an untrusted value byte for byte, never evaluating what it holds', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.constantFrom('${{ 1 + 1 }}', "${{ '}}' }}", '}} ${{ github.token }}'),
        ),
        (s) => {
          const ctx = {
            github: { event: { issue: { title: s } } },
            inputs: { t: s },
            nodes: { a: { outputs: { o: s } } },
          };
          expect(interpolate('${{ github.event.issue.title }}', ctx)).toBe(s);
          expect(interpolate('${{ inputs.t }}', ctx)).toBe(s);
          expect(interpolate('<${{ nodes.a.outputs.o }}>', ctx)).toBe(`<${s}>`);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('a step output written to GITHUB_OUTPUT reads back as exactly one output, whatever its value holds', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,20}$/),
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.constantFrom('x\nstatus=forged', 'a<<EOF\nb\nEOF', 'ghadelimiter_x\nstatus=forged'),
        ),
        (name, value) => {
          // The runner reads the file by lines, and "\r\n", "\r" and "\n" each end one: line breaks in a value
          // may change form, but the random delimiter can never be forged, so no second output appears.
          const parsed = parseOutputFile(fileCommand(name, value).replace(/\r\n?/g, '\n'));
          expect(Object.keys(parsed)).toEqual([name]);
          if (!value.includes('\r')) expect(parsed[name]).toBe(value);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('no line interlock logs starts a workflow command, whatever the message quotes', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.constantFrom('::error::x', '  ::add-mask::y', '::stop-commands::z'),
          ),
          {
            maxLength: 5,
          },
        ),
        (parts) => {
          for (const line of logLine(parts.join('\n')).split('\n'))
            expect(line.trimStart().startsWith('::')).toBe(false);
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
