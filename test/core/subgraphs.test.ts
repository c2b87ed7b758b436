// Sub-graphs (issue 28), through the pure core and the loader: `graph: <path>` read beside the graph, its nodes
// named `<node>/<child>` and nodes in every respect, the child's hash in the graph's and in the journal, the
// join, a sub-graph's budget applied within, and the files and journals that are refused.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  actionIdentifier,
  approvalCheckRunView,
  nodeOfAction,
} from '../../src/approvals/replies/check-run.js';
import { GraphError } from '../../src/graph/errors.js';
import { parseGraph } from '../../src/graph/load/load.js';
import { nodeById } from '../../src/graph/model.js';
import { isNodeName, subgraphFiles } from '../../src/graph/schema/subgraph.js';
import type { NewEvent } from '../../src/journal/events/events.js';
import { expressionContext, idempotencyKey } from '../../src/protocol/attempt/context.js';
import { forkRun } from '../../src/protocol/commands/rerun-from.js';
import { withCompletion } from '../../src/protocol/decide.js';
import { expansionEvents } from '../../src/protocol/expansion.js';
import { statusMermaid, statusTable } from '../../src/render/status.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';
import { append, foldError, graphText, Sim } from './sim.js';

const CHILD = graphText(`  - id: build
    run: make
    outputs: [built]
  - id: check
    depends_on: [build]
    env:
      B: "\${{ nodes.build.outputs.built }}"
    run: test -n "$B"
    outputs: [ok]
`);

/** A graph and its files, read from memory as the loader reads them from disk. */
function load(text: string, files: Record<string, string> = { 'review.yml': CHILD }) {
  return parseGraph({ path: 'g/main.yml', text }, undefined, {
    readGraph: (p) => {
      const name = p.replace(/^g\//, '');
      return name in files
        ? { source: { path: p, text: files[name]! }, readSkill: () => undefined }
        : undefined;
    },
  });
}

const MAIN = graphText(`  - id: prep
    run: echo prep
  - id: review
    depends_on: [prep]
    graph: review.yml
  - id: ship
    depends_on: [review]
    env:
      OK: "\${{ nodes.review.outputs.ok }}"
    run: echo "$OK"
`);

function errors(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof GraphError) return e.errors.map((x) => `${x.file}:${x.line}: ${x.message}`);
    throw e;
  }
  throw new Error('the graph loaded');
}

