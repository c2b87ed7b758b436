/**
 * Hostile graph files and corrupted journals that the core suites' tables (test/core/bad-graphs.test.ts,
 * test/cli/journals.test.ts) do not hold: prototype keys, reserved names, NUL bytes, escaped and hidden
 * `${{`, YAML tags and merge keys, nesting deep enough to exhaust a parser, forged headers, bad times.
 * Each row says exactly what must happen.
 */
import {
  COMPLETED,
  eventLine,
  GRAPH_TEXT,
  replaceLine,
  VALID,
  VALID_TEXT,
  withEvents,
} from '../core/journal-fixtures.js';

const H = 'interlock: 1\nname: demo\n';
const RUN_EXPR =
  'contains "${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "${{ github.event.issue.title }}" }) and use "$TITLE" in run';
const AGENT_EXPR =
  'contains "${{": expressions are never pasted into a shell script; the agent command reads the prompt on stdin, so put the expression in the prompt (or in env, used as "$NAME")';
const IDS = 'ids use letters, digits, "_" and "-", start with a letter or "_", at most 64 characters';
const NODE_FIELDS =
  'id, description, run, prompt, agent, engine, skill, env, timeout_minutes, depends_on, execute_conditions, validates, replay, retry, outputs, budget, effect, allow_protected_paths, soft_timeout_minutes, soft_turns, session, approval, approvals, network, for_each, key, max_parallel, max_items, tolerated_failures, repeat, graph';

export interface HostileGraph {
  name: string;
  text: string;
  /** The exact errors, in order; or a pattern for the first when a position depends on the parser's stack. */
  errors?: string[];
  firstError?: RegExp;
  /** The graph loads, and this holds of it (a value stays plain data). */
  loads?: { node: string; run: string };
}

