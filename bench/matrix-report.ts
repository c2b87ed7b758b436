// The BENCHMARKS.md section for bench/matrix.ts: a matrix fan-out's GitHub requests per node step, and whether a
// 200-node fan-out fits a GITHUB_TOKEN's hour.
import { fanGraph, type MatrixCost, matrixCost, type RequestCounts } from './matrix.js';

/** GitHub's figures for a GITHUB_TOKEN: requests an hour per repository, content-creating requests an hour. */
const HOURLY = 1_000;
const CONTENT_HOURLY = 500;

/**
 * Measured once with this script against the bundle before the change (commit 073f2a2's dist/, through
 * `matrixCost`'s `dist` option), on 2026-12-01: the "before" column.
 */
const BEFORE: Record<number, { total: number; conflicts: number; probes: number }> = {
  5: { total: 141, conflicts: 43, probes: 10 },
  20: { total: 1_953, conflicts: 402, probes: 1_022 },
};

const others = (c: RequestCounts) =>
  Object.entries(c.others)
    .map(([k, n]) => `${n} × \`${k}\``)
    .join(', ') || 'none';

function row(r: MatrixCost): string {
  const m = r.matrix;
  const by = Object.entries(m.conflictsBy)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const before = BEFORE[r.steps];
  return `| ${r.steps} | ${m.total} (${r.perStep.toFixed(1)}) | ${before ? `${before.total} (${(before.total / r.steps).toFixed(1)})` : ''} | ${m.journalGets} | ${m.journalWrites} | ${m.conflicts}${by ? ` (${by})` : ''} | ${m.jobsProbes} | ${others(m)} | ${m.contentCreating} | ${Math.round(r.bytesPerWrite.mean).toLocaleString('en')} / ${r.bytesPerWrite.max.toLocaleString('en')} | ${r.lost} / ${r.dispatchedTwice} | ${(r.ms / 1000).toFixed(1)} s |`;
}

