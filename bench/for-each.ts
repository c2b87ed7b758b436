// A for_each fan-out at GitHub's rate limits (issue 28): N instances of one for_each node, each a matrix job of
// one workflow run (`node: work[tK]`, dist/index.js as a runner runs it, against the local GitHub), after the
// `mode: plan` step that expands the list and before the join (`integrate`), through bench/matrix.ts; and the
// wall time of the `plan` step that expands a list of 1,000 items.
import { performance } from 'node:perf_hooks';
import { type MatrixCost, matrixCost } from './matrix.js';

/** A for_each node over a list of `n` tasks (literal, so `plan` can expand it), and an integrator after it. */
export function forEachGraph(n: number, maxParallel = n): { text: string; instances: string[] } {
  const keys = Array.from({ length: n }, (_, i) => `t${i + 1}`);
  const text = `interlock: 1
name: fan
nodes:
  - id: work
    for_each: \${{ fromJSON('${JSON.stringify(keys)}') }}
    key: \${{ item }}
    max_parallel: ${maxParallel}
    max_items: 1000
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> "$EFFECTS"
  - id: integrate
    depends_on: [work]
    run: echo join >> "$EFFECTS"
`;
  return { text, instances: keys.map((k) => `work[${k}]`) };
}

export interface ForEachScale {
  /** n instances run as n matrix jobs at once. */
  fanOut: MatrixCost;
  /** The plan step that expands `planItems` items (its matrix is empty: no instance runs). */
  planItems: number;
  planMs: number;
  planRequests: number;
  /** Bytes of the journal write that holds the expansion. */
  planBytes: number;
}

export async function forEachScale(
  n: number,
  planItems: number,
  writeIntervalMs = 1000,
): Promise<ForEachScale> {
  const g = forEachGraph(n);
  // The join is left out: `integrate` becomes ready only after a later `plan` step joins the instances.
  const fanOut = await matrixCost(g.text, g.instances, { writeIntervalMs });
  const big = forEachGraph(planItems, 20);
  const t0 = performance.now();
  const planned = await matrixCost(big.text, [], { writeIntervalMs });
  return {
    fanOut,
    planItems,
    planMs: performance.now() - t0,
    planRequests: planned.plan.total,
    planBytes: planned.bytesPerWrite.max,
  };
}

if (process.argv[1]?.endsWith('for-each.ts')) {
  const r = await forEachScale(Number(process.argv[2] ?? 20), Number(process.argv[3] ?? 1000));
  console.log(JSON.stringify({ ...r, fanOut: { ...r.fanOut } }, null, 2));
}
