// The suites `npm run reliability` runs (scripts/reliability.ts reads the arguments first).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../test/crash/harness.js';
import {
  caseId,
  FAULT_NAMES,
  type FaultResult,
  FLOWS,
  faultCases,
  runFaultCases,
} from '../test/reliability/api-faults.js';
import { requestsInSource, unnamed } from '../test/reliability/api-faults-coverage.js';
import {
  PAGE_FLOWS,
  type PageResult,
  pageCaseId,
  pageCases,
  recordPageFlows,
  runPageCases,
} from '../test/reliability/api-faults-page.js';
import { EFFECT_KINDS, runEffectCrashes } from '../test/reliability/crash-effects.js';
import { type Boundary, crashMatrix, type Scenario } from '../test/reliability/crash-model.js';
import { runCrashScenarios, type ScenarioResult } from '../test/reliability/crash-run.js';
import { inColumn, OUTLASTING } from '../test/reliability/hostile-deputy.js';
import { HOSTILE_GRAPHS, HOSTILE_JOURNALS } from '../test/reliability/hostile-tables.js';
import {
  actionInjection,
  branchPayload,
  cliInjection,
  type InjectionResult,
  payloads,
} from '../test/reliability/injection.js';
import { fileStoreRace, gitStoreRace, type RaceResult } from '../test/reliability/races.js';
import { type CheckRunRaceResult, checkRunStoreRace } from '../test/reliability/races-check-run.js';
import { percentiles, pool, repeatEach } from '../test/reliability/support.js';
import {
  FUZZ_SCALE,
  GREP,
  jobs,
  only,
  REPEAT,
  SUITES,
  type Suite,
  values,
  WRITERS,
} from './reliability-args.js';

const ROOT = new URL('..', import.meta.url).pathname;

/** What --grep and --repeat pick: the items whose id matches, each REPEAT times. */
const pick = <T>(items: readonly T[], id: (t: T) => string): T[] =>
  repeatEach(
    items.filter((t) => !GREP || GREP.test(id(t))),
    REPEAT,
  );
const picking = () =>
  (GREP ? ` matching /${GREP.source}/` : '') + (REPEAT > 1 ? `, each ${REPEAT} times` : '');

if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);

type Row = [suite: Suite, what: string, figure: string];
let rows: Row[] = [];
/** Lists too long for a table cell, printed beneath it, each under its suite. */
let notes: Array<[suite: Suite, text: string]> = [];
const failures: string[] = [];
const row = (suite: Suite, what: string, figure: string | number) => rows.push([suite, what, String(figure)]);
const note = (suite: Suite, text: string) => notes.push([suite, text]);
const say = (m: string) => process.stderr.write(`${m}\n`);
const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
const started = Date.now();

/** The model suite's seed: drawn once, so a part run beside the crash matrix draws the same sequences. */
const MODEL_SEED = Number(process.env.INTERLOCK_MODEL_SEED ?? String(Date.now() % 2 ** 31));
/** Which parts of the model suite this process runs (its GitHub part may run beside the crash matrix). */
let modelParts: Array<'cli' | 'github'> = values['model-part'] === 'github' ? ['github'] : ['cli', 'github'];

// --- crash points ---------------------------------------------------------------------------------------

