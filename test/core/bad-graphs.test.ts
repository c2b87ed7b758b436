// Malformed graph files, each with the exact error a person reads: `file:line:col: message`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphError } from '../../src/graph/errors.js';
import { parseGraph } from '../../src/graph/load/load.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';

/** A case: its name, the file's text, then every error expected, in order. */
type Case = [name: string, text: string, ...errors: string[]];

const H = 'interlock: 1\nname: demo\n';

/** The errors a load reports, one `file:line:col: message` each; fails when the graph loads. */
function loadErrors(load: () => unknown): string[] {
  try {
    load();
  } catch (e) {
    expect(e).toBeInstanceOf(GraphError);
    return (e as Error).message.split('\n');
  }
  throw new Error('the graph loaded without errors');
}

const YAML_CASES: Case[] = [
  [
    'an effect node that also runs a command',
    `${H}nodes:
  - id: a
    run: make
    effect:
      comment: { body: done }
`,
    'graph.yml:5:5: node "a" has both "effect" and "run": an effect is performed by interlock itself, so it runs no command and has no other approach (a failed effect is tried once more as it is)',
  ],
  [
    'an effect node with a retry approach',
    `${H}nodes:
  - id: a
    effect:
      labels: { add: [x] }
    retry:
      - run: make
`,
    'graph.yml:7:5: node "a" has both "effect" and "retry": an effect is performed by interlock itself, so it runs no command and has no other approach (a failed effect is tried once more as it is)',
  ],
  [
    'allow_protected_paths on a node that is not an effect',
    `${H}nodes:
  - id: a
    run: make
    allow_protected_paths: [.github/workflows/ci.yml]
`,
    'graph.yml:6:5: node "a" has allow_protected_paths but no effect: only an effect changes files in GitHub',
  ],
  [
    'an effect of an unknown kind',
    `${H}nodes:
  - id: a
    effect:
      tweet: { body: x }
`,
    'graph.yml:6:7: node "a" effect: an effect is exactly one of push, pull_request, comment, labels or release, each with its fields (docs/effects.md)',
  ],
  [
    'an effect expression that does not parse',
    `${H}nodes:
  - id: a
    effect:
      comment: { body: "\${{ github.event.issue.number ++ }}" }
`,
    `graph.yml:6:24: node "a" effect.comment.body: invalid expression "github.event.issue.number ++": Unexpected symbol: '++'. Located at position 27 within expression: github.event.issue.number ++`,
  ],
  [
    'unknown top-level field',
    `${H}descripton: x
nodes:
  - id: a
    run: make
`,
    `graph.yml:3:1: graph: unknown field "descripton" (did you mean "description"?)`,
  ],
  [
    'misspelt nodes',
    `${H}node:
  - id: a
    run: make
`,
    `graph.yml:1:1: nodes: required field is missing (expected array)`,
    `graph.yml:3:1: graph: unknown field "node" (did you mean "nodes"?)`,
  ],
  [
    'unknown node field',
    `${H}nodes:
  - id: a
    runn: make
`,
    `graph.yml:5:5: node "a": unknown field "runn" (did you mean "run"?)`,
  ],
  [
    'dashed node field',
    `${H}nodes:
  - id: a
    run: make
    depends-on: []
`,
    `graph.yml:6:5: node "a": unknown field "depends-on" (did you mean "depends_on"?)`,
  ],
  [
    'unknown node field, no close match',
    `${H}nodes:
  - id: a
    run: make
    priority: 3
`,
    `graph.yml:6:5: node "a": unknown field "priority"; allowed: id, description, run, prompt, agent, engine, skill, env, timeout_minutes, depends_on, execute_conditions, validates, replay, retry, outputs, budget, effect, allow_protected_paths, soft_timeout_minutes, soft_turns, session, approval, approvals, network, for_each, key, max_parallel, max_items, tolerated_failures, repeat, graph`,
  ],
  [
    'a session on a node without an engine',
    `${H}nodes:
  - id: a
    prompt: plan it
    agent: ./agent.sh
    session: work
`,
    `graph.yml:7:14: node "a" has a session but no engine: a session is an agent conversation; give the node a prompt and an engine (claude-code, codex, copilot or gemini), or remove session`,
  ],
  [
    'unknown defaults field',
    `${H}defaults:
  timeout: 5
nodes:
  - id: a
    run: make
`,
    `graph.yml:4:3: defaults: unknown field "timeout"; allowed: replay, timeout_minutes, agent, engine, network`,
  ],
  [
    'unknown retry field',
    `${H}nodes:
  - id: a
    run: make
    retry:
      - command: make again
`,
    `graph.yml:7:9: node "a" retry[0]: unknown field "command"; allowed: description, run, prompt, agent, engine, skill, env, timeout_minutes`,
  ],
  [
    'unknown check field',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - file: out.txt
        contain: done
`,
    `graph.yml:8:9: node "a" validates[0]: unknown field "contain" (did you mean "contains"?)`,
  ],
  [
    'a misspelt field of approvals or budget, on the graph or a node, gets a did-you-mean',
    `${H}approvals:
  requried: 2
nodes:
  - id: a
    run: make
    approvals: { aprovers: [alice] }
    budget: { cost_usdd: 1, turns: 3 }
`,
    `graph.yml:4:3: approvals: unknown field "requried" (did you mean "required"?)`,
    `graph.yml:9:15: node "a" budget: unknown field "cost_usdd" (did you mean "cost_usd"?)`,
    `graph.yml:8:18: node "a" approvals: unknown field "aprovers" (did you mean "approvers"?)`,
  ],
  [
    "a node's approach and evidence rules are checked while another node breaks the schema",
    `${H}nodes:
  - id: a
    run: make
    prompt: hi
    validates:
      - file: x
        contains: "(["
  - id: b
    runn: make
`,
    `graph.yml:11:5: node "b": unknown field "runn" (did you mean "run"?)`,
    `graph.yml:6:5: node "a" has both "run" and "prompt": keep exactly one`,
    `graph.yml:6:13: node "a" has a prompt but no agent command: set defaults.agent (e.g. "claude -p") or the node's agent`,
    `graph.yml:9:19: node "a" validates[0]: Invalid regular expression: /([/: Unterminated character class; fix the regular expression`,
  ],
  [
    'a misspelt check kind gets a did-you-mean, as a misspelt field does',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - comand: npm test
`,
    `graph.yml:7:9: node "a" validates[0]: a check must name exactly one of file, command, output, git, pull_request, check, issue, branch, tag, release (got "comand": did you mean "command"?); e.g. "- file: out.txt"`,
  ],
  [
    'schema errors and the graph rules in one pass (validate lists every error it can find)',
    `${H}nodes:
  - id: build
    promt: hi
    run: echo \${{ github.event.issue.title }}
    validates:
      - comand: npm test
  - id: deploy
    depends_on: [biuld]
    run: ./deploy.sh
    retry:
      - run: echo \${{ inputs.x }}
`,
    `graph.yml:8:9: node "build" validates[0]: a check must name exactly one of file, command, output, git, pull_request, check, issue, branch, tag, release (got "comand": did you mean "command"?); e.g. "- file: out.txt"`,
    `graph.yml:5:5: node "build": unknown field "promt" (did you mean "prompt"?)`,
    `graph.yml:10:18: node "deploy" depends on "biuld", which is not a node (did you mean "build"?)`,
    `graph.yml:6:10: node "build" run contains "\${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "\${{ github.event.issue.title }}" }) and use "$TITLE" in run`,
    `graph.yml:13:14: node "deploy" retry[0].run contains "\${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "\${{ github.event.issue.title }}" }) and use "$TITLE" in run`,
  ],
  [
    'unknown git option',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - git: { branch: main, commits: 2 }
`,
    `graph.yml:7:30: node "a" validates[0].git: unknown field "commits"; allowed: branch, min_commits, message`,
  ],
  [
    'unknown dependency',
    `${H}nodes:
  - id: build
    run: make
  - id: deploy
    run: ./deploy.sh
    depends_on: [biuld]
`,
    `graph.yml:8:18: node "deploy" depends on "biuld", which is not a node (did you mean "build"?)`,
  ],
  [
    'unknown dependency, no close match',
    `${H}nodes:
  - id: build
    run: make
    depends_on: [release]
`,
    `graph.yml:6:18: node "build" depends on "release", which is not a node`,
  ],
  [
    'self dependency',
    `${H}nodes:
  - id: a
    run: make
    depends_on: [a]
`,
    `graph.yml:6:18: node "a" depends on itself; remove "a" from its depends_on`,
  ],
  [
    'dependency listed twice',
    `${H}nodes:
  - id: a
    run: make
  - id: b
    run: make
    depends_on: [a, a]
`,
    `graph.yml:8:21: node "b" lists "a" twice in depends_on; list it once`,
  ],
  [
    'duplicate id',
    `${H}nodes:
  - id: a
    run: make
  - id: a
    run: make test
`,
    `graph.yml:6:9: node id "a" is used twice (first at line 4); give each node its own id`,
  ],
  [
    'cycle',
    `${H}nodes:
  - id: a
    run: make
    depends_on: [c]
  - id: b
    run: make
    depends_on: [a]
  - id: c
    run: make
    depends_on: [b]
`,
    `graph.yml:6:17: depends_on cycle: a -> c -> b -> a; remove one of these depends_on entries`,
  ],
  [
    'cycle below a root',
    `${H}nodes:
  - id: root
    run: make
  - id: x
    run: make
    depends_on: [root, y]
  - id: y
    run: make
    depends_on: [x]
`,
    `graph.yml:8:17: depends_on cycle: x -> y -> x; remove one of these depends_on entries`,
  ],
  [
    'expression in run',
    `${H}nodes:
  - id: a
    run: echo "\${{ github.event.issue.title }}"
`,
    `graph.yml:5:10: node "a" run contains "\${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "\${{ github.event.issue.title }}" }) and use "$TITLE" in run`,
  ],
  [
    'expression in a retry run',
    `${H}nodes:
  - id: a
    run: make
    retry:
      - run: make \${{ inputs.target }}
`,
    `graph.yml:7:14: node "a" retry[0].run contains "\${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "\${{ github.event.issue.title }}" }) and use "$TITLE" in run`,
  ],
  [
    'retry[1] identical',
    `${H}nodes:
  - id: a
    run: make
    retry:
      - env: { V: "1" }
      - description: the same
        run: make
`,
    `graph.yml:8:9: node "a" retry[1] is the same approach as the node's own; attempt 3 must differ: give it another run, prompt or skill`,
  ],
  [
    'retry[1] empty',
    `${H}nodes:
  - id: a
    run: make
    retry:
      - {}
      - {}
`,
    `graph.yml:8:9: node "a" retry[1] is the same approach as the node's own; attempt 3 must differ: give it another run, prompt or skill`,
  ],
  [
    'bad condition syntax',
    `${H}nodes:
  - id: a
    run: make
    execute_conditions:
      - "inputs.x =="
`,
    `graph.yml:7:9: node "a" execute_conditions[0]: invalid expression "inputs.x ==": Unexpected end of expression: '=='`,
  ],
  [
    'condition reads an unknown context',
    `${H}nodes:
  - id: a
    run: make
    execute_conditions:
      - "secrets.token != ''"
`,
    `graph.yml:7:9: node "a" execute_conditions[0]: invalid expression "secrets.token != ''": Unrecognized named-value: 'secrets'`,
  ],
  [
    'two expressions in one condition',
    `${H}nodes:
  - id: a
    run: make
    execute_conditions:
      - "\${{ true }} \${{ false }}"
`,
    `graph.yml:7:9: node "a" execute_conditions[0]: a condition is one expression: write it as one "\${{ }}" (combine parts with && or ||)`,
  ],
  [
    'bad env expression',
    `${H}nodes:
  - id: a
    run: make
    env:
      TITLE: "\${{ github.event.issue.title == }}"
`,
    `graph.yml:7:14: node "a" env.TITLE: invalid expression "github.event.issue.title ==": Unexpected end of expression: '=='`,
  ],
  [
    'unclosed env expression',
    `${H}nodes:
  - id: a
    run: make
    env:
      TITLE: "\${{ github.event.issue.title"
`,
    `graph.yml:7:14: node "a" env.TITLE: "\${{" is never closed by "}}"`,
  ],
  [
    'bad prompt expression',
    `${H}defaults:
  agent: claude -p
nodes:
  - id: a
    prompt: "Fix \${{ issue.title }}"
`,
    `graph.yml:7:13: node "a" prompt: invalid expression "issue.title": Unrecognized named-value: 'issue'`,
  ],
  [
    'both run and prompt',
    `${H}nodes:
  - id: a
    run: make
    prompt: fix it
    agent: claude -p
`,
    `graph.yml:6:5: node "a" has both "run" and "prompt": keep exactly one`,
  ],
  [
    'neither run nor prompt',
    `${H}nodes:
  - id: a
    description: does nothing
`,
    `graph.yml:4:5: node "a" has neither "run" nor "prompt": give it one (or a skill that has one)`,
  ],
  [
    'prompt without agent',
    `${H}nodes:
  - id: a
    prompt: fix it
`,
    `graph.yml:5:13: node "a" has a prompt but no agent command: set defaults.agent (e.g. "claude -p") or the node's agent`,
  ],
  [
    'retry prompt without agent',
    `${H}nodes:
  - id: a
    run: make
    retry:
      - prompt: fix it
`,
    `graph.yml:7:9: node "a" retry[0] has a prompt but no agent command: set defaults.agent (e.g. "claude -p") or the node's agent`,
  ],
  [
    'invalid replay',
    `${H}nodes:
  - id: a
    run: make
    replay: sometimes
`,
    `graph.yml:6:13: node "a" replay: "sometimes" is not allowed; use one of "safe", "never"`,
  ],
  [
    'invalid default replay',
    `${H}defaults:
  replay: always
nodes:
  - id: a
    run: make
`,
    `graph.yml:4:11: defaults.replay: "always" is not allowed; use one of "safe", "never"`,
  ],
  [
    'bad id characters',
    `${H}nodes:
  - id: "deploy prod"
    run: make
`,
    `graph.yml:4:9: node "deploy prod" id: "deploy prod" is not allowed: ids use letters, digits, "_" and "-", start with a letter or "_", at most 64 characters`,
  ],
  [
    'id starting with a digit',
    `${H}nodes:
  - id: 1st
    run: make
`,
    `graph.yml:4:9: node "1st" id: "1st" is not allowed: ids use letters, digits, "_" and "-", start with a letter or "_", at most 64 characters`,
  ],
  [
    'bad graph name',
    `interlock: 1
name: Fix Bug
nodes:
  - id: a
    run: make
`,
    `graph.yml:2:7: name: "Fix Bug" is not allowed: a graph name uses lowercase letters, digits, ".", "_" and "-", and starts with a letter or digit`,
  ],
  [
    'missing interlock',
    `name: demo
nodes:
  - id: a
    run: make
`,
    `graph.yml:1:1: interlock: required field is missing; add "interlock: 1"`,
  ],
  [
    'wrong version',
    `interlock: 2
name: demo
nodes:
  - id: a
    run: make
`,
    `graph.yml:1:12: interlock: 2 is not allowed; use 1`,
  ],
  [
    'missing name',
    `interlock: 1
nodes:
  - id: a
    run: make
`,
    `graph.yml:1:1: name: required field is missing (expected string)`,
  ],
  [
    'empty nodes',
    `${H}nodes: []
`,
    `graph.yml:3:8: nodes: list at least 1 entry; the list is empty`,
  ],
  [
    'nodes as a map',
    `${H}nodes:
  a:
    run: make
`,
    `graph.yml:4:3: nodes: expected array, got a map`,
  ],
  [
    'a list, not a map',
    `- id: a
  run: make
`,
    `graph.yml:1:1: a graph file must be a map with "interlock: 1", "name" and "nodes"; see "Graph files" in docs/graphs.md`,
  ],
  [
    'empty file',
    ``,
    `graph.yml:1:1: a graph file must be a map with "interlock: 1", "name" and "nodes"; see "Graph files" in docs/graphs.md`,
  ],
  [
    'invalid YAML',
    `${H}nodes:
  - id: a
    run: "make
`,
    `graph.yml:6:1: not valid YAML: Missing closing "quote`,
  ],
  [
    'an unquoted ": " in a value',
    `${H}nodes:
  - id: a
    run: git commit -m "fix: it"
`,
    `graph.yml:5:10: not valid YAML: Nested mappings are not allowed in compact mappings: the value of "run" holds ": ", which YAML reads as the start of another key; quote the whole value (run: 'git commit -m "fix: it"') or write it as a block (run: |, then the value on the next line, indented)`,
  ],
  [
    'tabs',
    `${H}nodes:
\t- id: a
`,
    `graph.yml:4:1: not valid YAML: Tabs are not allowed as indentation`,
  ],
  [
    'duplicate YAML key',
    `${H}nodes:
  - id: a
    run: make
    run: make test
`,
    `graph.yml:6:5: "run" appears twice in the same map; keep one`,
  ],
  [
    'more than 2 retry entries',
    `${H}nodes:
  - id: a
    run: make
    retry:
      - run: make 2
      - run: make 3
      - run: make 4
`,
    `graph.yml:9:9: node "a" retry: at most 2 entries are allowed (retry[0] for attempt 2, retry[1] for attempt 3); remove the rest`,
  ],
  [
    'bad regex in contains',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - file: out.txt
        contains: "([a-z]"
`,
    `graph.yml:8:19: node "a" validates[0]: Invalid regular expression: /([a-z]/: Unterminated group; fix the regular expression`,
  ],
  [
    'bad regex in matches',
    `${H}nodes:
  - id: a
    run: make
    outputs: [url]
    validates:
      - output: url
        matches: "https://("
`,
    `graph.yml:9:18: node "a" validates[0]: Invalid regular expression: /https://(/: Unterminated group; fix the regular expression`,
  ],
  [
    'bad regex in git message',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - git: { message: "fix(" }
`,
    `graph.yml:7:25: node "a" validates[0]: Invalid regular expression: /fix(/: Unterminated group; fix the regular expression`,
  ],
  [
    'output check on an undeclared output',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - output: url
`,
    `graph.yml:7:9: node "a" checks output "url" but does not list it in outputs; add it to outputs`,
  ],
  [
    'check naming no kind',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - contains: done
`,
    `graph.yml:7:9: node "a" validates[0]: a check must name exactly one of file, command, output, git, pull_request, check, issue, branch, tag, release (got none of them); e.g. "- file: out.txt"`,
  ],
  [
    'check naming two kinds',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - file: out.txt
        command: test -s out.txt
`,
    `graph.yml:7:9: node "a" validates[0]: a check must name exactly one of file, command, output, git, pull_request, check, issue, branch, tag, release (got file and command); e.g. "- file: out.txt"`,
  ],
  [
    'check as a plain string',
    `${H}nodes:
  - id: a
    run: make
    validates:
      - out.txt
`,
    `graph.yml:7:9: node "a" validates[0]: a check must name exactly one of file, command, output, git, pull_request, check, issue, branch, tag, release (got "out.txt"); e.g. "- file: out.txt"`,
  ],
  [
    'timeout too large',
    `${H}nodes:
  - id: a
    run: make
    timeout_minutes: 1000
`,
    `graph.yml:6:22: node "a" timeout_minutes: 1000 is out of range: it must be at most 360`,
  ],
  [
    'timeout zero',
    `${H}nodes:
  - id: a
    run: make
    timeout_minutes: 0
`,
    `graph.yml:6:22: node "a" timeout_minutes: 0 is out of range: it must be more than 0`,
  ],
  [
    'timeout as text',
    `${H}nodes:
  - id: a
    run: make
    timeout_minutes: ten
`,
    `graph.yml:6:22: node "a" timeout_minutes: expected number, got "ten"`,
  ],
  [
    'bad env name',
    `${H}nodes:
  - id: a
    run: make
    env:
      1ST: x
`,
    `graph.yml:7:7: node "a" env: "1ST" is not a valid variable name: use letters, digits and "_", not starting with a digit`,
  ],
  [
    'depends_on not a list',
    `${H}nodes:
  - id: b
    run: make
  - id: a
    run: make
    depends_on: b
`,
    `graph.yml:8:17: node "a" depends_on: expected array, got "b"`,
  ],
  [
    'missing id',
    `${H}nodes:
  - run: make
`,
    `graph.yml:4:5: nodes[0] id: required field is missing (expected string)`,
  ],
  [
    'empty run',
    `${H}nodes:
  - id: a
    run: ""
`,
    `graph.yml:5:10: node "a" run: must not be empty`,
  ],
  [
    'bad skill name',
    `${H}nodes:
  - id: a
    skill: ../etc/passwd
`,
    `graph.yml:5:12: node "a" skill: "../etc/passwd" is not allowed: a skill name uses letters, digits, "_" and "-"`,
  ],
];

const JSON_CASES: Case[] = [
  [
    'a node the schema cannot read is never named by a made-up id, nor offered as a did-you-mean (fuzz)',
    `{"interlock": 1, "name": "demo", "nodes": [{"depends_on": ["\\n"], "env": {"\\n": "\${{"}}, {"id": "b", "run": "x", "depends_on": ["c"]}]}`,
    `graph.json:1:44: nodes[0] id: required field is missing (expected string)`,
    `graph.json:1:75: nodes[0] env: "\\n" is not a valid variable name: use letters, digits and "_", not starting with a digit`,
    `graph.json:1:129: node "b" depends on "c", which is not a node (did you mean "b"?)`,
  ],
  [
    'unknown field (JSON)',
    `{"interlock": 1, "name": "demo", "nodes": [{"id": "a", "run": "make", "dependz": []}]}`,
    `graph.json:1:71: node "a": unknown field "dependz"; allowed: id, description, run, prompt, agent, engine, skill, env, timeout_minutes, depends_on, execute_conditions, validates, replay, retry, outputs, budget, effect, allow_protected_paths, soft_timeout_minutes, soft_turns, session, approval, approvals, network, for_each, key, max_parallel, max_items, tolerated_failures, repeat, graph`,
  ],
  [
    'missing comma (JSON)',
    `{
  "interlock": 1,
  "name": "demo"
  "nodes": [{"id": "a", "run": "make"}]
}
`,
    `graph.json:4:3: not valid JSON: Expected ',' or '}' after property value`,
  ],
  [
    'single quotes (JSON)',
    `{
  "interlock": 1,
  "name": 'demo',
  "nodes": [{"id": "a", "run": "make"}]
}
}
`,
    `graph.json:3:11: not valid JSON: unexpected character "'"`,
  ],
  [
    'duplicate key (JSON)',
    `{
  "interlock": 1,
  "name": "demo",
  "name": "other",
  "nodes": [{"id": "a", "run": "make"}]
}
`,
    `graph.json:4:3: "name" appears twice in the same map; keep one`,
  ],
  [
    'self dependency (JSON)',
    `{
  "interlock": 1,
  "name": "demo",
  "nodes": [
    {"id": "a", "run": "make", "depends_on": ["a"]}
  ]
}
`,
    `graph.json:5:47: node "a" depends on itself; remove "a" from its depends_on`,
  ],
];

describe('malformed graph files are refused with the exact error, located', () => {
  it.each(YAML_CASES)('%s', (_name, text, ...expected) => {
    expect(loadErrors(() => parseGraph({ path: 'graph.yml', text }))).toEqual(expected);
  });

  it.each(JSON_CASES)('%s', (_name, text, ...expected) => {
    expect(loadErrors(() => parseGraph({ path: 'graph.json', text }))).toEqual(expected);
  });

  it('every problem in a file is reported at once, in file order', () => {
    const text = `${H}nodes:
  - id: build
    run: make
    depends_on: [biuld, build]
  - id: test
    run: make test
    depends_on: [ghost]
    execute_conditions: ["inputs.x =="]
`;
    expect(loadErrors(() => parseGraph({ path: 'graph.yml', text }))).toEqual([
      'graph.yml:6:18: node "build" depends on "biuld", which is not a node (did you mean "build"?)',
      'graph.yml:6:25: node "build" depends on itself; remove "build" from its depends_on',
      'graph.yml:9:18: node "test" depends on "ghost", which is not a node',
      'graph.yml:10:26: node "test" execute_conditions[0]: invalid expression "inputs.x ==": Unexpected end of expression: \'==\'',
    ]);
  });
});

describe('skills: errors are located in the file that holds them', () => {
  let dir: string;
  const skill = (name: string, text: string) => writeFileSync(join(dir, 'skills', `${name}.yml`), text);
  const load = (name: string, text: string) => {
    const path = join(dir, `${name}.yml`);
    writeFileSync(path, text);
    return loadErrors(() => loadGraphFile(path));
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'interlock-skills-'));
    mkdirSync(join(dir, 'skills'));
    skill('review', 'runn: make review\n');
    skill(
      'comment',
      'description: posts a comment\nrun: |\n  gh issue comment --body "${{ github.event.issue.title }}"\n',
    );
    skill('broken', 'run: [make\n');
    skill('lint', 'id: lint\nrun: make lint\n');
    skill('good', 'run: make\nreplay: safe\n');
    skill('gated', 'run: make\nexecute_conditions: ["inputs.x =="]\n');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('a missing skill file is named with the file to create', () => {
    expect(load('missing', `${H}nodes:\n  - id: a\n    skill: reviw\n`)).toEqual([
      `${dir}/missing.yml:5:12: skill "reviw" not found: create skills/reviw.yml beside the graph, or fix the name`,
    ]);
  });

  it('a missing retry skill is named at the retry entry', () => {
    expect(
      load(
        'retry-missing',
        `${H}nodes:\n  - id: a\n    run: make\n    retry:\n      - {}\n      - skill: fixer\n`,
      ),
    ).toEqual([
      `${dir}/retry-missing.yml:8:16: skill "fixer" not found: create skills/fixer.yml beside the graph, or fix the name`,
    ]);
  });

  it('a skill file with an unknown field is refused at the field, in the skill file', () => {
    expect(load('unknown', `${H}nodes:\n  - id: a\n    skill: review\n`)).toEqual([
      `${dir}/skills/review.yml:1:1: skill "review": unknown field "runn" (did you mean "run"?)`,
    ]);
  });

  it('a skill used by two nodes reports its error once', () => {
    expect(load('twice', `${H}nodes:\n  - id: a\n    skill: review\n  - id: b\n    skill: review\n`)).toEqual(
      [`${dir}/skills/review.yml:1:1: skill "review": unknown field "runn" (did you mean "run"?)`],
    );
  });

  it('a skill whose run holds an expression is refused in the skill file', () => {
    expect(load('comment', `${H}nodes:\n  - id: a\n    skill: comment\n`)).toEqual([
      `${dir}/skills/comment.yml:2:6: skill "comment" run contains "\${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "\${{ github.event.issue.title }}" }) and use "$TITLE" in run`,
    ]);
  });

  it('a skill that is not valid YAML is refused in the skill file', () => {
    expect(load('broken', `${H}nodes:\n  - id: a\n    skill: broken\n`)).toEqual([
      `${dir}/skills/broken.yml:2:1: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    ]);
  });

  it('a skill may not name an id: the node that uses it does', () => {
    expect(load('with-id', `${H}nodes:\n  - id: a\n    skill: lint\n`)).toEqual([
      `${dir}/skills/lint.yml:1:1: skill "lint": unknown field "id"; allowed: description, run, prompt, agent, engine, env, timeout_minutes, execute_conditions, validates, replay, retry, outputs, budget, effect, allow_protected_paths, soft_timeout_minutes, soft_turns, session, approval, approvals, network, for_each, key, max_parallel, max_items, tolerated_failures`,
    ]);
  });

  it('a skill’s bad condition is refused in the skill file', () => {
    expect(load('gated', `${H}nodes:\n  - id: a\n    skill: gated\n`)).toEqual([
      `${dir}/skills/gated.yml:2:22: skill "gated" execute_conditions[0]: invalid expression "inputs.x ==": Unexpected end of expression: '=='`,
    ]);
  });

  it('a retry[1] that uses the node’s own skill again is the same approach', () => {
    expect(
      load(
        'same-skill',
        `${H}nodes:\n  - id: a\n    skill: good\n    retry:\n      - {}\n      - skill: good\n`,
      ),
    ).toEqual([
      `${dir}/same-skill.yml:8:9: node "a" retry[1] is the same approach as the node's own; attempt 3 must differ: give it another run, prompt or skill`,
    ]);
  });

  it('a graph file that cannot be read is named', () => {
    expect(loadErrors(() => loadGraphFile(join(dir, 'nope.yml')))).toEqual([
      `${dir}/nope.yml:1:1: cannot read the graph file: ENOENT`,
    ]);
  });

  it('a skill’s fields, conditions included, are merged into the node that uses it', () => {
    writeFileSync(
      join(dir, 'skills', 'gate.yml'),
      'run: make\nreplay: safe\nexecute_conditions: ["inputs.go == \'yes\'"]\n',
    );
    const path = join(dir, 'ok.yml');
    writeFileSync(path, `${H}nodes:\n  - id: a\n    skill: gate\n    replay: never\n`);
    const node = loadGraphFile(path).nodes[0]!;
    expect(node.execute_conditions).toEqual(["inputs.go == 'yes'"]);
    expect(node.replay).toBe('never');
    expect(node.approaches[0]).toEqual({
      label: 'default',
      run: 'make',
      skill: 'gate',
      env: {},
      timeout_minutes: 60,
    });
  });
});