export const HOSTILE_GRAPHS: HostileGraph[] = [
  {
    name: '__proto__ as a top-level key',
    text: `${H}__proto__: { polluted: true }\nnodes:\n  - id: a\n    run: make\n`,
    errors: [
      'graph.yml:3:1: graph: unknown field "__proto__"; allowed: $schema, interlock, name, description, defaults, budget, sessions, approvals, nodes',
    ],
  },
  {
    name: '__proto__ as a node field',
    text: `${H}nodes:\n  - id: a\n    run: make\n    __proto__: { replay: safe }\n`,
    errors: [`graph.yml:6:5: node "a": unknown field "__proto__"; allowed: ${NODE_FIELDS}`],
  },
  {
    name: '__proto__ in a JSON graph',
    text: '{"interlock":1,"name":"demo","__proto__":{"x":1},"nodes":[{"id":"a","run":"make"}]}',
    errors: [
      'graph.yml:1:30: graph: unknown field "__proto__"; allowed: $schema, interlock, name, description, defaults, budget, sessions, approvals, nodes',
    ],
  },
  {
    name: 'a sub-graph above the graph folder',
    text: `${H}nodes:\n  - id: a\n    graph: ../../secrets.yml\n`,
    errors: [
      'graph.yml:5:12: node "a" graph "../../secrets.yml" is not a graph file beside this one: give a relative path ending in .yml, .yaml or .json, without "..", e.g. review.yml',
    ],
  },
  {
    name: 'a sub-graph at an absolute path',
    text: `${H}nodes:\n  - id: a\n    graph: /etc/passwd.yml\n`,
    errors: [
      'graph.yml:5:12: node "a" graph "/etc/passwd.yml" is not a graph file beside this one: give a relative path ending in .yml, .yaml or .json, without "..", e.g. review.yml',
    ],
  },
  {
    name: 'constructor as a node field',
    text: `${H}nodes:\n  - id: a\n    run: make\n    constructor: x\n`,
    errors: [`graph.yml:6:5: node "a": unknown field "constructor"; allowed: ${NODE_FIELDS}`],
  },
  {
    name: 'a node called __proto__ (expressions could not read it)',
    text: `${H}nodes:\n  - id: __proto__\n    run: make\n`,
    errors: [
      'graph.yml:4:9: node "__proto__": "__proto__" is reserved (expressions cannot read it); choose another name',
    ],
  },
  {
    name: 'a node called constructor',
    text: `${H}nodes:\n  - id: constructor\n    run: make\n`,
    errors: [
      'graph.yml:4:9: node "constructor": "constructor" is reserved (expressions cannot read it); choose another name',
    ],
  },
  {
    name: 'an output called Constructor',
    text: `${H}nodes:\n  - id: a\n    run: make\n    outputs: [Constructor]\n`,
    errors: [
      'graph.yml:6:15: node "a": "Constructor" is reserved (expressions cannot read it); choose another name',
    ],
  },
  {
    name: 'a raw NUL byte in an id',
    text: `${H}nodes:\n  - id: a\0\n    run: make\n`,
    errors: [`graph.yml:4:9: node "a\\u0000" id: "a\\u0000" is not allowed: ${IDS}`],
  },
  {
    name: '${{ hidden as \\x24{{ in a quoted run',
    text: `${H}nodes:\n  - id: a\n    run: "echo \\x24{{ github.event.issue.title }}"\n`,
    errors: [`graph.yml:5:10: node "a" run ${RUN_EXPR}`],
  },
  {
    name: '${{ hidden as $\\u007B{ in a quoted run',
    text: `${H}nodes:\n  - id: a\n    run: "echo $\\u007B{ github.event.issue.title }}"\n`,
    errors: [`graph.yml:5:10: node "a" run ${RUN_EXPR}`],
  },
  {
    name: '${{ on a later line of a block scalar',
    text: `${H}nodes:\n  - id: a\n    run: |\n      echo ok\n      echo \${{ github.event.issue.title }}\n`,
    errors: [`graph.yml:5:10: node "a" run ${RUN_EXPR}`],
  },
  {
    name: '${{ in defaults.agent',
    text: `${H}defaults:\n  agent: claude -p "\${{ github.event.issue.title }}"\nnodes:\n  - id: a\n    prompt: hi\n`,
    errors: [`graph.yml:4:10: defaults.agent ${AGENT_EXPR}`],
  },
  {
    name: '${{ in a node agent',
    text: `${H}nodes:\n  - id: a\n    agent: claude -p "\${{ github.event.issue.title }}"\n    prompt: hi\n`,
    errors: [`graph.yml:5:12: node "a" agent ${AGENT_EXPR}`],
  },
  {
    name: '${{ in a retry agent',
    text: `${H}defaults:\n  agent: cat\nnodes:\n  - id: a\n    prompt: hi\n    retry:\n      - agent: sh -c "\${{ github.event.issue.title }}"\n`,
    errors: [`graph.yml:9:16: node "a" retry[0].agent ${AGENT_EXPR}`],
  },
  {
    name: 'secrets read in env',
    text: `${H}nodes:\n  - id: a\n    run: make\n    env:\n      T: \${{ secrets.TOKEN }}\n`,
    errors: [
      `graph.yml:7:10: node "a" env.T: invalid expression "secrets.TOKEN": Unrecognized named-value: 'secrets'`,
    ],
  },
  {
    name: 'the env context read in env',
    text: `${H}nodes:\n  - id: a\n    run: make\n    env:\n      T: \${{ env.HOME }}\n`,
    errors: [
      `graph.yml:7:10: node "a" env.T: invalid expression "env.HOME": Unrecognized named-value: 'env'`,
    ],
  },
  {
    name: 'a !!binary run',
    text: `${H}nodes:\n  - id: a\n    run: !!binary aGVsbG8=\n`,
    errors: [
      'graph.yml:5:19: node "a" run: expected string, got {"type":"Buffer","data":[104,101,108,108,111]}',
    ],
  },
  {
    name: 'a !!js/function tag is plain text',
    text: `${H}nodes:\n  - id: a\n    run: !!js/function 'function(){}'\n`,
    loads: { node: 'a', run: 'function(){}' },
  },
  {
    name: 'an unknown !shell tag is plain text',
    text: `${H}nodes:\n  - id: a\n    run: !shell make\n`,
    loads: { node: 'a', run: 'make' },
  },
  {
    name: 'a byte order mark',
    text: `\uFEFF${H}nodes:\n  - id: a\n    run: make\n`,
    loads: { node: 'a', run: 'make' },
  },
  {
    name: 'a YAML merge key',
    text: `${H}x-base: &base\n  run: make\nnodes:\n  - id: a\n    <<: *base\n`,
    errors: [
      'graph.yml:7:5: node "a": unknown field "<<" (did you mean "id"?)',
      'graph.yml:3:1: graph: unknown field "x-base"; allowed: $schema, interlock, name, description, defaults, budget, sessions, approvals, nodes',
    ],
  },
  {
    name: 'two YAML documents',
    text: `${H}nodes:\n  - id: a\n    run: make\n---\n${H}nodes:\n  - id: b\n    run: make\n`,
    errors: [
      'graph.yml:6:1: not valid YAML: Source contains multiple documents; please use YAML.parseAllDocuments()',
    ],
  },
  {
    name: 'timeout .inf',
    text: `${H}nodes:\n  - id: a\n    run: make\n    timeout_minutes: .inf\n`,
    errors: ['graph.yml:6:22: node "a" timeout_minutes: expected number, got null'],
  },
  {
    name: 'timeout .nan',
    text: `${H}nodes:\n  - id: a\n    run: make\n    timeout_minutes: .nan\n`,
    errors: ['graph.yml:6:22: node "a" timeout_minutes: expected number, got null'],
  },
  {
    name: 'a negative timeout',
    text: `${H}nodes:\n  - id: a\n    run: make\n    timeout_minutes: -5\n`,
    errors: ['graph.yml:6:22: node "a" timeout_minutes: -5 is out of range: it must be more than 0'],
  },
  {
    name: 'lists nested 20,000 deep',
    text: `${H}nodes:\n  - id: a\n    run: make\n    env: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`,
    firstError:
      /^graph\.yml:6:\d+: not valid YAML: nested too deeply \(Maximum call stack size exceeded\); flatten the structure$/,
  },
  {
    name: 'maps nested 5,000 deep',
    text: `${H}x: ${'{a: '.repeat(5000)}1${'}'.repeat(5000)}\nnodes:\n  - id: a\n    run: make\n`,
    firstError: /^graph\.yml:3:\d+: not valid YAML: nested too deeply/,
  },
  {
    name: 'a condition nested 3,000 parentheses deep',
    text: `${H}nodes:\n  - id: a\n    run: make\n    execute_conditions: ["${'('.repeat(3000)}true${')'.repeat(3000)}"]\n`,
    firstError: /^graph\.yml:6:26: node "a" execute_conditions\[0\]: invalid expression "\(+/,
  },
  {
    name: 'a Cyrillic letter in an id',
    text: `${H}nodes:\n  - id: d\u0435ploy\n    run: make\n`,
    errors: [`graph.yml:4:9: node "d\u0435ploy" id: "d\u0435ploy" is not allowed: ${IDS}`],
  },
  {
    name: 'a path as an id',
    text: `${H}nodes:\n  - id: ../../etc\n    run: make\n`,
    errors: [`graph.yml:4:9: node "../../etc" id: "../../etc" is not allowed: ${IDS}`],
  },
  {
    name: 'a skill name that leaves the skills folder',
    text: `${H}nodes:\n  - id: a\n    skill: ../../etc/passwd\n`,
    errors: [
      'graph.yml:5:12: node "a" skill: "../../etc/passwd" is not allowed: a skill name uses letters, digits, "_" and "-"',
    ],
  },
  {
    name: 'a graph name with $(…)',
    text: 'interlock: 1\nname: "$(touch x)"\nnodes:\n  - id: a\n    run: make\n',
    errors: [
      'graph.yml:2:7: name: "$(touch x)" is not allowed: a graph name uses lowercase letters, digits, ".", "_" and "-", and starts with a letter or digit',
    ],
  },
  {
    name: 'a graph name that leaves the runs folder',
    text: 'interlock: 1\nname: ../../x\nnodes:\n  - id: a\n    run: make\n',
    errors: [
      'graph.yml:2:7: name: "../../x" is not allowed: a graph name uses lowercase letters, digits, ".", "_" and "-", and starts with a letter or digit',
    ],
  },
  {
    name: 'an env name with a newline',
    text: `${H}nodes:\n  - id: a\n    run: make\n    env:\n      "A\\nB": x\n`,
    errors: [
      'graph.yml:7:7: node "a" env: "A\\nB" is not a valid variable name: use letters, digits and "_", not starting with a digit',
    ],
  },
  {
    name: 'an output name with =',
    text: `${H}nodes:\n  - id: a\n    run: make\n    outputs: ["a=b"]\n`,
    errors: [`graph.yml:6:15: node "a" outputs[0]: "a=b" is not allowed: ${IDS}`],
  },
  {
    name: 'an expression as a dependency',
    text: `${H}nodes:\n  - id: a\n    run: make\n    depends_on: ["\${{ inputs.x }}"]\n`,
    errors: ['graph.yml:6:18: node "a" depends on "${{ inputs.x }}", which is not a node'],
  },
  {
    name: 'a NUL byte escaped in a run is data (a failed attempt if it runs)',
    text: `${H}nodes:\n  - id: a\n    run: "make\\0"\n`,
    loads: { node: 'a', run: 'make\0' },
  },
  {
    name: 'for_each with max_items over 1,000',
    text: `${H}nodes:\n  - id: a\n    run: make\n    for_each: "\${{ fromJSON('[1]') }}"\n    max_items: 10000\n`,
    errors: ['graph.yml:7:16: node "a" max_items: 10000 is out of range: it must be at most 1000'],
  },
  {
    name: 'item read by a node without for_each',
    text: `${H}nodes:\n  - id: a\n    run: make\n    env:\n      X: "\${{ item.secret }}"\n`,
    errors: [
      'graph.yml:7:10: node "a" reads item or index in "item.secret", which only a for_each node\'s instances have: add for_each, or read nodes.<id>.outputs',
    ],
  },
  {
    name: 'for_each that is a literal list, not an expression',
    text: `${H}nodes:\n  - id: a\n    run: make\n    for_each: "[1, 2, 3]"\n`,
    errors: [
      'graph.yml:6:15: node "a" for_each: it must be one ${{ }} expression giving a list, e.g. ${{ fromJSON(nodes.plan.outputs.tasks) }}',
    ],
  },
  {
    name: 'a key expression with ${{ }} spread over two spans',
    text: `${H}nodes:\n  - id: a\n    run: make\n    for_each: "\${{ fromJSON('[1]') }}"\n    key: "\${{ item }}/\${{ index }}"\n`,
    errors: [
      'graph.yml:7:10: node "a" key: it must be one ${{ }} expression giving the key of an item, e.g. ${{ item.id }}',
    ],
  },
];