async function crash(): Promise<void> {
  const all = pick(crashMatrix(), (s) => s.id).map((s, i, list) =>
    REPEAT > 1 ? { ...s, id: `${s.id}#${Math.floor(i / (list.length / REPEAT)) + 1}` } : s,
  );
  say(`crash: ${all.length} scenarios${picking()}, ${jobs} at a time`);
  const t0 = Date.now();
  let done = 0;
  const results = await runCrashScenarios(all, {
    jobs,
    onResult: (r) => {
      done++;
      if (r.problems.length) say(`  FAIL ${r.id}\n    ${r.problems.join('\n    ')}`);
      else if (done % 25 === 0) say(`  ${done}/${all.length}`);
    },
  });
  const ms = Date.now() - t0;
  const held = (rs: ScenarioResult[]) => `${rs.filter((r) => !r.problems.length).length} of ${rs.length}`;
  // The approval of a held node and the App's /approve-rerun and /settle come after a kill mid-command too.
  const kills = (b: Boundary) => (/^(recovery|approval|rerun):|^app:.*-(rerun|settle)-/.test(b) ? 2 : 1);
  const where = (f: (s: Scenario) => boolean) => held(results.filter((r) => f(r.scenario)));
  row('crash', 'distinct scenarios run (SIGKILL, recover, continue, check)', `${all.length}`);
  row('crash', 'scenarios that held every check', held(results));
  const slices: Array<[string, (s: Scenario) => boolean]> = [
    ['… CLI + file store', (s) => s.face === 'cli'],
    ['… Action bundle + git store (local GitHub)', (s) => s.face === 'action' && s.store === 'git'],
    ['… Action bundle + check-run store (each read and write)', (s) => s.store === 'check-run'],
    ['… App server (dist/app.js, signed deliveries, redelivered)', (s) => s.face === 'app'],
    ['… the gate (awaiting approval, /approve, the dispatch after)', (s) => s.feature === 'gate'],
    ['… the gate with guidance (once, byte for byte)', (s) => s.feature === 'guidance'],
    ['… a budget escalation (its write, the raise, the rerun)', (s) => s.feature === 'budget'],
    ["… a loop's next cycle (its write, its dispatch, its command)", (s) => s.feature === 'loop'],
    ['… a rerun from a node (its write, again or anew)', (s) => s.feature === 'rerun'],
    [
      "… node: all's one write recording a node and dispatching the next",
      (s) => s.boundary.startsWith('chain:'),
    ],
    ['… replay: never (side effect at most once, once more per approval)', (s) => s.replay === 'never'],
    ['… replay: safe (finishes with no approval)', (s) => s.replay === 'safe'],
  ];
  for (const [what, f] of slices) row('crash', what, where(f));
  const boundaries = [...new Set(all.map((s) => s.boundary))];
  row('crash', 'boundaries (listed below)', boundaries.length);
  note('crash', `Crash boundaries: ${boundaries.map((b) => `\`${b}\``).join(', ')}.`);
  row(
    'crash',
    'processes started / killed with SIGKILL',
    `${results.reduce((a, r) => a + r.processes, 0)} / ${all.reduce((a, s) => a + kills(s.boundary), 0)}`,
  );
  const p = percentiles(results.map((r) => r.ms));
  row(
    'crash',
    'time: whole matrix / per scenario p50, p95',
    `${secs(ms)} / ${(p.p50 / 1000).toFixed(1)} s, ${(p.p95 / 1000).toFixed(1)} s (${jobs} at a time)`,
  );
  for (const r of results) if (r.problems.length) failures.push(`crash ${r.id}: ${r.problems.join('; ')}`);
  await effectCrashes();
}

/** The crash matrix at an effect's requests: killed before each request, after each answer, after the effect. */
async function effectCrashes(): Promise<void> {
  const t0 = Date.now();
  const results = await runEffectCrashes(EFFECT_KINDS, {
    jobs,
    only: (chain) => !GREP || GREP.test(chain),
    onResult: (r) => r.problems.length && say(`  FAIL effect ${r.id}\n    ${r.problems.join('\n    ')}`),
  });
  const killed = results.filter((r) => r.killed);
  row(
    'crash',
    `at an effect's requests (${EFFECT_KINDS.join(', ')}): killed before each request, after each answer, after the effect`,
    `${killed.length} kills in ${results.length} scenarios, ${secs(Date.now() - t0)}`,
  );
  row(
    'crash',
    '… each effect exactly once afterwards (one commit, pull request, comment), no person asked',
    `${results.filter((r) => !r.problems.length).length} of ${results.length}`,
  );
  for (const r of results)
    if (r.problems.length) failures.push(`crash effect ${r.id}: ${r.problems.join('; ')}`);
}

// --- races ----------------------------------------------------------------------------------------------

function raceRows(r: RaceResult): void {
  const s = `${r.store} store`;
  row('races', `${s}: writers (${r.face}) on one journal / nodes`, `${r.writers} / ${r.nodes}`);
  row(
    'races',
    `${s}: events written / lost / nodes dispatched twice`,
    `${r.events} / ${r.lost} / ${r.doubleDispatched}`,
  );
  row(
    'races',
    `${s}: journal writes / compare-and-swap conflicts (re-read, re-decided)`,
    `${r.writes} / ${r.conflicts}${r.maxConflictsPerWriter !== undefined ? ` (most for one writer: ${r.maxConflictsPerWriter})` : ''}`,
  );
  if (r.store === 'file') row('races', `${s}: times a writer waited for the lock`, r.lockWaits);
  else row('races', `${s}: journal reads`, r.reads);
  row('races', `${s}: writers that failed / time`, `${r.failedWriters} / ${secs(r.ms)}`);
  for (const p of r.problems) failures.push(`races ${s}: ${p}`);
}

