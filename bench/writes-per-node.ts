// Journal writes per node in `node: all`: the bundled action runs a linear graph of N nodes in one step against
// the local GitHub, with the client's real write spacing, and the server counts the journal's PUTs.
import { makeWorkspace, runStep } from '../test/support/action-process.js';
import { startGitHubServer } from '../test/support/github-server.js';

export interface WritesPerNode {
  nodes: number;
  /** PUTs of the journal file over the whole step, the one refused while the journal branch is created included. */
  journal_puts: number;
  /** PUTs that landed (2xx): the journal writes. */
  journal_writes: number;
  /** Journal writes per node. */
  per_node: number;
  /** Wall time of the step, with GitHub's one-second spacing between writes. */
  step_ms: number;
}

function linearGraph(n: number): string {
  const lines = ['interlock: 1', 'name: chain', 'nodes:'];
  for (let i = 0; i < n; i++) {
    lines.push(`  - id: n${i}`);
    if (i > 0) lines.push(`    depends_on: [n${i - 1}]`);
    lines.push(`    run: echo ${i} > n${i}.txt`, `    validates: [{ file: n${i}.txt }]`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `node: all` over an N-node chain once and counts the journal writes. */
export async function writesPerNode(n = 10, writeIntervalMs = 1000): Promise<WritesPerNode> {
  // Exact request counts of one step at a time: the like-GitHub model (stale reads read again, the limit's
  // refusals) is off here; the fan-outs under it are bench/load-report.ts's.
  const server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }], likeGitHub: false });
  try {
    const ws = makeWorkspace({ 'g.yml': linearGraph(n) });
    const mark = server.requests.mark();
    const t0 = performance.now();
    const r = await runStep({
      apiUrl: server.url,
      repository: 'acme/widgets',
      workspace: ws,
      eventName: 'workflow_dispatch',
      payload: {},
      inputs: { graph: 'g.yml', node: 'all', 'run-id': 'chain/bench' },
      job: { runId: 1 },
      env: { INTERLOCK_WRITE_INTERVAL_MS: String(writeIntervalMs) },
    });
    const step_ms = performance.now() - t0;
    if (r.code !== 0 || !r.outputs.checkpoint?.includes(`"status":"completed"`))
      throw new Error(`bench step did not complete the run: ${r.stderr || r.stdout}`);
    const puts = server.requests
      .filter({ since: mark, method: 'PUT' })
      .filter((q) => /\/contents\/runs\//.test(q.path));
    const writes = puts.filter((q) => q.status >= 200 && q.status < 300).length;
    return { nodes: n, journal_puts: puts.length, journal_writes: writes, per_node: writes / n, step_ms };
  } finally {
    await server.close();
  }
}

if (process.argv[1]?.endsWith('writes-per-node.ts')) {
  const n = Number(process.argv[2] ?? 10);
  console.log(JSON.stringify(await writesPerNode(n), null, 2));
}