/** A corrupted journal beside `graph.yml` (journal-fixtures.ts): its bytes and the exact refusal. */
export interface HostileJournal {
  name: string;
  bytes: string | Buffer;
  /** The CLI's error, given the journal's path; `run`, `status` and `approve-rerun` all refuse with it. */
  message: (file: string) => string;
  /** Refused only by `run` (a changed graph, another run id): the other commands open the file as it is. */
  runOnly?: boolean;
}

const LEFT = "it was left untouched: restore it from a backup or the journal branch's history";
const UNTOUCHED = 'the journal was left untouched';
const AWAY = { kind: 'local', host: 'elsewhere', pid: 1 };
const HASH = /sha256:[0-9a-f]{64}/;
const graphHash = HASH.exec(VALID_TEXT)![0];

export const HOSTILE_JOURNALS: HostileJournal[] = [
  {
    name: 'a header whose graph hash is not the one its events accepted',
    bytes: VALID_TEXT.replace(graphHash, `sha256:${'0'.repeat(64)}`),
    message: (f) =>
      `${f}: the header names graph sha256:${'0'.repeat(64)} but its events accepted ${graphHash}; ${UNTOUCHED}`,
  },
  {
    name: 'RunStarted naming another graph hash (the graph changed since)',
    bytes: VALID_TEXT.replaceAll(graphHash, `sha256:${'1'.repeat(64)}`),
    // The refusal prints the command again with --allow-graph-change (issue 45); the table's one `run` command.
    message: () =>
      `run refused: the graph changed since the run started (sha256:${'1'.repeat(10)}… → ${graphHash.slice(0, 17)}…), and nothing was recorded; to go on under the new graph (you are recorded as allowing it): interlock run graph.yml --journal run.json --run-id demo --quiet --allow-graph-change`,
    runOnly: true,
  },
  {
    name: 'a second RunStarted',
    bytes: withEvents(VALID, {
      type: 'RunStarted',
      graph: VALID.graph,
      intent: 'cli',
      subject: 'local',
      runner: AWAY,
    }),
    message: (f) => `${f}: event 5 (RunStarted): RunStarted may only be the first event; ${UNTOUCHED}`,
  },
  {
    name: 'a byte order mark',
    bytes: `\uFEFF${VALID_TEXT}`,
    message: (f) => `${f}: the journal is not valid JSON at line 1: unexpected character "\uFEFF"; ${LEFT}`,
  },
  {
    name: 'a raw NUL byte in a string',
    bytes: VALID_TEXT.replace('"intent":"cli"', '"intent":"c\u0000li"'),
    message: (f) =>
      `${f}: the journal is not valid JSON at line 3 (event seq 1): Bad control character in string literal; ${LEFT}`,
  },
  {
    name: '__proto__ in an event',
    bytes: VALID_TEXT.replace(
      '"node":"a","attempt":1,"evidence"',
      '"node":"a","attempt":1,"__proto__":{"x":1},"evidence"',
    ),
    message: (f) =>
      `${f}: event #3 (seq 3, type "NodeRecorded") is malformed: ✖ Unrecognized key: "__proto__"`,
  },
  {
    name: '__proto__ in the header',
    bytes: VALID_TEXT.replace('"run_id":"demo"', '"run_id":"demo","__proto__":{"events":[]}'),
    message: (f) => `${f}: not an interlock journal: ✖ Unrecognized key: "__proto__"`,
  },
  {
    name: 'a sequence number as a string',
    bytes: replaceLine(VALID_TEXT, 3, eventLine(VALID_TEXT, 3).replace('"seq":3', '"seq":"3"')),
    message: (f) =>
      `${f}: event #3 (seq "3", type "NodeRecorded") is malformed: ✖ Invalid input: expected number, received string → at seq`,
  },
  {
    name: 'a sequence number of 1e308',
    bytes: replaceLine(VALID_TEXT, 4, eventLine(VALID_TEXT, 4).replace('"seq":4', '"seq":1e308')),
    message: (f) =>
      `${f}: event #4 (seq 1e+308, type "NodeDispatched") is malformed: ✖ Too big: expected int to be <=9007199254740991 → at seq`,
  },
  {
    name: 'attempt 0',
    bytes: VALID_TEXT.replace('"node":"a","attempt":1,"replay"', '"node":"a","attempt":0,"replay"'),
    message: (f) =>
      `${f}: event #2 (seq 2, type "NodeDispatched") is malformed: ✖ Too small: expected number to be >0 → at attempt`,
  },
  {
    name: 'an attempt number skipped',
    bytes: withEvents(
      VALID,
      { type: 'NodeRecorded', node: 'b', attempt: 1, evidence: [], outputs: {}, usage: { wall_ms: 1 } },
      { type: 'NodeDispatched', node: 'c', attempt: 3, replay: 'never', approach: 'default', runner: AWAY },
    ),
    message: (f) => `${f}: event 6 (NodeDispatched): node "c" attempt 3 where 1 was expected; ${UNTOUCHED}`,
  },
  {
    name: 'a time that is not a time',
    bytes: VALID_TEXT.replace(/"at":"[^"]+"/, '"at":"yesterday"'),
    message: (f) => `${f}: event #1 (seq 1, type "RunStarted") is malformed: ✖ not an ISO 8601 time → at at`,
  },
  {
    name: 'a journal of another run',
    bytes: VALID_TEXT.replace('"run_id":"demo"', '"run_id":"other"'),
    message: (f) => `${f} holds run "other", not "demo"`,
    runOnly: true,
  },
  {
    name: 'trailing garbage',
    bytes: `${VALID_TEXT}garbage`,
    message: (f) =>
      `${f}: the journal is not valid JSON at line 9: Unexpected non-whitespace character after JSON; ${LEFT}`,
  },
  {
    name: 'two journals concatenated',
    bytes: VALID_TEXT + VALID_TEXT,
    message: (f) =>
      `${f}: the journal is not valid JSON at line 9: Unexpected non-whitespace character after JSON; ${LEFT}`,
  },
  {
    name: 'a forged approval of a node that is not held',
    bytes: withEvents(VALID, {
      type: 'RerunApproved',
      node: 'c',
      attempt: 1,
      approved_by: 'mallory',
      source: 'x',
    }),
    message: (f) => `${f}: event 5 (RerunApproved): node "c" is pending, not held or escalated; ${UNTOUCHED}`,
  },
  {
    name: 'a forged gate approval of a node that is not awaiting approval',
    bytes: withEvents(VALID, {
      type: 'NodeApproved',
      node: 'c',
      approved_by: 'mallory',
      source: 'x',
      graph_hash: graphHash,
      required: 1,
    }),
    message: (f) => `${f}: event 5 (NodeApproved): node "c" is pending, not awaiting approval; ${UNTOUCHED}`,
  },
  {
    name: 'a forged gate for a node that already ran',
    bytes: withEvents(VALID, { type: 'NodeAwaitingApproval', node: 'a', graph_hash: graphHash }),
    message: (f) =>
      `${f}: event 5 (NodeAwaitingApproval): node "a" is completed after 1 attempts; it cannot await approval; ${UNTOUCHED}`,
  },
  {
    name: 'an interruption of an attempt that completed',
    bytes: withEvents(VALID, {
      type: 'NodeInterrupted',
      node: 'a',
      attempt: 1,
      observed_usage: { wall_ms: 1 },
    }),
    message: (f) =>
      `${f}: event 5 (NodeInterrupted): node "a" attempt 1 is not in flight (it is completed); ${UNTOUCHED}`,
  },
  {
    name: 'a node recorded twice',
    bytes: withEvents(VALID, {
      type: 'NodeRecorded',
      node: 'a',
      attempt: 1,
      evidence: [],
      outputs: {},
      usage: { wall_ms: 1 },
    }),
    message: (f) =>
      `${f}: event 5 (NodeRecorded): node "a" attempt 1 is not in flight (it is completed); ${UNTOUCHED}`,
  },
  {
    name: 'a node skipped after it ran',
    bytes: withEvents(VALID, { type: 'NodeSkipped', node: 'a', reason: 'x' }),
    message: (f) => `${f}: event 5 (NodeSkipped): node "a" already ran; it cannot be skipped; ${UNTOUCHED}`,
  },
  {
    name: 'an unknown header field',
    bytes: VALID_TEXT.replace('"run_id"', '"forged":1,"run_id"'),
    message: (f) => `${f}: not an interlock journal: ✖ Unrecognized key: "forged"`,
  },
  {
    name: 'a completed run reopened by a forged failure',
    bytes: withEvents(COMPLETED, { type: 'RunFailed', reason: 'forged', by: 'mallory' }),
    message: (f) =>
      `${f}: event 9 (RunFailed): the run already ended with RunCompleted (every node completed or skipped); ${UNTOUCHED}`,
  },
];

