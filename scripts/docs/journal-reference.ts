// docs/journal-reference.md, written from the zod schemas of the journal (src/journal/events/events.ts), with the
// checkpoint's keys checked against a real fold and the example journal written by the real serializer.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseGraph } from '../../src/graph/load/load.js';
import {
  EventSchema,
  JOURNAL_FORMAT,
  type Journal,
  JournalHeaderSchema,
} from '../../src/journal/events/events.js';
import {
  BudgetReportSchema,
  EscalationReportSchema,
  EvidenceSchema,
  FailureSchema,
  RunnerSchema,
  UsageSchema,
} from '../../src/journal/events/fields.js';
import { fold } from '../../src/journal/fold.js';
import { appendEvents, parseJournal, serializeJournal } from '../../src/journal/parse.js';
import {
  anchorOf,
  code,
  fieldRows,
  type JsonSchema,
  type Link,
  type TableOptions,
  table,
} from './schema-table.js';

const SOURCE = 'src/journal/events/events.ts';

const toJson = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as JsonSchema;

/** When each event is written. Every event type needs one; an entry for a type that does not exist is an error. */
const WRITTEN: Record<string, string> = {
  RunStarted: 'Once, as the first event, in the same write as the first thing the run does.',
  NodeDispatched: [
    "**Before** the node's command starts: the command starts only after this write succeeded. Recovery of",
    'other attempts may come in the same write, before it.',
  ].join(' '),
  NodeRecorded: [
    'Every check passed and every promised output was set. Also when a person settles a held or escalated',
    'node (`settle`, `/settle`): then `recorded_by` and `note` are set and the evidence is one `person` entry.',
  ].join(' '),
  NodeFailed: [
    'The command exited non-zero or timed out, a check failed, or a promised output was not set. Also when',
    'an `env` value or the prompt could not be evaluated (the command did not run), and when a condition',
    'could not be evaluated (the pre-check: the dispatch and the failure are one write).',
  ].join(' '),
  NodeSkipped: 'No `execute_conditions` entry was true. Written instead of a dispatch.',
  NodeInterrupted: [
    "Recovery found the attempt's executor provably gone: on the same host, the CLI process is dead (or its",
    "pid was reused) and no process still carries the attempt's tag; in the Action, the workflow run attempt",
    'has ended, or the post step saw its own step killed. An attempt in flight elsewhere is left alone.',
  ].join(' '),
  RerunApproved:
    'A person approved a new attempt of a held or escalated node (`approve-rerun`, `/approve-rerun`).',
  NodeEscalated: [
    'In the same write as the `NodeFailed` of the last allowed attempt. Or, with `report.budget` set, instead of',
    "a node's dispatch when the run had spent its budget: the node waits on the attempt that was not dispatched.",
  ].join(' '),
  RunFailed: 'A person ended the run (`fail-run`, `/fail-run`).',
  RunCompleted: [
    'Every node is completed or skipped: in the same write as the `NodeRecorded` that completed the last',
    'node, or, when the last node was skipped, in the next step.',
  ].join(' '),
  NodeAwaitingApproval: [
    'A node with `approval: before` became ready before its first attempt: written instead of its dispatch,',
    'and the step ends with `status=awaiting-approval`. The node is not ready until enough people approve.',
  ].join(' '),
  NodeApproved: [
    'A person approved a node awaiting approval (`approve`, `/approve`). Once as many distinct people as',
    '`required` approved, the node is ready and its first attempt is dispatched by the next step. One event',
    'per person; a second approval by the same person, or one under another graph hash, is refused.',
  ].join(' '),
  NodeOverdue: [
    "An attempt in flight passed a soft bound of its node (`soft_timeout_minutes`, or an engine's `soft_turns`);",
    'written while it runs, in a write of its own. People are told (the CLI prints it; the Action updates the',
    'progress comment, comments once per attempt and adds the needs-human label). Nothing else changes: the',
    'attempt goes on until its hard limits. Refused for an attempt that is not in flight.',
  ].join(' '),
  NodeCycleStarted: [
    'A node with `repeat:` completed a cycle and its `until` was false: in the same write as that `NodeRecorded`',
    '(and, in `node: all`, the next dispatch), so no dependent sees the node completed between cycles. The node',
    'is pending again with its retries counted afresh; refused past `repeat.max` or out of order.',
  ].join(' '),
  RerunFromApproved: [
    'A person reran from a node (`rerun-from`, `/rerun-from`): the node and every node that depends on it,',
    'transitively (`nodes`), run again as new attempts; their outputs leave the checkpoint, a gated node awaits',
    'approval again and a `replay: never` node that ran is held. Refused while one of them is in flight.',
  ].join(' '),
  NodeCarriedOver: [
    'Only in a run forked from an ended one (`RunStarted.forked_from`), right after `RunStarted`: one per node',
    'outside the rerun that had completed or been skipped there, with its outputs.',
  ].join(' '),
  NodeReturned: [
    'A node of a serialized chain (`sessions.<name>.serialized`) goes back to pending, unchecked: an earlier node',
    "of its chain did not pass. Written in the same write as that node's `NodeFailed`. Its attempt is spent but is",
    'not a failure; its next attempt runs alone (one node a call), as every node of the session does from then on.',
  ].join(' '),
  WorkflowDispatchRetried: [
    'The second dispatch of the workflow an approval or a settlement (`/settle`) called for, written before it, by the',
    "App or `mode: comment`: a copy of the command's delivery (or a re-run of the comment job) found the command",
    'journaled, a node it released still not dispatched, and no workflow run of the workflow since the command (the',
    'process that journaled it died before dispatching). The write is the claim: of many copies, the one whose write',
    'lands dispatches. Changes no node; refused for a source no approval or settlement holds.',
  ].join(' '),
  GraphChangeAllowed: [
    'Someone let the run go on under a changed graph (`--allow-graph-change`, `allow-graph-change: true`);',
    "written first in the write of the command that asked for it, and the journal's `graph` becomes the new one. A refused command does not write it either: the journal stays byte for byte as it was.",
  ].join(' '),
  NodeExpanded: [
    "A `for_each` node became ready: its list was evaluated once, and this write holds every item's key and",
    'value, before any instance (`<node>[<key>]`) is dispatched; the list is never evaluated again. Written by',
    'the step whose turn the node is, or by `mode: plan` (in its recovery write) so the matrix gets the instances.',
  ].join(' '),
  NodeExpansionFailed: [
    'Instead of `NodeExpanded` when the list cannot be used (not a list, empty, over `max_items`, a key that is',
    'not allowed or shared by two items, an item over 16 KiB), with the `NodeEscalated` that follows in the same',
    'write. `/approve-rerun <node>` evaluates the list again, as the next attempt.',
  ].join(' '),
  NodeJoined: [
    'Every instance of a `for_each` node ended (completed, skipped, or escalated within `tolerated_failures`):',
    'the node completes and its dependents are ready. The tolerated instances are named; they stay in the',
    'journal and show as `tolerated_nodes`. Written by the next step, or by `mode: plan`.',
  ].join(' '),
};