/** The check-run store has no compare-and-swap: its rows say what was lost and that no loss went unreported. */
function checkRunRaceRows(r: CheckRunRaceResult): void {
  const s = `check-run store, ${r.writers} Action steps on one run`;
  row(
    'races',
    `${s}: events / nodes run twice / dispatches lost / nodes unrecorded`,
    `${r.events} / ${r.ranTwice} / ${r.lostDispatches} / ${r.unrecorded}`,
  );
  row(
    'races',
    `${s}: steps that failed saying "a lost update" / for another reason`,
    `${r.detected} / ${r.otherFailures}`,
  );
  row(
    'races',
    `${s}: check-run writes / reads; the run after one more step / time`,
    `${r.writes} / ${r.reads}; ${r.finishedAs} / ${secs(r.ms)}`,
  );
  for (const p of r.problems) failures.push(`races ${s}: ${p}`);
}

async function races(): Promise<void> {
  say(`races: ${WRITERS} writers on each store`);
  raceRows(await fileStoreRace(WRITERS));
  raceRows(await gitStoreRace(WRITERS));
  for (const n of [2, 4, 8]) {
    say(`races: ${n} writers on the check-run store`);
    checkRunRaceRows(await checkRunStoreRace(n));
  }
}

// --- API faults -----------------------------------------------------------------------------------------