describe("sub-graph rule 1: the file is read beside the graph, never outside it, and its hash is part of the graph's", () => {
  it('names its nodes under the sub-graph node, with their edges, and hashes the child into the graph', () => {
    const g = load(MAIN);
    const review = nodeById(g, 'review')!;
    expect(review.subgraph).toMatchObject({ path: 'review.yml', hash: expect.stringMatching(/^sha256:/) });
    expect(nodeById(g, 'review/check')).toMatchObject({
      id: 'review/check',
      depends_on: ['review/build'],
      scope: { of: 'review', id: 'check' },
    });
    expect(nodeById(g, 'review/nope')).toBeUndefined();
    // A change in the child is a change of the run's graph.
    const changed = load(MAIN, { 'review.yml': CHILD.replace('run: make', 'run: make all') });
    expect(changed.hash).not.toBe(g.hash);
    expect(changed.nodes.find((n) => n.id === 'review')!.subgraph!.hash).not.toBe(review.subgraph!.hash);
  });

  it('hashes the same on every machine: paths are recorded relative to the run graph', () => {
    const hashes = [0, 1].map(() => {
      const dir = mkdtempSync(join(tmpdir(), 'interlock-sub-'));
      writeFileSync(join(dir, 'main.yml'), MAIN);
      writeFileSync(join(dir, 'review.yml'), CHILD);
      return loadGraphFile(join(dir, 'main.yml')).hash;
    });
    expect(hashes[0]).toBe(hashes[1]);
  });

  it('refuses paths outside the graph folder, missing files, loops of graphs, and fields a sub-graph node cannot have', () => {
    const node = (graph: string, extra = '') => graphText(`  - id: review\n    graph: ${graph}\n${extra}`);
    // `./` names the same folder.
    expect(load(node('./review.yml')).nodes[0]!.subgraph!.path).toBe('review.yml');
    expect(errors(() => load(node('../review.yml')))).toEqual([
      expect.stringContaining('graph "../review.yml" is not a graph file beside this one'),
    ]);
    expect(errors(() => load(node('/etc/review.yml')))).toEqual([
      expect.stringContaining('is not a graph file beside this one'),
    ]);
    expect(errors(() => load(node('none.yml')))).toEqual([
      expect.stringContaining('no graph file at g/none.yml'),
    ]);
    expect(errors(() => load(node('review.yml', '    run: make\n')))).toEqual([
      expect.stringContaining('node "review" has both "graph" and "run"'),
    ]);
    // a.yml includes b.yml, which includes a.yml.
    const a = graphText('  - id: inner\n    graph: b.yml\n');
    const b = graphText('  - id: back\n    graph: a.yml\n');
    expect(errors(() => load(node('a.yml'), { 'a.yml': a, 'b.yml': b }))).toContainEqual(
      expect.stringContaining('g/a.yml includes g/b.yml includes g/a.yml: a graph cannot include itself'),
    );
    // Five levels of sub-graphs: one too many.
    const files: Record<string, string> = { 'l5.yml': graphText('  - id: leaf\n    run: echo\n') };
    for (let i = 4; i >= 1; i--) files[`l${i}.yml`] = graphText(`  - id: x\n    graph: l${i + 1}.yml\n`);
    expect(errors(() => load(node('l1.yml'), files))).toContainEqual(
      expect.stringContaining('nest more than 4 deep'),
    );
  });

  it("refuses a sub-graph whose nodes continue a session: sessions are the run's own graph's", () => {
    const talking = graphText('  - id: build\n    session: s\n    engine: claude-code\n    prompt: Build.\n');
    expect(errors(() => load(MAIN, { 'review.yml': talking }))).toEqual([
      expect.stringContaining('its node "build" continues a session, which a sub-graph\'s nodes cannot'),
    ]);
  });

  it("reports the child's own problems at its own file and line", () => {
    const bad = graphText('  - id: build\n    run: make\n    depends_on: [nope]\n');
    expect(errors(() => load(MAIN, { 'review.yml': bad }))).toEqual([
      'g/review.yml:6: node "build" depends on "nope", which is not a node of this sub-graph (its nodes depend only on each other: the depends_on of the node that names this file orders it after others)',
      expect.stringContaining(
        'g/main.yml:8: node "review" graph "review.yml": g/review.yml has 1 problem(s)',
      ),
    ]);
  });

  it('reads item only in a sub-graph run once per item', () => {
    const child = graphText('  - id: build\n    env:\n      T: "${{ item.id }}"\n    run: echo "$T"\n');
    expect(
      errors(() => load(graphText('  - id: review\n    graph: c.yml\n'), { 'c.yml': child })),
    ).toContainEqual(
      expect.stringContaining('in a sub-graph, give for_each to the node that names this file'),
    );
    const perItem = graphText(`  - id: review
    for_each: "\${{ fromJSON('[{\\"id\\":1}]') }}"
    graph: c.yml
`);
    expect(load(perItem, { 'c.yml': child }).nodes).toHaveLength(1);
  });

  it('never follows a symbolic link out of the graph folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-sub-'));
    const outside = mkdtempSync(join(tmpdir(), 'interlock-outside-'));
    writeFileSync(join(outside, 'review.yml'), CHILD);
    mkdirSync(join(dir, 'g'));
    writeFileSync(join(dir, 'g', 'main.yml'), MAIN);
    symlinkSync(join(outside, 'review.yml'), join(dir, 'g', 'review.yml'));
    expect(errors(() => loadGraphFile(join(dir, 'g', 'main.yml')))).toEqual([
      expect.stringMatching(
        /review\.yml is a link to .*, outside .*: a sub-graph is a file of the graph's own folder/,
      ),
    ]);
  });
});

