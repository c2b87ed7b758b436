// Hostile graph files and corrupted journals beyond the core tables, each with its exact outcome; corrupted
// journals are refused by every command and left byte-identical. The core tables stay where they are
// (test/core/bad-graphs.test.ts, test/cli/journals.test.ts); `npm run reliability` counts them all.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { GraphError } from '../../src/graph/errors.js';
import { parseGraph } from '../../src/graph/load/load.js';
import { cleanupSandboxes, requireBundle, sandbox } from '../crash/harness.js';
import { GRAPH_TEXT, HOSTILE_GRAPHS, HOSTILE_JOURNALS, HOSTILE_LISTS } from './hostile-tables.js';

describe('hostile graph files', () => {
  it.each(HOSTILE_GRAPHS.map((g) => [g.name, g] as const))('%s', (_name, g) => {
    let errors: string[] | undefined;
    let loaded: ReturnType<typeof parseGraph> | undefined;
    const t0 = Date.now();
    try {
      loaded = parseGraph({ path: 'graph.yml', text: g.text });
    } catch (e) {
      expect(e).toBeInstanceOf(GraphError);
      errors = (e as Error).message.split('\n');
    }
    // Hostile shapes are refused quickly, not by exhausting the machine.
    expect(Date.now() - t0).toBeLessThan(10_000);
    if (g.errors) expect(errors).toEqual(g.errors);
    if (g.firstError) {
      expect(errors).toHaveLength(1);
      expect(errors![0]).toMatch(g.firstError);
    }
    if (g.loads) {
      expect(errors).toBeUndefined();
      const node = loaded!.nodes.find((n) => n.id === g.loads!.node);
      expect(node?.approaches[0]?.run).toBe(g.loads.run);
    }
  });
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-hostile-journals-'));
  writeFileSync(join(dir, 'graph.yml'), GRAPH_TEXT);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[]) {
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

const COMMANDS: Array<[string, string[]]> = [
  ['run', ['run', 'graph.yml', '--journal', 'run.json', '--run-id', 'demo', '--quiet']],
  ['approve-rerun', ['approve-rerun', 'b', '--by', 'ann', '--journal', 'run.json']],
  ['recover', ['recover', '--assume-dead', '--journal', 'run.json']],
];

describe('corrupted journals are refused by every command that writes, and left byte-identical', () => {
  const table = HOSTILE_JOURNALS.flatMap((j) =>
    COMMANDS.filter(([verb]) => !j.runOnly || verb === 'run').map(
      ([verb, argv]) => [`${verb}: ${j.name}`, j, argv] as const,
    ),
  );
  it.each(table)('%s', async (_name, j, argv) => {
    const file = join(dir, 'run.json');
    writeFileSync(file, j.bytes);
    const before = readdirSync(dir).sort();
    const r = await cli([...argv]);
    expect(r).toEqual({ code: 2, out: '', err: `interlock: ${j.message(file)}\n` });
    expect(readFileSync(file).equals(Buffer.from(j.bytes))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it.each(HOSTILE_JOURNALS.filter((j) => !j.runOnly).map((j) => [j.name, j] as const))(
    'status refuses it too: %s',
    async (_name, j) => {
      const file = join(dir, 'run.json');
      writeFileSync(file, j.bytes);
      const r = await cli(['status', '--json', '--journal', 'run.json']);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`interlock: ${j.message(file)}\n`);
      expect(readFileSync(file).equals(Buffer.from(j.bytes))).toBe(true);
    },
  );
});

describe('hostile values at run time', () => {
  beforeAll(() => requireBundle());
  afterEach(cleanupSandboxes);

  it('a node output holding a NUL byte fails the next node’s attempt cleanly; nothing crashes or stays in flight', async (ctx) => {
    const s = sandbox(ctx, 'interlock-hostile-nul-');
    s.write(
      'g.yml',
      `interlock: 1
name: nul
nodes:
  - id: a
    replay: safe
    run: printf 'x=a\\0b\\n' >> "$INTERLOCK_OUTPUT"
  - id: b
    depends_on: [a]
    env:
      X: \${{ nodes.a.outputs.x }}
    run: echo "$X" > seen.txt
`,
    );
    const r = await s.cli(['run', 'g.yml', '--all', '--quiet']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).not.toContain('unexpected error');
    const journal = s.journal('nul');
    const failed = journal.events.filter((e) => e.type === 'NodeFailed' && e.node === 'b');
    expect(failed).toHaveLength(2);
    expect(JSON.stringify(failed[0])).toContain('the command could not start');
    expect((await s.status('nul')).active_nodes).toEqual([]);
    expect(s.exists('seen.txt')).toBe(false);
  });
});

describe('hostile for_each lists, through the bundled CLI', () => {
  beforeAll(() => requireBundle());
  afterEach(cleanupSandboxes);

  it.for(HOSTILE_LISTS.map((l) => [l.name, l] as const))('%s', async ([, l], ctx) => {
    const s = sandbox(ctx, 'interlock-hostile-list-');
    s.write('list.json', l.list);
    s.write(
      'g.yml',
      `interlock: 1
name: list
nodes:
  - id: plan
    replay: safe
    outputs: [tasks]
    run: printf 'tasks=%s\\n' "$(cat list.json)" >> "$INTERLOCK_OUTPUT"
  - id: work
    depends_on: [plan]
    for_each: \${{ fromJSON(nodes.plan.outputs.tasks) }}
${l.key ? `    key: "${l.key}"\n` : ''}    env:
      ITEM: \${{ toJSON(item) }}
    run: printf '%s' "$ITEM" > "item-$INTERLOCK_ATTEMPT-$(printf %s "$INTERLOCK_NODE" | tr -c 'a-z0-9' _).json"
`,
    );
    const r = await s.cli(['run', 'g.yml', '--all', '--quiet']);
    expect(r.stderr).not.toContain('unexpected error');
    const journal = s.journal('list');
    const failed = journal.events.filter((e) => e.type === 'NodeExpansionFailed');
    const expanded = journal.events.filter((e) => e.type === 'NodeExpanded');
    if (l.refused) {
      expect(r.code).toBe(3);
      expect(failed).toMatchObject([{ node: 'work', failures: [{ check: 'for_each', message: l.refused }] }]);
      expect(expanded).toEqual([]);
      expect(journal.events.some((e) => e.type === 'NodeDispatched' && e.node.startsWith('work'))).toBe(
        false,
      );
      expect((await s.status('list')).active_nodes).toEqual([]);
    } else {
      expect(r.code, r.stderr).toBe(0);
      expect(failed).toEqual([]);
      expect(expanded.flatMap((e) => (e.type === 'NodeExpanded' ? e.items!.map((i) => i.key) : []))).toEqual(
        l.expands!.keys,
      );
      const seen = JSON.parse(s.read(`item-1-work_${l.expands!.keys[0]}_.json`)!);
      expect(seen).toEqual(l.expands!.first);
    }
  });
});
