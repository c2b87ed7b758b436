// A for_each fan-out in waves, as the recipe's workflow runs it (issue 28): a for_each node over `items` items
// with `max_parallel`; a `mode: plan` step expands the list and lists the next ready instances (at most
// max_parallel), those instances run as parallel matrix jobs of one workflow run (`node: work[tK]`, dist/index.js
// as a runner runs it, against the local GitHub), and again, until the plan joins the node and lists `integrate`,
// which runs in a job of its own, and a last plan lists nothing. Every request is counted by route
// (bench/matrix.ts). A lost event, an instance dispatched twice or a failed step fails the benchmark.
import { performance } from 'node:perf_hooks';
import { runStep, startStep } from '../test/support/action-process.js';
import type { LoadStats } from '../test/support/github-server.js';
import {
  counts,
  journalEvents,
  landedWriteBytes,
  type MatrixOptions,
  matrixWorld,
  OWNER,
  REPO,
  type RequestCounts,
  WORKFLOW_RUN_ID,
  waveInputs,
} from './matrix.js';

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
    max_items: ${Math.max(n, 1)}
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> "$EFFECTS"
  - id: integrate
    depends_on: [work]
    run: echo join >> "$EFFECTS"
`;
  return { text, instances: keys.map((k) => `work[${k}]`) };
}

export interface Wave {
  instances: number;
  requests: RequestCounts;
  /** Bytes of each landed journal write of the wave's instance steps. */
  bytes: { mean: number; max: number; writes: number };
  ms: number;
}

export interface WavesCost {
  items: number;
  maxParallel: number;
  waves: Wave[];
  /** Every plan step (the first expands, the later ones list the next wave; one joins). */
  plans: RequestCounts;
  planSteps: number;
  /** Every instance step of every wave, summed. */
  instances: RequestCounts;
  perInstanceStep: number;
  /** The integrator's step. */
  join: RequestCounts;
  /** Plans, instance steps and the join. */
  total: number;
  contentCreating: number;
  ms: number;
  /** What the like-GitHub model did over the whole run (stale answers, raced writes, limited requests). */
  model: LoadStats;
  /** Steps that did not exit 0. */
  failedSteps: string[];
  /** What went wrong (failed steps, the journal's problems); only with `report`, else the benchmark throws. */
  problems: string[];
}

const sum = (cs: RequestCounts[]): RequestCounts => {
  const out = counts([]);
  for (const c of cs) {
    for (const k of ['total', 'journalGets', 'journalWrites', 'conflicts', 'jobsProbes'] as const)
      out[k] += c[k];
    out.contentCreating += c.contentCreating;
    out.throttled += c.throttled;
    for (const [k, n] of Object.entries(c.conflictsBy)) out.conflictsBy[k] = (out.conflictsBy[k] ?? 0) + n;
    for (const [k, n] of Object.entries(c.others)) out.others[k] = (out.others[k] ?? 0) + n;
    for (const [k, n] of Object.entries(c.refusedBefore))
      out.refusedBefore[k] = (out.refusedBefore[k] ?? 0) + n;
  }
  return out;
};

const bytesOf = (xs: number[]) => ({
  mean: xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length),
  max: Math.max(0, ...xs),
  writes: xs.length,
});

/** What went wrong in the journal the run left: instances lost or dispatched twice, the join not once. */
function problems(events: Array<{ type: string; node?: string }>, instances: string[]): string[] {
  const of = (t: string, id: string) => events.filter((e) => e.type === t && e.node === id).length;
  const out: string[] = [];
  const twice = instances.filter((id) => of('NodeDispatched', id) > 1);
  const lost = instances.filter((id) => of('NodeRecorded', id) !== 1);
  if (twice.length) out.push(`${twice.length} instance(s) dispatched twice: ${twice.slice(0, 5).join(', ')}`);
  if (lost.length) out.push(`${lost.length} instance(s) not recorded once: ${lost.slice(0, 5).join(', ')}`);
  if (of('NodeJoined', 'work') !== 1) out.push(`"work" joined ${of('NodeJoined', 'work')} times`);
  if (of('NodeRecorded', 'integrate') !== 1)
    out.push(`"integrate" recorded ${of('NodeRecorded', 'integrate')} times`);
  if (!events.some((e) => e.type === 'RunCompleted')) out.push('the run did not complete');
  return out;
}

/** Runs the whole fan-out in waves; throws, saying what, when an event was lost or an instance ran twice. */
export async function wavesCost(
  items: number,
  maxParallel: number,
  options: MatrixOptions = {},
): Promise<WavesCost> {
  const g = forEachGraph(items, maxParallel);
  const w = await matrixWorld(
    g.text,
    [
      { name: 'plan', runner_name: 'runner-plan' },
      ...g.instances.map((id, i) => ({ name: `fanout (${id})`, runner_name: `runner-${i + 1}` })),
      { name: 'join', runner_name: 'runner-join' },
    ],
    options,
  );
  const { server, job, check } = w;
  const plans: RequestCounts[] = [];
  const waves: Wave[] = [];
  let join: RequestCounts | undefined;
  const t0 = performance.now();
  try {
    for (let round = 0; ; round++) {
      if (round > items / maxParallel + 4) throw new Error(`no end after ${round} plan steps`);
      let mark = server.requests.mark();
      const plan = await runStep(job('plan', 'runner-plan', waveInputs(options).plan));
      check(`plan ${round + 1}`, plan);
      plans.push(counts(server.requests.filter({ since: mark })));
      const ready = JSON.parse(plan.outputs.ready ?? '[]') as string[];
      if (ready.length === 0 || w.failed.length) break;
      mark = server.requests.mark();
      const started = performance.now();
      if (ready.every((id) => id.startsWith('work['))) {
        const runs = await Promise.all(
          ready.map(
            (id) =>
              startStep(
                job(
                  'fanout',
                  `runner-${g.instances.indexOf(id) + 1}`,
                  waveInputs(options).job(id, plan.outputs),
                ),
              ).done,
          ),
        );
        for (const [i, r] of runs.entries()) check(ready[i]!, r);
        const reqs = server.requests.filter({ since: mark });
        const ms = performance.now() - started;
        waves.push({
          instances: ready.length,
          requests: counts(reqs),
          bytes: bytesOf(landedWriteBytes(reqs)),
          ms,
        });
        server.state.repo(`${OWNER}/${REPO}`).updateWorkflowRun(WORKFLOW_RUN_ID, {
          jobs: ready.map((id) => ({ name: `fanout (${id})`, status: 'completed', conclusion: 'success' })),
        });
      } else {
        for (const id of ready)
          check(id, await runStep(job('join', 'runner-join', waveInputs(options).job(id, plan.outputs))));
        join = sum([join ?? counts([]), counts(server.requests.filter({ since: mark }))]);
      }
    }
    const wrong = [...w.failed, ...problems(journalEvents(server), g.instances)];
    if (wrong.length && !options.report) throw new Error(`for_each fan-out of ${items}: ${wrong.join('; ')}`);
    const instances = sum(waves.map((x) => x.requests));
    const planSum = sum(plans);
    const joinSum = join ?? counts([]);
    return {
      items,
      maxParallel,
      waves,
      plans: planSum,
      planSteps: plans.length,
      instances,
      perInstanceStep: instances.total / items,
      join: joinSum,
      total: planSum.total + instances.total + joinSum.total,
      contentCreating: planSum.contentCreating + instances.contentCreating + joinSum.contentCreating,
      ms: performance.now() - t0,
      model: { ...server.model.stats },
      failedSteps: w.failed,
      problems: wrong,
    };
  } finally {
    await w.close();
  }
}

/** The wall time of the `plan` step that expands a list of `items` (the list journaled, 20 listed ready). */
export async function planTime(
  items: number,
  options: MatrixOptions = {},
): Promise<{ ms: number; requests: number; bytes: number }> {
  const g = forEachGraph(items, 20);
  const w = await matrixWorld(g.text, [{ name: 'plan', runner_name: 'runner-plan' }], options);
  try {
    const t0 = performance.now();
    const r = await runStep(w.job('plan', 'runner-plan', { mode: 'plan' }));
    const ms = performance.now() - t0;
    w.check('plan', r);
    const listed = JSON.parse(r.outputs.ready ?? '[]') as string[];
    if (w.failed.length || listed.length !== Math.min(20, items))
      throw new Error(`the plan of ${items} items: ${w.failed.join('; ') || `listed ${listed.length}`}`);
    const reqs = w.server.requests.filter({});
    return { ms, requests: reqs.length, bytes: Math.max(0, ...landedWriteBytes(reqs)) };
  } finally {
    await w.close();
  }
}

if (process.argv[1]?.endsWith('for-each.ts')) {
  const items = Number(process.argv[2] ?? 100);
  const parallel = Number(process.argv[3] ?? 20);
  const writeIntervalMs = Number(process.env.INTERLOCK_WRITE_INTERVAL_MS ?? 1000);
  const dist = process.env.BENCH_DIST;
  const r = await wavesCost(items, parallel, { writeIntervalMs, ...(dist ? { dist } : {}) });
  console.log(JSON.stringify(r, null, 2));
}