/** Every REST request src/ can make: the Octokit methods it calls, and the routes it requests by name. */
async function faults(): Promise<void> {
  say('faults: recording the normal flows');
  const found = await faultCases(FLOWS, { every: true, jobs });
  const { baselines, points, faulted } = found;
  const cases = pick(found.cases, caseId);
  say(`faults: ${cases.length} cases${picking()}, ${jobs} at a time`);
  const t0 = Date.now();
  let done = 0;
  const results: FaultResult[] = await runFaultCases(cases, baselines, {
    jobs,
    onResult: (r) => {
      done++;
      if (r.outcome === 'broken') say(`  BROKEN ${r.id}\n    ${r.problems.join('\n    ')}`);
      else if (done % 50 === 0) say(`  ${done}/${cases.length}`);
    },
  });
  const ms = Date.now() - t0;
  // What was faulted, not only recorded: the requests line counts a request as reached when a fault met it.
  const kinds = [...new Set(faulted.map((p) => p.kind))].sort();
  const count = (o: FaultResult['outcome'], mode?: 'once' | 'every') =>
    results.filter((r) => r.outcome === o && (!mode || r.c.mode === mode)).length;
  row('faults', 'flows recorded (normal runs; listed below)', FLOWS.length);
  note('faults', `Fault flows: ${FLOWS.join('; ')}.`);
  row(
    'faults',
    'requests in the flows / points faulted (each kind once per part that meets its failure, a journal write first and last) / distinct kinds',
    `${points.length} / ${faulted.length} / ${kinds.length}`,
  );
  row('faults', 'fault kinds (listed below)', FAULT_NAMES.length);
  note('faults', `Fault kinds: ${FAULT_NAMES.join(', ')}.`);
  note('faults', `Requests faulted: ${kinds.map((k) => `\`${k}\``).join(', ')}.`);
  row(
    'faults',
    'cases: fault once / on every try (retries run out)',
    `${results.filter((r) => r.c.mode === 'once').length} / ${results.filter((r) => r.c.mode === 'every').length}`,
  );
  row(
    'faults',
    'fault once: recovered unchanged / degraded (warning or a failed check, stated) / gave up, state stated',
    `${count('recovered', 'once')} / ${count('degraded', 'once')} / ${count('gave-up', 'once')}`,
  );
  row(
    'faults',
    'every try: recovered unchanged / degraded / gave up, state stated',
    `${count('recovered', 'every')} / ${count('degraded', 'every')} / ${count('gave-up', 'every')}`,
  );
  row(
    'faults',
    'cases that lost an event, repeated a side effect, hung, or could not be finished',
    count('broken'),
  );
  const tries = percentiles(results.map((r) => r.tries));
  row('faults', 'tries of the faulted request: p50 / max', `${tries.p50} / ${tries.max}`);
  const t = percentiles(results.map((r) => r.ms));
  row('faults', 'time: all cases / slowest case', `${secs(ms)} / ${(t.max / 1000).toFixed(1)} s`);
  const page = await pageFaults();
  const reached = new Set([...kinds, ...page].map(unnamed));
  const inSource = requestsInSource();
  const missed = inSource.filter((k) => !reached.has(unnamed(k)));
  row(
    'faults',
    "GitHub requests in src/ reached by these flows and the page's (the rest listed below)",
    `${inSource.length - missed.length} of ${inSource.length}`,
  );
  note(
    'faults',
    `Requests in src/ that no recorded flow makes (not faulted here): ${missed.map((k) => `\`${k}\``).join(', ') || 'none'}.`,
  );
  for (const r of results)
    if (r.outcome === 'broken') failures.push(`faults ${caseId(r.c)}: ${r.problems.join('; ')}`);
}

/** The maintainers' page and setup (api-faults-page.ts): every fault at their own requests; the kinds faulted. */
async function pageFaults(): Promise<string[]> {
  say("faults: the maintainers' page and setup");
  const recorded = await recordPageFlows();
  const cases = pick(pageCases(recorded, { every: true }), pageCaseId);
  const t0 = Date.now();
  const results = await runPageCases(cases, jobs);
  const n = (o: PageResult['outcome']) => results.filter((r) => r.outcome === o).length;
  row(
    'faults',
    "maintainers' page and setup: flows / request kinds faulted / cases (every fault at the page's own requests)",
    `${PAGE_FLOWS.length} / ${new Set(cases.map((c) => c.kind)).size} / ${cases.length}`,
  );
  row(
    'faults',
    "maintainers' page and setup: recovered / a clear error shown, nothing lost / broken; time",
    `${n('recovered')} / ${n('error shown')} / ${n('broken')}; ${secs(Date.now() - t0)}`,
  );
  for (const r of results)
    if (r.outcome === 'broken') failures.push(`faults ${r.id}: ${r.problems.join('; ')}`);
  return [...new Set(cases.map((c) => c.kind))];
}

// --- hostile input (the tables, counted from a real run) ------------------------------------------------

interface VitestJson {
  numFailedTests: number;
  testResults: Array<{
    name: string;
    assertionResults: Array<{
      title: string;
      ancestorTitles: string[];
      status: string;
      failureMessages?: string[];
    }>;
  }>;
}

/** Each failed test of a run, named with the first line of its failure, so a flake can be looked at after. */
function failedTests(json: VitestJson): string {
  const out: string[] = [];
  for (const f of json.testResults)
    for (const t of f.assertionResults)
      if (t.status === 'failed')
        out.push(`${t.title}: ${(t.failureMessages?.[0] ?? '').split('\n')[0]!.slice(0, 300)}`);
  return out.join(' | ');
}

/** As `vitestJson`, without blocking: for suites that run beside each other. */
async function vitestJsonAsync(files: string[], env: Record<string, string> = {}): Promise<VitestJson> {
  const out = join(mkdtempSync(join(tmpdir(), 'interlock-reliability-')), 'vitest.json');
  const child = spawn(
    join(ROOT, 'node_modules/.bin/vitest'),
    ['run', ...files, '--reporter=json', `--outputFile=${out}`],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  await new Promise((r) => child.on('close', r));
  const json = JSON.parse(readFileSync(out, 'utf8')) as VitestJson;
  rmSync(join(out, '..'), { recursive: true, force: true });
  return json;
}

function vitestJson(files: string[], env: Record<string, string> = {}): VitestJson {
  const out = join(mkdtempSync(join(tmpdir(), 'interlock-reliability-')), 'vitest.json');
  spawnSync(
    join(ROOT, 'node_modules/.bin/vitest'),
    ['run', ...files, '--reporter=json', `--outputFile=${out}`],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const json = JSON.parse(readFileSync(out, 'utf8')) as VitestJson;
  rmSync(join(out, '..'), { recursive: true, force: true });
  return json;
}

async function hostile(): Promise<void> {
  say('hostile: running the tables');
  const files = [
    'test/core/bad-graphs.test.ts',
    'test/cli/journals.test.ts',
    'test/app/hostile.test.ts',
    'test/app/server.test.ts',
    'test/reliability/hostile.test.ts',
    'test/reliability/webhooks.test.ts',
    'test/reliability/hostile-node.test.ts',
    'test/reliability/hostile-node-isolation-none.test.ts',
    'test/reliability/hostile-git.test.ts',
    'test/reliability/hostile-git-links.test.ts',
    'test/reliability/hostile-egress.test.ts',
    'test/reliability/hostile-deputy.test.ts',
    ...new Set(OUTLASTING.map((r) => r.test)),
  ];
  const json = vitestJson(files);
  const tests = (
    file: string,
    pick: (t: { title: string; ancestorTitles: string[] }) => boolean = () => true,
  ) => json.testResults.find((f) => f.name.endsWith(file))?.assertionResults.filter(pick) ?? [];
  const passed = (ts: Array<{ status: string }>) => ts.filter((t) => t.status === 'passed').length;
  const graphsCore = tests('test/core/bad-graphs.test.ts', (t) => !/are merged into the node/.test(t.title));
  const graphsMine = tests('test/reliability/hostile.test.ts', (t) =>
    t.ancestorTitles.includes('hostile graph files'),
  );
  row(
    'hostile',
    'malformed or hostile graph files, each with its exact outcome',
    `${graphsCore.length + graphsMine.length} (${graphsCore.length} in test/core/bad-graphs, ${HOSTILE_GRAPHS.length} in test/reliability/hostile-tables)`,
  );
  row('hostile', '… passed', passed(graphsCore) + passed(graphsMine));
  const journalCore = tests(
    'test/cli/journals.test.ts',
    (t) =>
      /refused, named, and left byte-identical/.test(t.ancestorTitles.join()) &&
      /^(run|status|approve-rerun): /.test(t.title),
  );
  const coreKinds = new Set(journalCore.map((t) => t.title.replace(/^[a-z-]+: /, '')));
  const journalMine = tests('test/reliability/hostile.test.ts', (t) =>
    /corrupted journals/.test(t.ancestorTitles.join()),
  );
  row(
    'hostile',
    'corrupted journals, refused and left byte-identical',
    `${coreKinds.size + HOSTILE_JOURNALS.length} (${coreKinds.size} in test/cli/journals, ${HOSTILE_JOURNALS.length} in test/reliability/hostile-tables), ${journalCore.length + journalMine.length} command × journal checks`,
  );
  row('hostile', '… passed', passed(journalCore) + passed(journalMine));
  const comments = tests('test/app/hostile.test.ts', (t) => !/the table has/.test(t.title));
  row(
    'hostile',
    'hostile or odd comments (test/app/hostile), each with its expected outcome',
    `${comments.length}, ${passed(comments)} passed`,
  );
  const deliveries = [
    ...tests('test/app/server.test.ts', (t) => t.ancestorTitles.includes('the App over HTTP')),
    ...tests('test/reliability/webhooks.test.ts'),
  ];
  row(
    'hostile',
    'webhook deliveries to the App server (signatures, content types, headers, sizes)',
    `${deliveries.length}, ${passed(deliveries)} passed`,
  );
  const node = tests('test/reliability/hostile-node.test.ts', (t) =>
    /under the recommended setup/.test(t.ancestorTitles.join()),
  );
  row(
    'hostile',
    'a hostile node through the bundled action: attempts with no effect under the recommended setup',
    `${node.length}, ${passed(node)} passed (table: docs/RELIABILITY.md)`,
  );
  const egress = tests('test/reliability/hostile-egress.test.ts', (t) => /: has no effect$/.test(t.title));
  row(
    'hostile',
    'a node with `network:` through the bundled action: tries to reach another host or outlive its attempt, as root and through sudo',
    `${egress.length}, ${passed(egress)} passed (table: docs/RELIABILITY.md)`,
  );
  const plantings = tests('test/reliability/hostile-git.test.ts');
  row(
    'hostile',
    'a planting in git (config, includes, hooks, attributes, home, a new .git) by a node with no token: run by the granted node, its check or interlock',
    `${plantings.length}, ${passed(plantings)} passed: run by none (table: docs/RELIABILITY.md)`,
  );
  const links = tests('test/reliability/hostile-git-links.test.ts');
  row(
    'hostile',
    'a node puts links to a root-only file and folder, a FIFO, a 1 GB sparse file in .git/ (root, sudo): none followed or read by the guard',
    `${links.length}, ${passed(links)} passed`,
  );
  const deputy = tests('test/reliability/hostile-deputy.test.ts', (t) => /: has no effect$/.test(t.title));
  row(
    'hostile',
    'a node aims an attempt file elsewhere (links to environ, a root-only file, the bundle; a FIFO; /dev/zero; 1 GB sparse; a folder), root and sudo',
    `${deputy.length}, ${passed(deputy)} passed: no effect (table: docs/RELIABILITY.md)`,
  );
  for (const r of OUTLASTING) {
    const count = (column: 'root' | 'sudo' | 'any') => {
      const ts = tests(r.test, (t) => inColumn(r, column, t));
      return `${passed(ts)} of ${ts.length} passed`;
    };
    const columns = [
      ...(r.pick.root === undefined ? [] : [`as root ${count('root')}`]),
      ...(r.pick.sudo === undefined ? [] : [`through sudo ${count('sudo')}`]),
      ...(r.pick.any === undefined ? [] : [count('any')]),
    ];
    row('hostile', r.what, `${columns.join(', ')} (table: docs/RELIABILITY.md)`);
  }
  if (json.numFailedTests)
    failures.push(
      `hostile: ${json.numFailedTests} table rows failed (run: npx vitest run ${files.join(' ')}): ${failedTests(json)}`,
    );
}

// --- injection ------------------------------------------------------------------------------------------

async function injection(): Promise<void> {
  const names = Object.keys(payloads('/x'));
  const all = (d: string) => Object.values(payloads(d)).join(' ');
  const work: Array<[string, (d: string) => string]> = [
    ...names.map((n) => [n, (d: string) => payloads(d)[n]!] as [string, (d: string) => string]),
    ['every payload at once', all],
  ];
  say(`injection: ${work.length} payloads × 2 faces`);
  const t0 = Date.now();
  const results = (
    await pool(work, jobs, async ([name, make]) => [
      await cliInjection(name, make),
      await actionInjection(name, make),
    ])
  ).flat();
  const canaries = (text: string) => (text.match(/canary-/g) ?? []).length;
  // Each run plants its payload's canaries; each Action run also plants the two in its branch name.
  const planted =
    work.reduce((a, [, make]) => a + 2 * canaries(make('/x')), 0) +
    work.length * canaries(branchPayload('/x'));
  const cli = results.filter((r) => r.face === 'CLI');
  const action = results.filter((r) => r.face === 'Action');
  const paths = (rs: InjectionResult[]) => [...new Set(rs.flatMap((r) => r.paths))];
  row(
    'injection',
    'payloads ($(…), backticks, ${{ }}, quotes, newlines, workflow commands…), each alone and all at once',
    `${names.length} + 1`,
  );
  row(
    'injection',
    'canary commands planted / that ran',
    `${planted} / ${results.reduce((a, r) => a + r.canaries.length, 0)}`,
  );
  row('injection', 'CLI paths checked (listed below)', paths(cli).length);
  row('injection', 'Action paths checked (listed below)', paths(action).length);
  note('injection', `Injection paths, CLI: ${paths(cli).join('; ')}.`);
  note('injection', `Injection paths, Action: ${paths(action).join('; ')}.`);
  row(
    'injection',
    'runs where a value arrived changed, was evaluated, or forged a workflow command',
    results.filter((r) => r.problems.length).length,
  );
  row('injection', 'time', secs(Date.now() - t0));
  for (const r of results)
    for (const p of r.problems) failures.push(`injection ${r.face} ${r.payload}: ${p}`);
}

// --- fuzzing --------------------------------------------------------------------------------------------

async function fuzz(): Promise<void> {
  say(`fuzz: INTERLOCK_FUZZ_RUNS=${FUZZ_SCALE}`);
  const report = join(mkdtempSync(join(tmpdir(), 'interlock-fuzz-')), 'report.json');
  const t0 = Date.now();
  const json = vitestJson(['test/reliability/fuzz.test.ts'], {
    INTERLOCK_FUZZ_RUNS: FUZZ_SCALE,
    INTERLOCK_FUZZ_REPORT: report,
  });
  const r = JSON.parse(readFileSync(report, 'utf8')) as { properties: number; cases: number };
  rmSync(join(report, '..'), { recursive: true, force: true });
  const tests = json.testResults.flatMap((f) => f.assertionResults);
  row(
    'fuzz',
    'properties (graphs, journals, concurrent writers, comments, untrusted text) / generated cases',
    `${r.properties} / ${r.cases}`,
  );
  row(
    'fuzz',
    'properties that held',
    `${tests.filter((t) => t.status === 'passed').length} of ${tests.length}`,
  );
  row('fuzz', 'time', secs(Date.now() - t0));
  if (json.numFailedTests)
    failures.push(`fuzz: ${json.numFailedTests} properties failed (npm run fuzz): ${failedTests(json)}`);
}

// --- the model-based test across the faces (issue 45) ---------------------------------------------------

/** What one model test process reports (INTERLOCK_MODEL_REPORT). */
interface ModelReport {
  sequences: number;
  commands: number;
  reached?: { cap: number; after: number };
  acted?: { app: number; stuck: number };
}

/** One model test process: its file under its env, with the seed; its report and the failures it met. */
async function modelPart(
  file: string,
  env: Record<string, string>,
): Promise<{ r: ModelReport; failed: string }> {
  const report = join(mkdtempSync(join(tmpdir(), 'interlock-model-')), 'report.json');
  const json = await vitestJsonAsync([file], {
    ...env,
    INTERLOCK_MODEL_STRICT: '1',
    INTERLOCK_MODEL_REPORT: report,
  });
  const r: ModelReport = existsSync(report)
    ? (JSON.parse(readFileSync(report, 'utf8')) as ModelReport)
    : { sequences: 0, commands: 0 };
  rmSync(join(report, '..'), { recursive: true, force: true });
  const replay = `${Object.entries(env)
    .map(([k, v]) => `${k}=${v} `)
    .join('')}INTERLOCK_MODEL_STRICT=1 npx vitest run ${file}`;
  return { r, failed: json.numFailedTests ? `${failedTests(json)} (replay: ${replay})` : '' };
}

/**
 * Thousands of random sequences through the CLI on a local file (INTERLOCK_MODEL_RUNS, default 2000) and tens
 * through the bundled action on each GitHub store (INTERLOCK_MODEL_GITHUB_RUNS, default 25), strict: a seam main
 * is known to have fails here as anything else does. The CLI's sequences run in one process a core, each its own
 * seed (the drawn seed, plus one for each next process), all beside the GitHub part: the model computes, one core
 * a process, where the rest of the suite waits.
 */
async function model(): Promise<void> {
  const runs = Number(process.env.INTERLOCK_MODEL_RUNS ?? '2000');
  const githubRuns = process.env.INTERLOCK_MODEL_GITHUB_RUNS ?? '25';
  const seed = MODEL_SEED;
  const shards = Math.max(1, Math.min(cpus().length, runs));
  const cliFile = 'test/reliability/model-faces.test.ts';
  const githubFile = 'test/reliability/model-github.test.ts';
  const cliWhat = 'CLI + local file';
  const githubWhat = 'bundled action + local GitHub (run branch, journal branch of before, check run)';
  say(
    `model: ${cliWhat} (${shards} processes, seeds ${seed} and the next ${shards - 1}) and ${githubWhat}, seed ${seed}`,
  );
  const t0 = Date.now();
  const timed = async <T>(p: Promise<T>): Promise<T & { ms: number }> => ({
    ...(await p),
    ms: Date.now() - t0,
  });
  const cli = (modelParts.includes('cli') ? Array.from({ length: shards }) : []).map((_, k) => {
    const n = Math.floor(runs / shards) + (k < runs % shards ? 1 : 0);
    return timed(
      modelPart(cliFile, {
        INTERLOCK_MODEL_RUNS: String(n),
        INTERLOCK_MODEL_SEED: String((seed + k) % 2 ** 31),
      }),
    );
  });
  const github = modelParts.includes('github')
    ? [
        timed(
          modelPart(githubFile, {
            INTERLOCK_MODEL_GITHUB_RUNS: githubRuns,
            INTERLOCK_MODEL_SEED: String(seed),
          }),
        ),
      ]
    : [];
  const parts: Array<[string, Array<{ r: ModelReport; failed: string; ms: number }>]> = [
    [cliWhat, await Promise.all(cli)],
    [githubWhat, await Promise.all(github)],
  ];
  for (const [what, done] of parts) {
    if (!done.length) continue;
    const sum = (f: (r: ModelReport) => number) => done.reduce((a, d) => a + f(d.r), 0);
    row(
      'model',
      `${what}: sequences / commands (shrinking's included), each followed by the five checks`,
      `${sum((r) => r.sequences)} / ${sum((r) => r.commands)}`,
    );
    if (done.some((d) => d.r.reached))
      row(
        'model',
        `${what}: sequences whose run reached the daily cap / went on past it (approve-rerun, rerun-from)`,
        `${sum((r) => r.reached?.cap ?? 0)} / ${sum((r) => r.reached?.after ?? 0)}`,
      );
    if (done.some((d) => d.r.acted))
      row(
        'model',
        `${what}: people's comments the App's server took (signed deliveries) / mode: stuck runs`,
        `${sum((r) => r.acted?.app ?? 0)} / ${sum((r) => r.acted?.stuck ?? 0)}`,
      );
    row('model', `${what}: time`, secs(Math.max(...done.map((d) => d.ms))));
    for (const d of done) if (d.failed) failures.push(`model (${what}): ${d.failed}`);
  }
}

