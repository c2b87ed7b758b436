// The BENCHMARKS.md section "Under the like-GitHub model" (issue 35): the matrix and the for_each fan-out run
// against the local GitHub behaving as GitHub does under load (test/support/README.md: contents writes take
// 300 ms and race per branch, a quarter of reads by branch name 2 s stale, 80 content-creating requests a
// minute). `npx tsx bench/load-report.ts` measures this section alone and writes it into docs/BENCHMARKS.md in
// place; `npm run bench` measures it with the rest.
import { fileURLToPath } from 'node:url';
import { type WavesCost, wavesCost } from './for-each.js';
import { fanGraph, type MatrixCost, type MatrixOptions, matrixCost } from './matrix.js';
import { BENCHMARKS_MD, writeSection } from './section.js';

const HEADING = '## Under the like-GitHub model: fan-outs against GitHub as it is under load';
/** A GITHUB_TOKEN's hour: requests per repository, and GitHub's content-creating allowance. */
const HOURLY = 1_000;
const CONTENT_HOURLY = 500;

/**
 * The model's defaults, but the hour's 500 content-creating requests counted rather than enforced: a fan-out over
 * it would wait out the hour, and this section reports by how much it is over instead.
 */
const MODEL: MatrixOptions = {
  likeGitHub: { secondaryLimit: { writesPerMinute: 80 } },
  writeIntervalMs: 1000,
  retryBaseMs: 1000,
  report: true,
  planDispatch: true,
};

/**
 * What the figures of the last measurement mean (2026-12-01, 2 shared cores), kept with the section. A fan-out
 * that stops (a step failed) is cut at that wave: its requests per step divide by every item, run or not.
 */
const NOTES = [
  "Reading the rows (measured 2026-12-02, 2 shared cores): where a matrix step's requests went, by kind. Each job",
  'dispatching its own node (before `dispatch: ready`, measured the same day): 145 requests for 20 steps (7.3 a step):',
  '75 journal reads, 40 writes that landed (a dispatch and a record a step), 17 refused, 13 progress comment edits',
  '(a job recording before the others dispatched saw none in flight and drew the comment). The floor was 4 a step,',
  'and each refused write cost the write and a read again. The plan now dispatches the wave (`dispatch: ready`):',
  "its one write journals every ready node's NodeDispatched, naming the workflow run attempt, before any job",
  "starts; each job reads the journal at the plan's commit (`journal-sha`: exact, never stale), takes its",
  "dispatch, runs, and writes only its record at its place in the wave's line-up (one 2 s slot a job on the clock,",
  '`lineUpWait` in src/runner/journal-io/pacing.ts). 20 steps then cost 88 requests (one run): 55 journal reads (20 at the',
  "plan's commit, 20 before the record, 15 again after a refusal or a stale answer), 20 records, 12 refused, 1",
  'progress comment edit (the last record). The floor is 3 a step (the read at the commit; a contents write names',
  'the blob sha, so a read by branch before it; the write) and 1 content-creating; the refusals left are records',
  'written after a read GitHub answered from the past (it lacked the record of the slot before, and a job cannot',
  'tell that answer stale: it knows only its own events), and branch races; a branch-moved 409 is read again at',
  'the head it names, exactly. The for_each waves cost the same per instance step, and a 200-item fan-out stays',
  "under both of one GITHUB_TOKEN hour's allowances, spread over minutes (about 40 content-creating a minute).",
  'Weighed and not built: a ref per fan-out instance through the git data API never races, but its first write',
  'is 3 content-creating requests (tree, commit, ref), 600 for 200 items before the plan joins and deletes them,',
  'and every reader (plan, App, comment mode, CLI) would have to list the instance refs; the wave costs 1 an',
  'instance. Fewer refusals alone (re-reading at the sha a 409 names, pacing) could not reach 6: with each job',
  'dispatching its own node the floor is 4 a step, and of the 17 refusals above only 5 were branch races.',
  '',
];

const n = (x: number) => x.toLocaleString('en');
const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