export { GRAPH_TEXT };

/**
 * A planner's list that tries to break a `for_each` run (issue 28): the list as the planner prints it, and
 * exactly what the run must do with it: refuse it with the reason (`NodeExpansionFailed`, the node escalated,
 * nothing dispatched), or expand it with every item kept as plain data.
 */
export interface HostileList {
  name: string;
  /** The list's JSON, printed by the planner into its output `tasks`. */
  list: string;
  /** The `key` expression of the for_each node (default: the index). */
  key?: string;
  /** The reason the node fails with, exactly. */
  refused?: string;
  /** The run expands it: the instance keys, in order, and the value the first instance's `item` must hold. */
  expands?: { keys: string[]; first: unknown };
}

const KEY_RULE = '1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, without ".."';
const LIST = '${{ fromJSON(nodes.plan.outputs.tasks) }}';
const badKey = (index: number, key: string) =>
  `item ${index}: key ${JSON.stringify(key)} is not ${KEY_RULE}; choose a key expression that gives one`;

export const HOSTILE_LISTS: HostileList[] = [
  { name: 'a key with "/"', list: '[{"id":"a/b"}]', key: '${{ item.id }}', refused: badKey(0, 'a/b') },
  { name: 'a key of ".."', list: '[{"id":".."}]', key: '${{ item.id }}', refused: badKey(0, '..') },
  { name: 'a key holding ".."', list: '[{"id":"x..y"}]', key: '${{ item.id }}', refused: badKey(0, 'x..y') },
  {
    name: 'a key with "]"',
    list: '[{"id":"ok"},{"id":"a]b"}]',
    key: '${{ item.id }}',
    refused: badKey(1, 'a]b'),
  },
  {
    name: 'a key that names another instance',
    list: '[{"id":"x]["}]',
    key: '${{ item.id }}',
    refused: badKey(0, 'x]['),
  },
  {
    name: 'a key with a line break',
    list: '[{"id":"a\\nb"}]',
    key: '${{ item.id }}',
    refused: badKey(0, 'a\nb'),
  },
  {
    name: 'a key with a NUL byte',
    list: '[{"id":"a\\u0000b"}]',
    key: '${{ item.id }}',
    refused: badKey(0, 'a\u0000b'),
  },
  {
    name: '__proto__ as a key',
    list: '[{"id":"__proto__"}]',
    key: '${{ item.id }}',
    refused: badKey(0, '__proto__'),
  },
  { name: 'an empty key', list: '[{"id":""}]', key: '${{ item.id }}', refused: badKey(0, '') },
  {
    name: 'two items with one key',
    list: '[{"id":"x"},{"id":"y"},{"id":"x"}]',
    key: '${{ item.id }}',
    refused: 'items 0 and 2 have the same key "x": each instance needs its own',
  },
  {
    name: '10,000 items',
    list: JSON.stringify(Array.from({ length: 10_000 }, (_, i) => i)),
    refused: `for_each "${LIST}" gave 10000 items, more than max_items 256: split the work, or raise max_items (at most 1000)`,
  },
  {
    name: 'an item of more than 16 KiB',
    list: JSON.stringify(['small', 'x'.repeat(20_000)]),
    refused: 'item 1 holds 20002 bytes of JSON, more than 16384: pass a smaller item',
  },
  {
    name: 'an object, not a list',
    list: '{"0":"a","length":1}',
    refused: `for_each "${LIST}" gave object, not a list: give it a JSON array, e.g. \${{ fromJSON(nodes.plan.outputs.tasks) }}`,
  },
  {
    name: 'an empty list',
    list: '[]',
    refused: `for_each "${LIST}" gave an empty list: there is nothing to run`,
  },
  {
    name: 'nested lists',
    list: '[[1,[2,[3,[4]]]],[],[[[]]]]',
    expands: { keys: ['0', '1', '2'], first: [1, [2, [3, [4]]]] },
  },
  {
    name: 'an item holding ${{ }} text, which stays text',
    list: JSON.stringify([
      { id: 'a', title: '${{ github.token }}' },
      { id: 'b', title: '${{ toJSON(inputs) }}' },
    ]),
    key: '${{ item.id }}',
    expands: { keys: ['a', 'b'], first: { id: 'a', title: '${{ github.token }}' } },
  },
  {
    name: 'a key expression that gives ${{ }} text',
    list: JSON.stringify([{ id: '${{ github.token }}' }]),
    key: '${{ item.id }}',
    refused: badKey(0, '${{ github.token }}'),
  },
];