// --- the table ------------------------------------------------------------------------------------------

const run: Record<Suite, () => Promise<void>> = { crash, races, faults, hostile, injection, fuzz, model };
// The load the suites ran at (the 1-minute load average, sampled every 30 s): a figure measured on a busy
// machine says so.
const loads = [loadavg()[0]!];
const sampler = setInterval(() => loads.push(loadavg()[0]!), 30_000).unref();
const took = new Map<Suite, string>();
async function timed(s: Suite): Promise<void> {
  const t0 = Date.now();
  await run[s]();
  took.set(s, secs(Date.now() - t0));
}

/**
 * Suites that mostly wait (the local GitHub's writes and stale windows, retry waits; they ran at a load under 1 on
 * 2 cores) run beside the crash matrix, which computes. In a process of their own: the matrix points TMPDIR at a
 * folder of its own for its whole run and removes it at the end.
 */
const BESIDE_CRASH: readonly Suite[] = ['races', 'faults', 'model'];
interface Beside {
  rows: Row[];
  notes: Array<[Suite, string]>;
  failures: string[];
  took: Array<[Suite, string]>;
}

const besideRows: Row[] = [];
const besideNotes: Array<[Suite, string]> = [];
const besideTook = new Map<Suite, string>();

async function beside(suites: Suite[]): Promise<void> {
  const out = join(mkdtempSync(join(tmpdir(), 'interlock-reliability-')), 'beside.json');
  const passed = (name: 'grep' | 'repeat' | 'writers') =>
    values[name] === undefined ? [] : [`--${name}`, String(values[name])];
  const args = ['scripts/reliability.ts', '--only', suites.join(','), '--jobs', String(jobs), '--rows', out];
  // The model's GitHub part runs beside the matrix (it waits on the local GitHub); its CLI part computes, after.
  if (suites.includes('model')) {
    args.push('--model-part', 'github');
    modelParts = ['cli'];
  }
  const child = spawn(
    join(ROOT, 'node_modules/.bin/tsx'),
    [...args, ...passed('grep'), ...passed('repeat'), ...passed('writers')],
    {
      cwd: ROOT,
      env: { ...process.env, INTERLOCK_MODEL_SEED: String(MODEL_SEED) },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (!existsSync(out)) {
    failures.push(
      `${suites.join(', ')}: the process that ran them beside the crash matrix exited ${code} with no figures`,
    );
    return;
  }
  const got = JSON.parse(readFileSync(out, 'utf8')) as Beside;
  besideRows.push(...got.rows);
  besideNotes.push(...got.notes);
  failures.push(...got.failures);
  for (const [s, t] of got.took) besideTook.set(s, t);
  rmSync(join(out, '..'), { recursive: true, force: true });
}

const chosen = SUITES.filter((s) => only.includes(s));
const aside = chosen.includes('crash') && !values.rows ? chosen.filter((s) => BESIDE_CRASH.includes(s)) : [];
// The process beside is started (its temporary folder made, its environment copied) before the matrix starts.
if (aside.length) {
  const side = beside(aside);
  await Promise.all([timed('crash'), side]);
}
// Then the rest, the model's CLI part among them when its GitHub part ran beside.
for (const s of chosen)
  if (!(aside.length && s === 'crash') && (!aside.includes(s) || s === 'model')) await timed(s);
clearInterval(sampler);
loads.push(loadavg()[0]!);
if (values.rows) {
  // A process running suites beside the crash matrix: its figures go to the process that runs the matrix.
  const mine: Beside = { rows, notes, failures, took: [...took] };
  writeFileSync(values.rows, JSON.stringify(mine));
  process.exit(0);
}
// One table whatever ran beside what: the rows and notes in the suites' order.
const order = (a: [Suite, ...unknown[]], b: [Suite, ...unknown[]]) =>
  SUITES.indexOf(a[0]) - SUITES.indexOf(b[0]);
rows = [...rows, ...besideRows].sort(order);
notes = [...notes, ...besideNotes].sort(order);
const load = `load average ${(loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(1)} (at most ${Math.max(...loads).toFixed(1)}) on ${cpus().length} cores`;

const header = `Measured by \`npm run reliability${GREP || REPEAT > 1 ? ` (scenarios and cases${picking()})` : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${jobs} scenarios at a time; ${secs(Date.now() - started)} in all (${chosen.map((x) => `${x} ${[took.get(x), besideTook.has(x) ? `${besideTook.get(x)} beside crash` : undefined].filter(Boolean).join(' + ')}`).join(', ')}); ${load}.`;
const esc = (s: string) => s.replace(/\|/g, '\\|');
const table = [
  '| suite | figure | value |',
  '| --- | --- | --- |',
  ...rows.map(([a, b, c]) => `| ${a} | ${esc(b)} | ${esc(c)} |`),
].join('\n');
const list = notes.map(([, n]) => `- ${n}`).join('\n');
const block = `${header}\n\n${table}\n${notes.length ? `\n${list}\n` : ''}`;
const failed = failures.length
  ? `\nFAILED (${failures.length}):\n${failures.map((f) => `- ${f}`).join('\n')}\n`
  : '';
process.stdout.write(`${block}\n${failed}`);
// The nightly workflow keeps this file as an artifact and in the run's summary.
if (values.table) writeFileSync(values.table, `${block}${failed}`);

if (values['write-doc']) {
  const doc = join(ROOT, 'docs/RELIABILITY.md');
  const text = readFileSync(doc, 'utf8');
  const begin = '<!-- reliability:begin -->';
  const end = '<!-- reliability:end -->';
  if (!text.includes(begin) || !text.includes(end)) throw new Error(`${doc} has no ${begin} … ${end} block`);
  writeFileSync(
    doc,
    `${text.slice(0, text.indexOf(begin) + begin.length)}\n${block}${text.slice(text.indexOf(end))}`,
  );
  // The page is formatted like every other file (npm test checks it).
  spawnSync(join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', doc], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  say(`wrote the table into ${doc}`);
}
process.exitCode = failures.length ? 1 : 0;