/** Measures N = 5, 10, 20 (quick: 2, 3) and writes the section's lines. */
export async function matrixSection(quick: boolean): Promise<string[]> {
  const sizes = quick ? [2, 3] : [5, 10, 20];
  const writeIntervalMs = quick ? 0 : 1000;
  const results: MatrixCost[] = [];
  for (const n of sizes) {
    const g = fanGraph(n);
    results.push(await matrixCost(g.text, g.nodes, { join: ['join'], writeIntervalMs }));
  }
  const widest = results.at(-1)!;
  const g = fanGraph(quick ? 3 : 20);
  const limited = quick
    ? undefined
    : await matrixCost(g.text, g.nodes, {
        join: ['join'],
        writeIntervalMs,
        writesPerMinute: 80,
        retryBaseMs: 1000,
      });
  const perStep = widest.perStep;
  const waves = Math.ceil(200 / widest.steps);
  const planCost = widest.plan.total;
  const joinCost = widest.join.total;
  const fanout200 = Math.round(waves * planCost + 200 * perStep + joinCost);
  const content200 = Math.round(
    waves * widest.plan.contentCreating +
      (200 * widest.matrix.contentCreating) / widest.steps +
      widest.join.contentCreating,
  );
  const fits = fanout200 <= HOURLY;
  const lines = [
    '## A matrix fan-out: GitHub requests per node step',
    '',
    'A plan job, then N jobs of one workflow run started together, as a matrix starts them, each running one',
    "`node: <name>` step (`dist/index.js` as a child process with a runner's environment, default isolation), then",
    'the join in a job of its own, against the local GitHub, which counts every request by route',
    `(\`bench/matrix.ts\`: \`matrixCost(graphText, stepNodes, { join })\` takes any graph). Writes are spaced ${writeIntervalMs} ms`,
    "apart in each job, as GitHub asks. Requests are the matrix jobs' only; the plan and the join are counted apart.",
    'Conflicts are journal PUTs refused because the journal moved on: each costs the refused PUT and a read.',
    '',
    '| jobs | requests (per step) | before (per step) | journal GETs | journal writes | conflicts | job listings | others | content-creating | bytes per journal write (mean / max) | lost / dispatched twice | wall time |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...results.map(row),
    '',
    `The plan step: ${widest.plan.total} requests (it starts the run: the journal branch, the journal and the progress comment);`,
    `the join: ${widest.join.total}.`,
    '',
  ];
  if (limited) {
    lines.push(
      `With the local GitHub enforcing the secondary limit (80 content-creating requests a minute per token, 403 with`,
      '`retry-after` past it) and the client waiting each `retry-after` out in full:',
      '',
      '| jobs | requests (per step) | refused for the limit (403/429) | lost / dispatched twice | failed steps | wall time |',
      '| --- | --- | --- | --- | --- | --- |',
      `| ${limited.steps} | ${limited.matrix.total} (${limited.perStep.toFixed(1)}) | ${limited.matrix.throttled} | ${limited.lost} / ${limited.dispatchedTwice} | ${limited.failedSteps.length} | ${(limited.ms / 1000).toFixed(1)} s |`,
      '',
    );
  }
  lines.push(
    'The "before" column was measured once with this script against the bundle before these changes (commit',
    "073f2a2's `dist/`, through `matrixCost`'s `dist` option): at 20 jobs, 1,022 of its 1,953 requests were the",
    'job listing, and 402 were refused journal writes. What changed, each tried against the bundle before it:',
    '',
    '- Recovery listed the jobs of the run attempt once for every in-flight node at every try of the commit. A step',
    '  now lists each run attempt once (`actionsProbes`, `src/runner/recovery/actions-probe.ts`) and answers every node and',
    '  every retry from it (a listing older than a dispatch never proves that dispatch gone), and a step for one node',
    '  (a matrix job) recovers only that node and what it depends on; the plan and `node: next`/`all` recover the rest.',
    "- `plan` stores the run's start, so the matrix jobs no longer each create the journal branch (four requests) and",
    '  look for the progress comment; they find its id in the journal.',
    "- A commit reads only once the client's write spacing lets its write go (a read and then a wait of up to a",
    '  second was stale when the write went), and a record reads afresh when other nodes were in flight rather than',
    '  write on the state its dispatch left (almost always refused in a matrix). After a conflict the wait is full',
    '  jitter over a round trip for each node ready or in flight, doubled with each conflict.',
    '- A node recorded while others are in flight leaves the progress comment to the last of them to record.',
    '',
    'What is left is the floor of one journal file that every job rewrites: a read and a write to dispatch, a read',
    'and a write to record, and the first round of a matrix, where the jobs read the same version and all but one',
    'of their dispatches are refused. A journal per node (or instance), joined by the parent, would take the',
    "conflicts and the reads of the others' events away and bound the bytes of a write by the node's own events;",
    'it is not built (the bytes per write above still grow with the run).',
    '',
    `**Target: at most 4 requests per step at 20 in parallel, conflicts included: ${perStep <= 4 ? 'met' : 'not met'}** (${perStep.toFixed(1)} measured).`,
    `**A 200-node fan-out on a GITHUB_TOKEN (${HOURLY.toLocaleString('en')} requests an hour per repository)**: in ${waves} waves of`,
    `${widest.steps} (a plan job before each), the join after: ${waves} × ${planCost} + 200 × ${perStep.toFixed(1)} + ${joinCost} ≈`,
    `${fanout200.toLocaleString('en')} requests, of them about ${content200} content-creating (GitHub's secondary limit: ${CONTENT_HOURLY} an`,
    `hour): ${fits && content200 <= CONTENT_HOURLY ? 'it fits in one hour' : `it does not fit in one hour${fits ? ' (the content-creating requests are over the limit)' : ''}; spread over ${Math.ceil(Math.max(fanout200 / HOURLY, content200 / CONTENT_HOURLY))} hours it would`}.`,
    '',
  );
  return lines;
}
