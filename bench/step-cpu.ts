// CPU time of the two steps the crash matrix of `npm run reliability` starts most: a `node: all` step that runs a
// node and leaves the next awaiting approval, and the `mode: comment` step of the `/approve` that follows. Each
// step is `dist/index.js` as a child process against the local GitHub (its reads not stale, so every run does the
// same work); the process reports its own user + system time as it exits (a module preloaded with --require; its
// children, the node's shell, are not counted), on the Node the suites run steps on (test/support/runner-node.ts:
// Node 24 where .node24 holds it, as action.yml's `using: node24`). The baseline is that Node's `node -e 0` in the
// same run and, with BENCH_BASE_DIST (a folder holding another build of dist/), that build's steps interleaved with
// this one's.
//
// `npx tsx bench/step-cpu.ts` (after `npm run build`) prints a table; BENCH_RUNS sets the runs (9 by default).
// A profile needs names: build with them for it (`INTERLOCK_BUILD_NAMES=1 npm run build`, scripts/build.mjs).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { makeWorkspace, runStep, type StepOptions } from '../test/support/action-process.js';
import { issuesLabeled, webhookExample } from '../test/support/fixtures.js';
import { type GitHubServer, startGitHubServer } from '../test/support/github-server.js';
import { runnerNode } from '../test/support/runner-node.js';

const OWNER = 'acme';
const REPO = 'widgets';
const FULL = `${OWNER}/${REPO}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A node, then one a person approves before it runs: the shape of the crash matrix's approval scenarios. */
export const STEP_GRAPH = `interlock: 1
name: cpu
nodes:
  - id: build
    run: echo built > built.txt
    validates: [{ file: built.txt }]
  - id: publish
    depends_on: [build]
    approval: before
    run: echo published > published.txt
    validates: [{ file: published.txt }]
`;

export interface StepCpu {
  /** Medians, in CPU milliseconds (user + system) of the step's own process, by build. */
  run_ms: number;
  comment_ms: number;
  base?: { run_ms: number; comment_ms: number };
  /** This build with Node's compile cache warm, as the crash matrix runs its steps (compileCache in action-process.ts). */
  cached: { run_ms: number; comment_ms: number };
  empty_ms: number;
  runs: number;
  /** The 1-minute load average as the runs began and as they ended. */
  load: [number, number];
}

/**
 * A CommonJS module that, preloaded (--require), writes the process's own CPU time to the file CPU_OUT names as it
 * exits. Not an ES module: `import … from 'node:fs'` builds fs's ES module facade, which loads fs's streams (about
 * 8 ms the step itself does not spend).
 */
function hook(dir: string): string {
  const path = join(dir, 'cpu-hook.cjs');
  writeFileSync(
    path,
    "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.CPU_OUT, String((u.userCPUTime + u.systemCPUTime) / 1000)); });\n",
  );
  return path;
}

/** The `issue_comment.created` payload of `body`, made by `login` on issue `number`. */
function commentCreated(server: GitHubServer, number: number, body: string, login: string) {
  const made = server.state.repo(FULL).addComment(number, body, login);
  const p = webhookExample('issue_comment', 'created') as Record<string, Record<string, unknown>>;
  const web = `https://github.com/${FULL}`;
  const { pull_request: _, ...issue } = p.issue!;
  return {
    ...p,
    comment: {
      ...p.comment,
      id: made.id,
      body,
      html_url: `${web}/issues/${number}#issuecomment-${made.id}`,
      user: { ...(p.comment!.user as object), login, type: 'User' },
      created_at: new Date().toISOString(),
    },
    issue: { ...issue, number, html_url: `${web}/issues/${number}`, labels: [{ name: 'go' }] },
    sender: { ...p.sender, login, type: 'User' },
    repository: {
      ...p.repository,
      name: REPO,
      full_name: FULL,
      html_url: web,
      default_branch: 'main',
      owner: { ...(p.repository!.owner as object), login: OWNER },
    },
    installation: undefined,
  };
}

