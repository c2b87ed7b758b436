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
  const pair = async (dist: string | undefined): Promise<[number, number]> => {
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
    const empty: number[] = [];
    await pair(undefined); // warm-up: the file cache, the server's first answers
    if (baseDist) await pair(baseDist);
    for (let i = 0; i < runs; i++) {
      // Interleaved, and in turns which goes first, so the machine's noise falls on both alike.
      if (baseDist && i % 2) theirs.push(await pair(baseDist));
      mine.push(await pair(undefined));
      if (baseDist && !(i % 2)) theirs.push(await pair(baseDist));
      empty.push(await cpuOf(['-e', '0']));
    }
    const med = (xs: [number, number][], k: 0 | 1) => median(xs.map((x) => x[k]));
    return {
      run_ms: med(mine, 0),
      comment_ms: med(mine, 1),
      ...(baseDist ? { base: { run_ms: med(theirs, 0), comment_ms: med(theirs, 1) } } : {}),
      empty_ms: median(empty),
      runs,
      load: [load0, loadavg()[0]!],
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows of docs/BENCHMARKS.md's table for these figures. */
export function stepCpuRows(f: StepCpu): string[] {
  const row = (what: string, ms: number, base: number | undefined) =>
    `| ${what} | ${ms.toFixed(0)} | ${(ms / f.empty_ms).toFixed(1)}x${base === undefined ? '' : ` | ${base.toFixed(0)} | ${(ms / base).toFixed(2)}x`} |`;
  return [
    `| step | CPU (ms) | against \`node -e 0\` (${f.empty_ms.toFixed(0)} ms)${f.base ? ' | the other build (ms) | ratio' : ''} |`,
    `| --- | --- | ---${f.base ? ' | --- | ---' : ''} |`,
    row('`node: all`: runs `build`, leaves `publish` awaiting approval', f.run_ms, f.base?.run_ms),
    row('`mode: comment`: `/approve publish`', f.comment_ms, f.base?.comment_ms),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await stepCpu(Number(process.env.BENCH_RUNS ?? 9));
  console.log(stepCpuRows(f).join('\n'));
  console.log(
    `medians of ${f.runs} runs; load average ${f.load[0].toFixed(1)} → ${f.load[1].toFixed(1)}${process.env.BENCH_BASE_DIST ? `; the other build: ${process.env.BENCH_BASE_DIST}` : ''}`,
  );
}