/** The checkpoint's keys, as `interlock status --json` prints them. Checked against a real fold. */
const CHECKPOINT: Array<[string, string, string]> = [
  ['run_id', 'string', 'The run id.'],
  ['graph', '[graph](#graph)', "The journal's graph: name, hash, path."],
  [
    'status',
    'string',
    '`running` (a node is in flight or ready), `blocked` (none is: the run waits for a person), `completed`, `failed`.',
  ],
  ['completed_nodes', 'list of string', 'Completed nodes, in the order they completed.'],
  [
    'failed_nodes',
    'list of string',
    'Nodes whose last attempt failed and that have attempts left (they are ready again), in declaration order.',
  ],
  ['skipped_nodes', 'list of string', 'Skipped nodes, in the order they were skipped.'],
  ['held_nodes', 'list of string', 'Interrupted `replay: never` nodes waiting for a person.'],
  ['escalated_nodes', 'list of string', 'Nodes whose last allowed attempt failed, waiting for a person.'],
  ['active_nodes', 'list of string', 'Nodes in flight: dispatched, with no result yet.'],
  [
    'ready_nodes',
    'list of string',
    'Nodes the next step acts on, in declaration order (rule 1): it dispatches them, skips them by their `execute_conditions`, or, for a node with `approval: before` never asked about, records that it awaits approval (`NodeAwaitingApproval`) and runs nothing.',
  ],
  ['traversal_path', 'list of string', 'Nodes in the order they completed or were skipped.'],
  ['attempts', 'map of number', 'Attempts dispatched per node (0 for a node never dispatched).'],
  [
    'usage',
    'object',
    [
      '`wall_ms`: the total; `nodes`: milliseconds per node, interrupted attempts counted by their lower bound.',
      "Once some attempt reported agent usage: the run's `input_tokens`, `output_tokens`, `cost_usd` (summed in",
      'millionths of a dollar) and `turns`, and `by_node` with the same and `wall_ms` per node. When the graph sets',
      'a `budget`: `budget.limit` and `budget.spent` (`cost_usd`, `tokens`, `turns`, `wall_minutes` since a person',
      'last raised it). These keys appear only when there is something to show, so an older journal folds to the',
      'same bytes.',
    ].join(' '),
  ],
  [
    'rolled_back_to',
    'string or null',
    'After an escalation, the most recent completed node: where the run stands. Cleared by the next dispatch or record.',
  ],
  [
    'ended',
    'object or null',
    '`{ type, reason, by }` of `RunCompleted` or `RunFailed`; null while the run goes on.',
  ],
  ['last_activity_at', 'string or null', 'The `at` of the last event (what `interlock stuck` measures).'],
];