describe('sub-graph rule 2: its nodes run as nodes under its name; the join waits for every one and gives their outputs', () => {
  it('expands when ready, journaling its graph; its nodes run in order; the join gives their outputs', () => {
    const sim = new Sim(load(MAIN));
    sim.dispatch();
    sim.succeed('prep');
    const d = sim.step();
    expect(d.kind).toBe('expand');
    const review = nodeById(sim.graph, 'review')!;
    expect(sim.journal.events.at(-1)).toMatchObject({
      type: 'NodeExpanded',
      node: 'review',
      graph: { path: 'review.yml', hash: review.subgraph!.hash },
    });
    expect(sim.journal.events.at(-1)).not.toHaveProperty('items');
    expect(sim.cp.ready_nodes).toEqual(['review/build']);
    expect(sim.dispatch().context.idempotency_key).toBe('test/local/review/build');
    sim.succeed('review/build', { built: 'yes' }, 6_000);
    expect(sim.cp.ready_nodes).toEqual(['review/check']);
    sim.dispatch();
    sim.succeed('review/check', { ok: 'fine' }, 5_000);
    expect(sim.step().kind).toBe('join');
    expect(sim.state.nodes.get('review')!.outputs).toEqual({ built: 'yes', ok: 'fine' });
    expect(sim.journal.events.at(-1)).toMatchObject({
      type: 'NodeJoined',
      node: 'review',
      completed: ['review/build', 'review/check'],
      tolerated: [],
    });
    expect(sim.dispatch().node.id).toBe('ship');
    // Its row counts its nodes, and its time is theirs (6 s and 5 s).
    expect(statusTable(sim.graph, sim.state)).toMatch(
      /review\s+completed\s+0\s+11\.0s\s+2 nodes: 2 completed/,
    );
  });

  it("lets its nodes read its own graph's nodes first, then the nodes its sub-graph node sees", () => {
    const sim = new Sim(load(MAIN));
    sim.dispatch();
    sim.succeed('prep', { ver: '1.2' });
    sim.step();
    sim.dispatch();
    sim.succeed('review/build', { built: 'yes' });
    const seen = expressionContext({ graph: sim.graph, state: sim.state, attempt: 1, node: 'review/check' })
      .nodes as Record<string, { outputs: unknown }>;
    expect(seen.build!.outputs).toEqual({ built: 'yes' });
    expect(seen.prep!.outputs).toEqual({ ver: '1.2' });
    expect(seen).not.toHaveProperty('review/build');
  });

  it('does not join while a node of it escalated; the node is approved by its own name', () => {
    const sim = new Sim(load(MAIN));
    sim.dispatch();
    sim.succeed('prep');
    sim.step();
    sim.dispatch();
    sim.fail('review/build');
    sim.dispatch();
    sim.fail('review/build');
    expect(sim.cp.escalated_nodes).toEqual(['review/build']);
    expect(sim.cp.ready_nodes).toEqual([]);
    expect(sim.cp.status).toBe('blocked');
    // The diagram colours the sub-graph node by what waits for a person under it.
    expect(statusMermaid(sim.graph, sim.state)).toContain('class n_review escalated');
    expect(statusTable(sim.graph, sim.state)).toMatch(
      /review\s+expanded.*2 nodes: 1 escalated \(review\/build\), 1 waiting/,
    );
    sim.approve('review/build');
    expect(sim.cp.ready_nodes).toEqual(['review/build']);
  });

  it('refuses an expansion that lists items without for_each, and keeps one made under an earlier child graph', () => {
    const sim = new Sim(load(MAIN));
    sim.dispatch();
    sim.succeed('prep');
    const hash = nodeById(sim.graph, 'review')!.subgraph!.hash;
    const items = {
      type: 'NodeExpanded',
      node: 'review',
      graph: { path: 'review.yml', hash },
      items: [{ key: 'a', value: 1 }],
    };
    expect(foldError(append(sim.journal, [items as NewEvent]), sim.graph).message).toMatch(
      /has no for_each, so its expansion lists no items/,
    );
    const bare = { type: 'NodeExpanded', node: 'review' };
    expect(foldError(append(sim.journal, [bare as NewEvent]), sim.graph).message).toMatch(
      /its expansion names its graph/,
    );
    // The run went on under a changed child graph (a person allowed it): the record of what ran stays readable.
    const earlier = { type: 'NodeExpanded', node: 'review', graph: { path: 'review.yml', hash: 'sha256:0' } };
    sim.append([earlier as NewEvent]);
    expect(sim.cp.ready_nodes).toEqual(['review/build']);
  });
});

