// The graph's content address must never change for the same graph: a run refuses to go on when the hash it
// started with differs. These pin it, and the canonical JSON it is computed from.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256 } from '../../src/graph/canonical.js';
import { parseGraph } from '../../src/graph/load/load.js';

const GRAPH = `interlock: 1
name: overlays
description: every way an approach is built
defaults:
  agent: claude -p
  timeout_minutes: 7
  replay: safe
nodes:
  - id: a
    run: make a
    env: { A: "1", B: "\${{ github.event.issue.title }}" }
    retry:
      - prompt: fix a, differently
        env: { B: "2" }
      - skill: builder
    validates: [{ file: a.txt, contains: "ok" }]
  - id: b
    depends_on: [a]
    prompt: write b
    agent: codex exec
    retry:
      - run: make b
      - prompt: write b again
        timeout_minutes: 3
    outputs: [url]
    validates: [{ output: url, matches: "^https://" }]
  - id: c
    depends_on: [a, b]
    skill: builder
    replay: never
    retry:
      - run: make c
        skill: builder
      - prompt: c by hand
    execute_conditions: ["\${{ nodes.b.outputs.url != '' }}"]
`;
const SKILL = 'description: builds things\nrun: make all\nenv: { SKILL: "yes" }\ntimeout_minutes: 12\n';

/** The definition: JSON.stringify with each object's keys sorted. */
const reference = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, (x as Record<string, unknown>)[k]]),
        )
      : x,
  );

describe('the graph hash', () => {
  it('is pinned for a graph that builds approaches every way (run over prompt, skills, retries, env)', () => {
    const g = parseGraph({ path: 'g.yml', text: GRAPH }, (name) =>
      name === 'builder' ? { path: 'skills/builder.yml', text: SKILL } : undefined,
    );
    // Computed when this test was written; a change here breaks every run in flight under this graph.
    expect(g.hash).toBe('sha256:aa28e4d5985b815be49c46419602f32b46ecc4e4278c1fe75e75a37d68e4f9e7');
  });

  it('is pinned for the demo graph', () => {
    const path = new URL('../../examples/demo/fix-bug.yml', import.meta.url).pathname;
    const g = parseGraph({ path, text: readFileSync(path, 'utf8') });
    // Re-pinned when publish gained `approval: before` (issue 15): a demo graph has no runs in flight to break.
    expect(g.hash).toBe('sha256:4e71b7b29069fd5f2d9dba57f25f4f89a4931f4cea23ecf7b168fe3742496950');
  });

  it('is sha256 of the canonical JSON of name, description and nodes, with or without a description', () => {
    for (const text of [GRAPH, GRAPH.replace(/^description: .*\n/m, '')]) {
      const g = parseGraph({ path: 'g.yml', text }, (name) =>
        name === 'builder' ? { path: 'skills/builder.yml', text: SKILL } : undefined,
      );
      expect(g.hash).toBe(sha256(reference({ name: g.name, description: g.description, nodes: g.nodes })));
    }
  });

  it('is sha256 of the canonical JSON for every example graph in the repository', () => {
    const root = new URL('../../examples/', import.meta.url).pathname;
    const graphs = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (f) => /(^|\/)interlock\/[^/]+\.yml$/.test(f) || f === 'demo/fix-bug.yml',
    );
    expect(graphs.length).toBeGreaterThanOrEqual(4);
    for (const file of graphs) {
      const g = parseGraph({ path: file, text: readFileSync(join(root, file), 'utf8') });
      expect(g.hash, file).toBe(
        sha256(reference({ name: g.name, description: g.description, budget: g.budget, nodes: g.nodes })),
      );
    }
  });

  it("includes the graph's and each node's budget, and is unchanged for a graph that sets none", () => {
    const plain = 'interlock: 1\nname: b\nnodes:\n  - id: a\n    run: x\n';
    const runBudget = plain.replace('nodes:', 'budget: { turns: 9, cost_usd: 2 }\nnodes:');
    const nodeBudget = `${plain}    budget: { wall_minutes: 5 }\n`;
    const hashes = [plain, runBudget, nodeBudget].map((text) => parseGraph({ path: 'g.yml', text }).hash);
    expect(new Set(hashes).size).toBe(3);
    const g = parseGraph({ path: 'g.yml', text: runBudget });
    // Keys in sorted order, as canonical JSON writes them: the same bytes whatever order the file used.
    expect(g.budget).toEqual({ cost_usd: 2, turns: 9 });
    expect(Object.keys(g.budget!)).toEqual(['cost_usd', 'turns']);
    expect(g.hash).toBe(sha256(reference({ name: g.name, budget: g.budget, nodes: g.nodes })));
    // Without a budget the hash is what it always was: sha256 of name and nodes only.
    const p = parseGraph({ path: 'g.yml', text: plain });
    expect(p.hash).toBe(sha256(reference({ name: p.name, nodes: p.nodes })));
  });

  it('canonical JSON keeps a key named __proto__ as a key (an env variable may be called that)', () => {
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":2},"a":[3]}'))).toBe(
      '{"__proto__":{"x":2},"a":[3],"b":1}',
    );
  });

  it('canonical JSON is JSON.stringify with sorted keys, for any JSON value and undefined members', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie('v'), { maxKeys: 5 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 500 },
    );
  });
});
