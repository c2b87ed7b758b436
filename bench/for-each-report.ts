// The BENCHMARKS.md section for bench/for-each.ts: a for_each fan-out in waves of matrix jobs, its GitHub requests
// per instance step and in all, against the bundle before the cuts in the same run; whether a 200-item fan-out
// fits a GITHUB_TOKEN's hour; the wall time of a 1,000-item plan.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planTime, type WavesCost, wavesCost } from './for-each.js';
import type { RequestCounts } from './matrix.js';

/** GitHub's figures for a GITHUB_TOKEN: requests an hour per repository; content-creating requests an hour. */
const HOURLY = 1_000;
const CONTENT_HOURLY = 500;
/** The bundle the cuts are measured against: main before them (#28), its dist/ taken out of git in this run. */
const BEFORE_COMMIT = '0936739';

/** BEFORE_COMMIT's dist/ in a directory of its own, or undefined when git cannot give it (no history here). */
function distAt(commit: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-bench-dist-'));
  const root = new URL('..', import.meta.url).pathname;
  try {
    const tar = execFileSync('git', ['archive', commit, 'dist'], { cwd: root, maxBuffer: 64 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    return join(dir, 'dist');
  } catch {
    return undefined;
  }
}

const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
const perStep = (r: WavesCost) => r.perInstanceStep.toFixed(2);
const refused = (c: RequestCounts) =>
  Object.entries(c.refusedBefore)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([k, n]) => `${n} × ${k}`)
    .join(', ');

function row(label: string, r: WavesCost): string {
  const i = r.instances;
  const first = r.waves[0]!;
  const last = r.waves.at(-1)!;
  const by = Object.entries(i.conflictsBy)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const others = Object.values(i.others).reduce((a, b) => a + b, 0);
  return `| ${label} | ${r.items} | ${r.waves.length} | ${i.total} (**${perStep(r)}**) | ${i.journalGets} / ${i.journalWrites} | ${i.conflicts}${by ? ` (${by})` : ''} | ${refused(i)} | ${others} | ${r.plans.total} (${r.planSteps}) | ${r.join.total} | **${r.total}** (${r.contentCreating}) | ${kb(first.bytes.mean)} / ${kb(last.bytes.mean)} | ${(r.ms / 1000).toFixed(0)} s |`;
}

/** The instance steps' requests by route, now and (when measured) before: where they go, and what the cuts took. */
function byRoute(now: WavesCost, before: WavesCost | undefined): string[] {
  const routes = (c: RequestCounts): Record<string, number> => ({
    'GET …/contents/runs/… (journal reads)': c.journalGets,
    'PUT …/contents/runs/…, landed': c.journalWrites,
    'PUT …/contents/runs/…, refused (409/422)': c.conflicts,
    'GET …/actions/runs/{run_id}/attempts/{n}/jobs (recovery)': c.jobsProbes,
    ...Object.fromEntries(Object.entries(c.others).map(([k, n]) => [`\`${k}\``, n])),
  });
  const a = routes(now.instances);
  const b = before ? routes(before.instances) : {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  const per = (n: number | undefined, r: WavesCost) => `${n ?? 0} (${((n ?? 0) / r.items).toFixed(2)})`;
  return [
    `| instance steps' requests by route (per step) | ${before ? 'before | ' : ''}now |`,
    `| --- | ${before ? '--- | ' : ''}--- |`,
    ...keys.map((k) => `| ${k} | ${before ? `${per(b[k], before)} | ` : ''}${per(a[k], now)} |`),
  ];
}

export interface ForEachFigures {
  items: number;
  parallel: number;
  writeIntervalMs: number;
  /** The same fan-out through the bundle before (absent in quick mode, or without git history). */
  before?: WavesCost;
  now: WavesCost;
  /** The wider fan-out, against a GITHUB_TOKEN's hour. */
  wide: WavesCost;
  planItems: number;
  plan: { ms: number; requests: number; bytes: number };
  /** The same plan with no spacing between its writes: its own work. */
  planUnspaced: { ms: number };
}

/** Measures the fan-out (quick: 4 and 6 items, 2 at a time, no spacing, no baseline). */
export async function forEachFigures(quick: boolean): Promise<ForEachFigures> {
  const items = quick ? 4 : 100;
  const parallel = quick ? 2 : 20;
  const writeIntervalMs = quick ? 0 : 1000;
  const dist = quick ? undefined : distAt(BEFORE_COMMIT);
  const before = dist ? await wavesCost(items, parallel, { writeIntervalMs, dist }) : undefined;
  const now = await wavesCost(items, parallel, { writeIntervalMs });
  const wide = await wavesCost(quick ? 6 : 200, parallel, { writeIntervalMs });
  const planItems = quick ? 20 : 1_000;
  const plan = await planTime(planItems, { writeIntervalMs });
  const planUnspaced = await planTime(planItems, { writeIntervalMs: 0 });
  return {
    items,
    parallel,
    writeIntervalMs,
    ...(before ? { before } : {}),
    now,
    wide,
    planItems,
    plan,
    planUnspaced,
  };
}

/** Measures the fan-out and writes the section's lines. */
export async function forEachSection(quick: boolean): Promise<string[]> {
  return forEachLines(await forEachFigures(quick));
}

/** The section's lines for figures measured (by `forEachFigures`). */
export function forEachLines(f: ForEachFigures): string[] {
  const { items, parallel, writeIntervalMs, before, now, wide, planItems, plan, planUnspaced } = f;
  const big = wide.items;
  const rows: Array<[string, WavesCost]> = [
    ...(before ? [[`before (${BEFORE_COMMIT})`, before] as [string, WavesCost]] : []),
    ['now', now],
    ['now', wide],
  ];
  const met = now.perInstanceStep <= 4;
  const fits = wide.total <= HOURLY;
  const contentFits = wide.contentCreating <= CONTENT_HOURLY;
  const hours = Math.ceil(Math.max(wide.total / HOURLY, wide.contentCreating / CONTENT_HOURLY));
  // Bounded: the last wave's writes no more than a quarter bigger than the first's, however many waves came between.
  const growth = now.waves.at(-1)!.bytes.mean / now.waves[0]!.bytes.mean;
  const perWave = now.waves.map((w) => `${w.requests.total}`).join(', ');
  return [
    '## A for_each fan-out in waves: instances as matrix jobs',
    '',
    `A for_each node over a literal list (\`max_parallel: ${parallel}\`) and an integrator after it, run as the recipe's`,
    'workflow runs it (`bench/for-each.ts`): a `mode: plan` step expands the list and lists the ready instances (at',
    `most ${parallel}); those run together as matrix jobs of one workflow run, each \`node: work[tK]\` (\`dist/index.js\` as`,
    `a child process, default isolation, writes spaced ${writeIntervalMs} ms apart in each job); then a plan again, until`,
    'the plan joins `work` and lists `integrate`, which runs in a job of its own, and a last plan lists nothing. The',
    'local GitHub counts every request by route. The benchmark fails, saying which, if an instance is dispatched',
    'twice or not recorded exactly once, `work` is not joined once, `integrate` does not run once, the run does',
    'not complete, or any step fails: in every row below none did.',
    '',
    '| bundle | items | waves | instance steps: requests (per step) | journal GETs / landed writes | conflicts | landed writes by refusals before | other requests | plans (steps) | join | in all (content-creating) | bytes per landed write, first / last wave (mean) | wall time |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(([label, r]) => row(label, r)),
    '',
    `Per wave of the ${items}-item run (now), requests of its ${parallel} instance steps: ${perWave}. "Landed writes by`,
    'refusals before" counts the dispatches and records by how many refused PUTs of the same write came first: a',
    "write refused once met the other jobs' first round (all of them read the same version, one write lands); more",
    'than once, the retries met again.',
    '',
    ...byRoute(now, before),
    '',
    `**Target: at most 4 GitHub requests per instance step at ${parallel} in parallel, conflicts included: ${met ? 'met' : 'not met'}** (${perStep(now)} measured${before ? `, ${perStep(before)} before` : ''}).`,
    `**Bytes per journal write bounded by the item's own events, not the number of items: ${growth <= 1.25 ? 'met' : 'not met'}**: a landed write`,
    `of the first wave sends ${kb(now.waves[0]!.bytes.mean)} on average, of the last ${kb(now.waves.at(-1)!.bytes.mean)} (max ${kb(now.waves.at(-1)!.bytes.max)}); every write`,
    'sends the whole journal, which holds the expansion and every instance event so far.',
    `**A ${big}-item fan-out on a GITHUB_TOKEN (${HOURLY.toLocaleString('en')} requests an hour per repository)**, plans and join`,
    `included: ${wide.total.toLocaleString('en')} requests, ${wide.contentCreating} of them content-creating (GitHub's secondary limit: ${CONTENT_HOURLY} an hour):`,
    fits && contentFits
      ? 'it fits in one hour.'
      : `it does not fit in one hour${fits ? ' (the content-creating requests are over their limit)' : ''}; spread over ${hours} hours it would.`,
    '',
    `**A \`plan\` step expanding ${planItems.toLocaleString('en')} items**: ${(plan.ms / 1000).toFixed(1)} s wall time (the process, from spawn to exit,`,
    `against the local GitHub), ${plan.requests} requests, the expansion's write ${plan.bytes.toLocaleString('en')} bytes; with no spacing between its writes`,
    `${(planUnspaced.ms / 1000).toFixed(1)} s: the rest is the client's spacing of its writes (a second between content-creating requests,`,
    "as GitHub asks: a first write of the journal refused for want of its branch, the branch's tree, commit and ref, the",
    'journal, the progress comment and its id), not the expansion.',
    '',
    ...CHANGES,
  ];
}

/** What the cuts were, what is left and why; the figures above say what each row measured. */
const CHANGES = [
  'What changed against the "before" bundle (2026-12-01), each keeping every guarantee (a dispatch journaled before',
  'its work, a compare-and-swap write for every event, no interrupted node rerun silently, no event lost):',
  '',
  '- A recorded instance leaves the progress comment to the step that lists the next wave or joins the node, which',
  '  the run cannot go on without (a failure, a hold or an escalation is still shown at once): the instance steps',
  '  no longer update the comment.',
  '- A matrix job lines up before its first write: reading with nothing in flight (the version every job of the',
  "  wave's first round reads), the node p-th among the ready ones waits p round trips and reads again, instead of",
  '  writing where all but one write are refused (a refused write and a read each). After a conflict the wait',
  "  counts from when the client's write spacing lets the write go (inside the one-second spacing it spread",
  '  nothing), and at the first conflict each writer waits its place in line.',
  '',
  'Looked at and not cut: the instance steps list no run attempt (a step for one node recovers only that node and',
  'what it depends on) and make no evidence request here; a record reads the journal afresh because the other',
  "jobs wrote since its dispatch (writing on the dispatch's answer would be refused: two requests, not one).",
  '',
  'What is left is the floor of one journal file for all: a read and a write to dispatch, a read and a write to',
  'record (4 a step), plus the conflicts of jobs that read the same version anyway (started at the same moment on',
  "this 2-core machine, where 20 processes starting at once take seconds), and the line-up's second reads. The",
  'bytes of a write grow with the waves for the same reason. A journal per instance (its dispatch and record in a',
  "file of its own, joined into the run's journal by the plan) would take the others' events out of an instance's",
  'reads and writes: not built. Two things it needs that the single file does not: the plan must admit the next',
  "wave in the run's journal (an instance job sees no sibling, so max_parallel and the run's budget are checked",
  'when admitting), and GitHub refuses a contents write with 409 when another write to the same branch moved the',
  'branch in between, even for another file ("is at … but expected …"); the local GitHub applies each write',
  'whole and never does, so a journal per instance would need those 409s modelled before its figures mean much.',
  '',
];

// `npx tsx bench/for-each-report.ts`: this section alone; BENCH_JSON=<file> keeps the figures, and
// BENCH_FROM=<file> writes the section again from figures kept.
if (process.argv[1]?.endsWith('for-each-report.ts')) {
  const from = process.env.BENCH_FROM;
  const f = from
    ? (JSON.parse(readFileSync(from, 'utf8')) as ForEachFigures)
    : await forEachFigures(process.env.BENCH_QUICK === '1');
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(f, null, 2));
  process.stdout.write(`${forEachLines(f).join('\n')}\n`);
}