function matrixRow(r: MatrixCost): string {
  const m = r.matrix;
  return `| ${r.steps} parallel matrix steps | ${n(m.total)} (**${r.perStep.toFixed(1)}**) | ${m.contentCreating} | ${m.conflicts} | ${r.model.racedWrites} | ${r.model.staleAnswers} | ${m.throttled} | ${s(r.ms)} | ${r.failedSteps.length} | ${r.lost} / ${r.dispatchedTwice} |`;
}

function wavesRow(r: WavesCost): string {
  const i = r.instances;
  return `| for_each of ${r.items} in waves of ${r.maxParallel} (${r.planSteps} plans, the join) | ${n(r.total)} (**${r.perInstanceStep.toFixed(1)}** an instance step) | ${n(r.contentCreating)} | ${i.conflicts + r.plans.conflicts + r.join.conflicts} | ${r.model.racedWrites} | ${r.model.staleAnswers} | ${i.throttled + r.plans.throttled + r.join.throttled} | ${s(r.ms)} | ${r.failedSteps.length} | ${r.problems.filter((p) => !p.includes(': exit ')).join('; ') || '0 / 0'} |`;
}

/** Measures the 20-step matrix and the 100- and 200-item for_each (quick: 3 and 6 items) and writes the section. */
export async function loadSection(quick: boolean): Promise<string[]> {
  const g = fanGraph(quick ? 3 : 20);
  const opts: MatrixOptions = quick ? { ...MODEL, writeIntervalMs: 0, retryBaseMs: 5 } : MODEL;
  const matrix = await matrixCost(g.text, g.nodes, { ...opts, join: ['join'] });
  const sizes = quick ? [4] : [100, 200];
  const waves: WavesCost[] = [];
  for (const items of sizes) waves.push(await wavesCost(items, quick ? 3 : 20, opts));
  const big = waves.at(-1)!;
  const perStep = matrix.perStep;
  return [
    HEADING,
    '',
    'The matrix and for_each benchmarks above, run again against the local GitHub with the like-GitHub model on',
    '(test/support/README.md): a contents write takes 300 ms on the server and fails 409 when its branch moved',
    'meanwhile, a quarter of reads by branch name answer from the branch as it stood 2 s before, and 80',
    "content-creating requests a minute per token (403 with `retry-after` past them; the hour's 500 are counted",
    'here, not enforced, so a run over them shows by how much instead of waiting out the hour). Writes are spaced',
    `1,000 ms apart in each job; each run's journal is on its own branch (\`interlock-journal-runs/<run-id>\`).`,
    "Each plan dispatches its wave (`dispatch: ready`) and its jobs read the journal at the plan's commit",
    '(`journal-sha`), as the fan-out recipe does. `bench/load-report.ts` measures this section alone.',
    '',
    '| fan-out | requests (per step) | content-creating | journal writes refused (409/422) | of them raced (branch moved) | stale answers | refused for the limit | wall time | failed steps | lost / dispatched twice |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    matrixRow(matrix),
    ...waves.map(wavesRow),
    '',
    `**Target: 20 parallel matrix steps at most 6 requests a step, 20 of 20 recorded once: ${perStep <= 6 && matrix.failedSteps.length === 0 && matrix.lost === 0 ? 'met' : 'not met'}** (${perStep.toFixed(1)} a step, ${matrix.failedSteps.length} failed).`,
    `**Target: a 200-item fan-out within ${n(HOURLY)} requests and ${CONTENT_HOURLY} content-creating (one GITHUB_TOKEN hour), every item recorded once: ${big.total <= HOURLY && big.contentCreating <= CONTENT_HOURLY && big.problems.length === 0 ? 'met' : 'not met'}** (${n(big.total)} requests, ${n(big.contentCreating)} content-creating, ${big.failedSteps.length} failed steps).`,
    '',
    ...NOTES,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.env.BENCH_QUICK === '1';
  const out = process.env.BENCH_OUT ?? BENCHMARKS_MD;
  writeSection(await loadSection(quick), out);
  console.log(`wrote ${out}`);
}