describe('sub-graph rule 3: its own budget applies within it', () => {
  it("applies the sub-graph's own budget to its nodes", () => {
    const child = `${CHILD.replace('nodes:', 'budget:\n  wall_minutes: 1\nnodes:')}`;
    const sim = new Sim(load(MAIN, { 'review.yml': child }));
    sim.dispatch();
    sim.succeed('prep', {}, 600_000);
    sim.step();
    sim.dispatch();
    sim.succeed('review/build', { built: 'x' }, 90_000);
    // 1.5 minutes spent inside the sub-graph: its next node is escalated, not dispatched.
    const d = sim.step();
    expect(d.kind).toBe('budget-escalated');
    expect((d as { reason: string }).reason).toContain('sub-graph "review" (review.yml) is at its budget');
  });
});

describe('sub-graph files are protected', () => {
  it('lists every sub-graph file and the skills beside it, relative to the repository', () => {
    const inner = graphText('  - id: leaf\n    run: echo\n');
    const mid = graphText('  - id: deep\n    graph: more/inner.yml\n');
    const g = load(graphText('  - id: a\n    graph: review.yml\n  - id: b\n    graph: sub/mid.yml\n'), {
      'review.yml': CHILD,
      'sub/mid.yml': mid,
      'sub/more/inner.yml': inner,
    });
    expect(subgraphFiles(g, '.github/interlock/main.yml')).toEqual([
      '.github/interlock/review.yml',
      '.github/interlock/skills/**',
      '.github/interlock/sub/mid.yml',
      '.github/interlock/sub/skills/**',
      '.github/interlock/sub/more/inner.yml',
      '.github/interlock/sub/more/skills/**',
    ]);
  });
});

describe("sub-graph rule 4: its nodes' names and idempotency keys carry the sub-graph node's", () => {
  it('accepts nodes, instances and their sub-graph nodes, nothing else', () => {
    for (const ok of ['build', 'work[3]', 'review/build', 'work[t1]/build', 'a/b/c', 'a/w[k]/b'])
      expect(isNodeName(ok), ok).toBe(true);
    for (const bad of ['', '/x', 'x/', 'a//b', 'a/../b', 'work[..]', 'a b', 'a/b/c/d/e/f'])
      expect(isNodeName(bad), bad).toBe(false);
  });

  it("gives a sub-graph's node (and an instance) an Approve rerun button of its own", () => {
    const sim = new Sim(load(MAIN));
    sim.dispatch();
    sim.succeed('prep');
    sim.step();
    sim.dispatch();
    sim.fail('review/build');
    sim.dispatch();
    sim.fail('review/build');
    const view = approvalCheckRunView(sim.graph, sim.state, 'test/local');
    expect(view.actions).toHaveLength(1);
    const id = view.actions[0]!.identifier;
    expect(id.length).toBeLessThanOrEqual(20);
    expect(nodeOfAction(sim.graph, id, sim.journal)).toBe('review/build');
    expect(nodeOfAction(sim.graph, 'rerun:-:000000000000', sim.journal)).toBeUndefined();
    expect(nodeOfAction(sim.graph, actionIdentifier(sim.graph, 'prep'))).toBe('prep');
  });

  it('gives a sub-graph node its enclosing node key and cycle before its own id', () => {
    expect(idempotencyKey({ runId: 'r', node: 'review/build' })).toBe('r/review/build');
    expect(
      idempotencyKey({
        runId: 'r',
        node: 'review/build',
        cycleOf: (id) => (id === 'review' ? 2 : undefined),
      }),
    ).toBe('r/review/cycle-2/build');
    expect(idempotencyKey({ runId: 'r', node: 'review/build', cycle: 3 })).toBe('r/review/build/cycle-3');
  });
});