export async function stepCpu(runs = 9, baseDist = process.env.BENCH_BASE_DIST): Promise<StepCpu> {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-bench-step-cpu-'));
  const importHook = hook(dir);
  const out = join(dir, 'cpu');
  const server = await startGitHubServer({
    repos: [
      {
        owner: OWNER,
        name: REPO,
        files: { 'g.yml': STEP_GRAPH },
        collaborators: { bob: 'maintain' },
        workflows: [{ file: 'interlock.yml', inputs: ['run-id'] }],
      },
    ],
    likeGitHub: false,
  });
  const repo = server.state.repo(FULL);
  // BENCH_CPU_PROF=<folder>: each step also writes a CPU profile there (python3 or Chrome's DevTools read them).
  const prof = process.env.BENCH_CPU_PROF ? ` --cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` : '';
  const cpuEnv = { NODE_OPTIONS: `--require ${importHook}${prof}`, CPU_OUT: out };
  let issue = 0;
  let runId = 100;
  /** One run's two steps through the build in `dist` (this tree's when undefined): their CPU milliseconds. */
  const pair = async (dist: string | undefined, compileCache = false): Promise<[number, number]> => {
    const number = ++issue;
    repo.addIssue({ number, title: 'cpu', labels: ['go'] });
    const ws = makeWorkspace({ 'g.yml': STEP_GRAPH });
    const base: StepOptions = {
      apiUrl: server.url,
      repository: FULL,
      workspace: ws,
      eventName: 'issues',
      payload: issuesLabeled(OWNER, REPO, number, 'go'),
      inputs: { graph: 'g.yml', node: 'all', 'on-held': 'succeed' },
      job: { runId: runId++ },
      env: cpuEnv,
      compileCache,
      ...(dist ? { dist } : {}),
    };
    const step = async (o: StepOptions, want: string[]) => {
      const r = await runStep(o);
      if (r.code !== 0 || !want.includes(r.outputs.status ?? ''))
        throw new Error(`bench step: ${r.outputs.status} (exit ${r.code}): ${r.stdout.slice(-800)}`);
      return Number(readFileSync(out, 'utf8'));
    };
    const run = await step(base, ['held', 'awaiting-approval', 'completed']);
    const comment = await step(
      {
        ...base,
        eventName: 'issue_comment',
        payload: commentCreated(server, number, '/approve publish', 'bob'),
        inputs: { graph: 'g.yml', mode: 'comment' },
        job: { runId: runId++ },
      },
      ['completed'],
    );
    rmSync(ws, { recursive: true, force: true });
    return [run, comment];
  };
  const cpuOf = async (args: string[]) => {
    await promisify(execFile)(runnerNode(), ['--require', importHook, ...args], {
      env: { CPU_OUT: out },
    });
    return Number(readFileSync(out, 'utf8'));
  };
  try {
    const load0 = loadavg()[0]!;
    const mine: [number, number][] = [];
    const theirs: [number, number][] = [];
    const cached: [number, number][] = [];
    const empty: number[] = [];
    await pair(undefined); // warm-up: the file cache, the server's first answers
    await pair(undefined, true); // and the compile cache's first write
    if (baseDist) await pair(baseDist);
    for (let i = 0; i < runs; i++) {
      // Interleaved, and in turns which goes first, so the machine's noise falls on both alike.
      if (baseDist && i % 2) theirs.push(await pair(baseDist));
      mine.push(await pair(undefined));
      if (baseDist && !(i % 2)) theirs.push(await pair(baseDist));
      cached.push(await pair(undefined, true));
      empty.push(await cpuOf(['-e', '0']));
    }
    const med = (xs: [number, number][], k: 0 | 1) => median(xs.map((x) => x[k]));
    return {
      run_ms: med(mine, 0),
      comment_ms: med(mine, 1),
      ...(baseDist ? { base: { run_ms: med(theirs, 0), comment_ms: med(theirs, 1) } } : {}),
      cached: { run_ms: med(cached, 0), comment_ms: med(cached, 1) },
      empty_ms: median(empty),
      runs,
      load: [load0, loadavg()[0]!],
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What docs/BENCHMARKS.md says under the table (bench/run.ts writes it there). */
export const STEP_CPU_NOTES = [
  "Where a step's CPU went (CPU profiles of both steps, `BENCH_CPU_PROF` on a build with names,",
  '`INTERLOCK_BUILD_NAMES=1 npm run build`; Node 24, 2026-12-07): compiling the bundle 13%, zod 12% (building',
  "schemas and checking with them), Node's own modules 30% (loading `child_process`, `crypto`, `http`, `net` and",
  'their streams, sockets), garbage collection 4%; src/ itself about 10%, no room of it above 3%.',
  '',
  "Changed that day: the journal's event schemas are built per type on first use (`checkEvent`,",
  'src/journal/events/events.ts), so a step builds the few types its journal holds instead of about thirty, and the',
  "graph's error wording and the skill schema are built when first needed. Against the build before, in six runs",
  'of 9 to 15 interleaved pairs at load averages of 8 to 14 on 2 cores, the ratio of the `node: all` step was 0.90x',
  'to 1.02x (median 0.97x) and of the comment step 0.93x to 1.03x (median 0.98x): a saving within the noise. A',
  'process that only reads a 16-event journal spends about 2 ms less (of 100): building every event schema cost',
  'less than the profiles, whose sampling weighs short functions heavily, suggested.',
  '',
  "The last column is how the crash matrix runs its steps: with Node's compile cache in a folder of the test",
  "process's own (`compileCache` in test/support/action-process.ts), each step after the process's first skips",
  "compiling the bundle. A runner starts without one (each job checks the action out afresh), so a step's figure",
  "is the first column; the cache is the suite's, not the product's. On 2026-12-07 the warm cache's ratio was",
  '0.94x and 0.97x for the `node: all` step and 0.88x and 0.90x for the comment step (two runs), and twelve crash',
  "scenarios (`--grep 'action/(git|check-run)/gate/never/gate:after-approve-write'`) took 13.96 CPU-s with it",
  'against 15.61 without (`INTERLOCK_TEST_COMPILE_CACHE=0`; one run each, the whole process tree, the harness',
  'included).',
];

/** The rows of docs/BENCHMARKS.md's table for these figures. */
export function stepCpuRows(f: StepCpu): string[] {
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  const row = (what: string, ms: number, base: number | undefined, cached: number) =>
    `| ${what} | ${ms.toFixed(0)} | ${(ms / f.empty_ms).toFixed(1)}x${base === undefined ? '' : ` | ${base.toFixed(0)} | ${x(ms, base)}`} | ${cached.toFixed(0)} | ${x(cached, ms)} |`;
  return [
    `| step | CPU (ms) | against \`node -e 0\` (${f.empty_ms.toFixed(0)} ms)${f.base ? ' | the other build (ms) | ratio' : ''} | compile cache warm (ms) | ratio |`,
    `| --- | --- | ---${f.base ? ' | --- | ---' : ''} | --- | --- |`,
    row(
      '`node: all`: runs `build`, leaves `publish` awaiting approval',
      f.run_ms,
      f.base?.run_ms,
      f.cached.run_ms,
    ),
    row('`mode: comment`: `/approve publish`', f.comment_ms, f.base?.comment_ms, f.cached.comment_ms),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await stepCpu(Number(process.env.BENCH_RUNS ?? 9));
  console.log(stepCpuRows(f).join('\n'));
  console.log(
    `medians of ${f.runs} runs; load average ${f.load[0].toFixed(1)} → ${f.load[1].toFixed(1)}${process.env.BENCH_BASE_DIST ? `; the other build: ${process.env.BENCH_BASE_DIST}` : ''}`,
  );
}