const EXAMPLE_GRAPH = `interlock: 1
name: fix-bug
nodes:
  - id: reproduce
    run: ./scripts/reproduce.sh > repro.log
    validates:
      - file: repro.log
        contains: FAILED
  - id: implement
    depends_on: [reproduce]
    run: ./scripts/fix.sh
`;

/** A small journal, serialized by the real serializer and read back by the real parser and fold. */
function exampleJournal(): { text: string; journal: Journal } {
  const graph = parseGraph({ path: '.github/interlock/fix-bug.yml', text: EXAMPLE_GRAPH });
  const ref = { name: graph.name, hash: graph.hash, path: graph.path };
  const runner = { kind: 'local' as const, host: 'laptop', pid: 4242, exec_tag: '5f0c…' };
  let journal: Journal = { format: JOURNAL_FORMAT, run_id: 'fix-bug/issue-42', graph: ref, events: [] };
  journal = appendEvents(
    journal,
    [
      { type: 'RunStarted', graph: ref, intent: 'cli', subject: 'issue-42', runner, inputs: {} },
      { type: 'NodeDispatched', node: 'reproduce', attempt: 1, replay: 'never', approach: 'default', runner },
    ],
    '2025-01-06T09:00:00.000Z',
  );
  journal = appendEvents(
    journal,
    [
      {
        type: 'NodeRecorded',
        node: 'reproduce',
        attempt: 1,
        evidence: [
          { check: 'file repro.log contains /FAILED/', passed: true, observed: 'matched "FAILED" at line 3' },
        ],
        outputs: {},
        usage: { wall_ms: 812 },
      },
    ],
    '2025-01-06T09:00:01.000Z',
  );
  journal = appendEvents(
    journal,
    [{ type: 'NodeDispatched', node: 'implement', attempt: 1, replay: 'never', approach: 'default', runner }],
    '2025-01-06T09:00:01.100Z',
  );
  const text = serializeJournal(journal);
  const back = parseJournal(text, 'example');
  const keys = Object.keys(fold(back, graph).checkpoint);
  const documented = CHECKPOINT.map(([k]) => k);
  if (JSON.stringify(keys) !== JSON.stringify(documented)) {
    throw new Error(
      `the checkpoint's keys changed: the fold gives ${keys.join(', ')}; scripts/docs/journal-reference.ts documents ${documented.join(', ')}`,
    );
  }
  return { text, journal: back };
}

/** The rule blocks in test/core/rules.test.ts, so the page can point at them. */
function ruleTestsExist(): void {
  const tests = readFileSync(new URL('../../test/core/rules.test.ts', import.meta.url), 'utf8');
  for (let n = 1; n <= 7; n++) {
    if (!tests.includes(`describe('rule ${n}:`))
      throw new Error(`test/core/rules.test.ts has no "rule ${n}:" block, which the journal reference names`);
  }
}