/** What `node` sees of `work`'s outputs. */
function outputsOf(sim: Sim, node: string): unknown {
  const nodes = expressionContext({ graph: sim.graph, state: sim.state, attempt: 1, node: node })
    .nodes as Record<string, { outputs: unknown }>;
  return nodes.work!.outputs;
}

describe('sub-graph rule 5: a fork carries a for_each node over with its instances', () => {
  it("gives the fork's rerun nodes the same outputs list: each sub-graph's outputs, a tolerated one null", () => {
    const text = graphText(`  - id: work
    for_each: "\${{ fromJSON('[\\"a\\",\\"b\\",\\"c\\"]') }}"
    key: "\${{ item }}"
    tolerated_failures: 1
    graph: review.yml
  - id: integrate
    depends_on: [work]
    env:
      ALL: "\${{ toJSON(nodes.work.outputs) }}"
    run: echo "$ALL"
`);
    const sim = new Sim(load(text));
    sim.step();
    for (const k of ['a', 'b', 'c']) {
      sim.step(`work[${k}]`);
      sim.dispatch(`work[${k}]/build`);
      if (k === 'b') {
        sim.fail('work[b]/build');
        sim.dispatch('work[b]/build');
        sim.fail('work[b]/build');
        continue;
      }
      sim.succeed(`work[${k}]/build`, { built: k });
      sim.dispatch(`work[${k}]/check`);
      sim.succeed(`work[${k}]/check`, { ok: `ok-${k}` });
      sim.step(`work[${k}]`);
    }
    expect(sim.step().kind).toBe('join');
    sim.dispatch('integrate');
    sim.succeed('integrate');
    expect(sim.cp.status).toBe('completed');
    const before = outputsOf(sim, 'integrate');
    expect(before).toEqual([{ built: 'a', ok: 'ok-a' }, null, { built: 'c', ok: 'ok-c' }]);

    const forked = forkRun({ run: sim, node: 'integrate', by: 'bob', source: 'test' });
    if (!forked.ok) throw new Error(forked.reason);
    const carried = forked.events.find((e) => e.type === 'NodeCarriedOver');
    expect(carried).toMatchObject({
      node: 'work',
      instances: [{ key: 'a', state: 'completed' }, { key: 'b', state: 'tolerated' }, { key: 'c' }],
    });
    const fork = new Sim(sim.graph);
    fork.journal = append({ ...sim.journal, run_id: 'test/local-2', events: [] }, forked.events);
    expect(fork.cp.ready_nodes).toEqual(['integrate']);
    expect(outputsOf(fork, 'integrate')).toEqual(before);
  });
});

describe('sub-graph rule 6: one plan expands every sub-graph that is ready', () => {
  it('expands a list of 40 sub-graphs and lists each one first node', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const text = graphText(`  - id: plan
    run: echo plan
    outputs: [tasks]
  - id: work
    depends_on: [plan]
    for_each: "\${{ fromJSON(nodes.plan.outputs.tasks) }}"
    key: "\${{ item }}"
    graph: review.yml
`);
    const sim = new Sim(load(text));
    sim.dispatch();
    sim.succeed('plan', { tasks: JSON.stringify(keys) });
    const { events } = expansionEvents(sim.run, withCompletion);
    sim.append(events);
    expect(events.filter((e) => e.type === 'NodeExpanded')).toHaveLength(41);
    expect(sim.cp.ready_nodes).toEqual(keys.map((k) => `work[${k}]/build`));
  });
});
