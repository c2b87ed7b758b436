// The serialized mode against one node a call: the CLI (dist/cli.js) runs a 5-node chain of one session with the
// real Claude Code CLI against the scripted model server, once with `serialized: true` and once without, and the
// server counts the model calls (the side request for a session title excluded). Wall time is the whole run.
import { rmSync } from 'node:fs';
import { Sandbox } from '../test/crash/harness.js';
import { agentHome, claudeBin, claudeEnv } from '../test/support/agent-clis.js';
import { startModelServer } from '../test/support/model-server.js';

export interface SerializedFigures {
  nodes: number;
  runs: number;
  /** Model calls of one run, one node a call and serialized. */
  calls: { one_a_call: number; serialized: number };
  /** Median wall time of a run, ms. */
  wall_ms: { one_a_call: number; serialized: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function graph(nodes: number, agent: string, serialized: boolean): string {
  const lines = [
    'interlock: 1',
    'name: serialized-bench',
    'defaults:',
    '  engine: claude-code',
    `  agent: ${JSON.stringify(`${agent} -p`)}`,
    'sessions:',
    `  work: { serialized: ${serialized} }`,
    'nodes:',
  ];
  for (let i = 0; i < nodes; i++) {
    lines.push(`  - id: n${i}`, '    session: work', `    prompt: Task ${i}.`);
    if (i > 0) lines.push(`    depends_on: [n${i - 1}]`);
    lines.push(`    validates: [{ file: n${i}.txt }]`);
  }
  return `${lines.join('\n')}\n`;
}

/** One run of the chain: its model calls and wall time. */
async function once(nodes: number, serialized: boolean): Promise<{ calls: number; ms: number }> {
  const server = await startModelServer({ script: [], whenDone: { text: 'done' } });
  const sb = new Sandbox('interlock-bench-serialized-');
  const home = agentHome('bench-claude');
  try {
    for (let i = 0; i < nodes; i++) sb.write(`n${i}.txt`, '');
    sb.write('graph.yml', graph(nodes, claudeBin!, serialized));
    const t0 = performance.now();
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'b'], claudeEnv(server.url, home));
    const ms = performance.now() - t0;
    if (r.code !== 0) throw new Error(`the serialized bench run failed: ${r.stderr}`);
    return { calls: server.calls.length, ms };
  } finally {
    await server.close();
    rmSync(sb.dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** Both modes, `runs` times each, alternating; undefined when Claude Code is not installed. */
export async function serializedFigures(nodes = 5, runs = 3): Promise<SerializedFigures | undefined> {
  if (!claudeBin) return undefined;
  const one: { calls: number; ms: number }[] = [];
  const ser: { calls: number; ms: number }[] = [];
  for (let k = 0; k < runs; k++) {
    one.push(await once(nodes, false));
    ser.push(await once(nodes, true));
  }
  return {
    nodes,
    runs,
    calls: { one_a_call: one[0]!.calls, serialized: ser[0]!.calls },
    wall_ms: { one_a_call: median(one.map((x) => x.ms)), serialized: median(ser.map((x) => x.ms)) },
  };
}

if (process.argv[1]?.endsWith('serialized.ts')) {
  console.log(JSON.stringify(await serializedFigures(Number(process.argv[2] ?? 5)), null, 2));
}