export function journalReference(): string {
  ruleTestsExist();
  const shapes: Array<{ heading: string; schema: JsonSchema }> = [
    { heading: 'runner', schema: toJson(RunnerSchema) },
    { heading: 'usage', schema: toJson(UsageSchema()) },
    { heading: 'evidence', schema: toJson(EvidenceSchema()) },
    { heading: 'failure', schema: toJson(FailureSchema()) },
    { heading: 'report', schema: toJson(EscalationReportSchema()) },
    { heading: 'budget report', schema: toJson(BudgetReportSchema()) },
  ];
  const header = toJson(JournalHeaderSchema);
  shapes.push({ heading: 'graph', schema: header.properties!.graph! });
  const titled = new Set(shapes.map((s) => s.heading));
  const linkOf = (s: JsonSchema): Link | undefined =>
    s.title && titled.has(s.title) ? { name: s.title, anchor: anchorOf(s.title) } : undefined;
  const missing: string[] = [];
  const opts: TableOptions = { linkOf, source: SOURCE, missing };
  const common: TableOptions = { ...opts, skip: new Set(['seq', 'at', 'type']) };

  const variants = toJson(EventSchema()).oneOf ?? [];
  const types = variants.map((v) => String(v.properties?.type?.const));
  for (const t of types)
    if (!WRITTEN[t]) throw new Error(`event ${t} has no "written" text in ${import.meta.url}`);
  for (const t of Object.keys(WRITTEN))
    if (!types.includes(t)) throw new Error(`${t} is not an event any more`);
  const first = variants[0]!;
  const baseRows = fieldRows(
    { properties: { seq: first.properties!.seq!, at: first.properties!.at! }, required: ['seq', 'at'] },
    opts,
  );
  baseRows.push({
    field: 'type',
    type: 'string',
    required: true,
    default: '',
    allowed: types.map(code).join(', '),
    description: 'The event, as named below.',
  });

  const events = variants.map((v, i) =>
    [`### \`${types[i]}\``, '', WRITTEN[types[i]!], '', table(fieldRows(v, common)), ''].join('\n'),
  );
  const shapeDocs = shapes.map((s) =>
    [`### ${s.heading}`, '', s.schema.description ?? '', '', table(fieldRows(s.schema, opts)), ''].join('\n'),
  );
  const example = exampleJournal();
  const checkpointRows = CHECKPOINT.map(([k, t, d]) => `| ${code(k)} | ${t} | ${d.replace(/\|/g, '\\|')} |`);

  const page = [
    '# Journal reference',
    '',
    '<!-- Generated by `npm run docs` (scripts/gen-docs.ts) from src/journal/events/events.ts and a real fold.',
    '     Do not edit: change the descriptions in the schema (or the texts in scripts/docs/) and run `npm run docs`. -->',
    '',
    "Each run has one journal: the run's events, in order. It is the only state there is; the checkpoint",
    '(what `interlock status --json` prints) is folded from it every time it is read. Event and field names',
    'are part of the public surface: tools and people read journals.',
    '',
    '## The file',
    '',
    'One JSON document per run:',
    '',
    '| store | where |',
    '| --- | --- |',
    '| `file` (the CLI) | `.interlock/runs/<run-id>.json` under the working directory, or `--journal F` |',
    "| `git` (the Action's default) | `runs/<run-id>.json` on the run's own orphan branch `interlock-journal-runs/<run-id>`; a run started before that layout, on the `interlock-journal` branch |",
    '| `check-run` | gzip and base64 in an HTML comment in the output of the check run `interlock: <run-id>` |',
    '',
    table(fieldRows(header, opts)),
    '',
    `\`format\` is always \`${JOURNAL_FORMAT}\`. The writer puts one event on a line, so a diff of the journal`,
    'branch shows one line per event. This journal is written by the same code interlock uses:',
    '',
    '```json',
    example.text.trimEnd(),
    '```',
    '',
    "Next to a file journal, the CLI keeps each attempt's whole output in",
    '`.interlock/runs/<run-id>.logs/<node>-<attempt>.log`; the journal keeps only its tail (`output_tail`).',
    '',
    '## Writing: compare-and-swap',
    '',
    'A store offers one operation besides reading: write the whole journal if, and only if, it is still at',
    'the version that was read.',
    '',
    '- `file`: the version is the sha256 of the file. The write happens under the lock file `<journal>.lock`',
    '  (a holder that died on this host is taken over), to a temp file that is fsynced and renamed over the',
    '  journal.',
    "- `git`: the version is the file's blob sha; GitHub refuses a write that names a stale sha (409, or 422), or one whose branch moved while it was carried out (409). A run's first write makes its branch (tree, commit, ref), which GitHub refuses when the ref exists. Each run has a branch of its own, so runs never refuse each other's writes (docs/DEPLOY.md, \"Many runs at once\").",
    '- `check-run`: GitHub has no compare-and-swap for check runs. A write re-reads the check run first and',
    '  reads it back after, and the step reads it once more when it ends: a writer whose events another writer',
    '  overwrote fails saying which were lost. That detects a lost update but cannot prevent one (racing',
    '  steps lost records and dispatches, and a `never` node ran twice: docs/RELIABILITY.md). One writer per run.',
    '',
    'On a conflict the writer reads again, folds, and decides again from the new state: it never appends the',
    'events it had decided on without looking. A write whose answer was lost (a timeout, a 5xx) is followed',
    'by a read, and counts as done when the journal holds exactly the events it tried to append. A step',
    'makes one read and two writes: the dispatch (with any recovery) before the work, the result after.',
    '',
    '## Events',
    '',
    'Every event has these fields:',
    '',
    table(baseRows),
    '',
    events.join('\n'),
    '## Shapes used in events',
    '',
    shapeDocs.join('\n'),
    '## The checkpoint',
    '',
    "`interlock status --json` (and the Action's `checkpoint` output) is the state folded from the journal:",
    '',
    '| key | type | meaning |',
    '| --- | --- | --- |',
    ...checkpointRows,
    '',
    'The same journal and graph always fold to byte-identical JSON.',
    '',
    '## Rules the fold enforces',
    '',
    'Each rule has a `rule N` block in [`test/core/rules.test.ts`](../test/core/rules.test.ts) that fails when',
    'the rule is broken.',
    '',
    '1. **Ready.** A node is ready when every node in its `depends_on` is completed or skipped, it is not',
    '   completed, skipped, in flight, held or escalated itself, and the run has not ended. Ready nodes are',
    '   listed in declaration order, so the same journal always gives the same list; `run` takes the first.',
    '2. **In flight is not ready.** From its `NodeDispatched` until its `NodeRecorded`, `NodeFailed` or',
    '   `NodeInterrupted`, a node is in flight and is never dispatched again. If nobody recovers a lost',
    '   attempt, the run stalls (`interlock stuck` reports it); it never repeats the node.',
    '3. **Recovery.** `interlock recover`, and the start of every `run` and every Action step, write',
    '   `NodeInterrupted` for each in-flight attempt whose executor is provably gone, with the usage observed',
    '   so far as a lower bound. When both the dispatch and the current graph say `replay: safe`, the node',
    '   is ready again, and the new attempt is told the last one was interrupted and may have partly run.',
    '   Otherwise (`never` is the default) the node is held. An interruption does not use up a retry.',
    '4. **Holds.** A held node leaves the hold only by a `NodeRecorded` from a person (`settle`), by',
    '   `RerunApproved` from as many distinct people as `approvals.required` (`approve-rerun`), or by',
    '   `RunFailed` (`fail-run`). Nothing else takes it out: not a dispatch, a failure, a skip or a record of',
    '   another attempt. A node awaiting approval (`approval: before`) leaves the wait by `NodeApproved` from',
    '   as many distinct people as `required`, by a `NodeRecorded` from a person (`settle`), or by `RunFailed`.',
    '   While any node awaits approval the checkpoint lists them under `awaiting_approval_nodes`; the key is',
    '   absent otherwise, so journals without a gate fold to the same bytes as before. Likewise `cycles` (the',
    '   cycle of each loop past its first, `NodeCycleStarted`) and `reruns` (times a person reran from each node,',
    '   `RerunFromApproved`) follow `attempts` only when some node has one.',
    '5. **Retries.** Counted per cycle of a loop and per rerun (each starts afresh). A failed attempt is retried at most twice. Attempt 2 repeats the approach (with',
    '   `retry[0]` overriding fields) and gets the failures in its context; attempt 3 runs only when',
    "   `retry[1]` exists, and that must differ from the node's own approach. When the last allowed attempt",
    '   fails the node is escalated with a report, and `rolled_back_to` names the most recent completed node.',
    '   That resets where the run stands, not the files: what failed attempts changed stays. An approved',
    '   rerun of an escalated node gives it exactly one more attempt, with its last approach.',
    '6. **A pure fold.** The checkpoint depends on the journal and the graph only: no clock, no environment.',
    '   The journal records the graph hash. When the graph file now hashes differently, every command that',
    '   writes refuses and shows both hashes; `run`, `approve-rerun`, `settle` and `fail-run` go on when given',
    '   `--allow-graph-change` (the Action: `allow-graph-change: true`), and `GraphChangeAllowed` records who.',
    '7. **Bad journals are never overwritten.** A journal that is not UTF-8 or JSON, has a malformed event,',
    '   or breaks a rule is refused: the command stops with an error naming the file and the first bad event,',
    "   and writes nothing. Restore it from a backup or the journal branch's history.",
    '',
    'The fold refuses a journal (rule 7) when:',
    '',
    '- `seq` is not 1, 2, 3, … in order, or the first event is not `RunStarted`, or `RunStarted` comes again;',
    '- an event follows `RunCompleted` or `RunFailed` (only `GraphChangeAllowed` may);',
    '- an event names a node that is not in the graph;',
    '- `NodeDispatched` is for a node that is not waiting, has the wrong attempt number, has no attempts left,',
    '  or comes before the dependencies ended;',
    '- `NodeRecorded`, `NodeFailed` or `NodeInterrupted` names an attempt that is not in flight (a',
    "  person's `NodeRecorded` names the held or escalated attempt);",
    '- `NodeEscalated` comes before the last allowed attempt failed (with `report.budget`: for a node that is',
    '  not waiting to be dispatched);',
    '- `NodeSkipped` is for a node that already ran (other than failing its pre-check) or comes before the',
    '  dependencies ended;',
    '- `RerunApproved` is for a node that is not held or escalated, or names another attempt;',
    '- `NodeAwaitingApproval` is for a node that already ran, already passed its gate, or whose dependencies',
    '  have not ended; `NodeApproved` is for a node that is not awaiting approval;',
    '- `RunCompleted` comes while a node is neither completed nor skipped;',
    '- `GraphChangeAllowed` does not start from the hash the run is under;',
    '- `NodeExpanded` or `NodeExpansionFailed` is for a node without `for_each`, one not pending, already',
    '  expanded or whose dependencies have not ended; `NodeExpanded` has more items than `max_items`, a key',
    '  that is not allowed, or one key twice; an event names an instance (`work[3]`) before its node was',
    '  expanded with that key;',
    '- `NodeJoined` comes while an instance has not ended, tolerates more than `tolerated_failures`, or names',
    '  other instances than the escalated (tolerated) and the completed ones.',
    '',
    "**for_each** (issue 28). An instance `<node>[<key>]` is a node in every respect from its node's",
    '`NodeExpanded` on: dispatched, recorded, failed, retried, held, escalated, approved and settled by its own',
    'name, with its own attempts and idempotency key, and listed under that name in the checkpoint, right after',
    "its node. Rule 1 for instances: an instance is not ready while its node's `max_parallel` instances are in",
    'flight; an expanded node is ready only to be joined. While instances run the checkpoint lists the node under',
    '`expanded_nodes`; tolerated instances are under `tolerated_nodes` (both keys only when non-empty).',
    '',
  ].join('\n');
  if (missing.length) throw new Error(`fields without a description:\n${missing.join('\n')}`);
  return page;
}
