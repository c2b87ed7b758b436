// CPU time of the Action's processes: a whole node step of dist/index.js (bench/action.ts's three nodes) (what a runner pays per step), against
// `node -e 0`; and one process's requests through Node's own fetch against the same requests through httpFetch
// (src/github/http-fetch.ts), the fetch the Action's client uses. Each process reports its own user + system time
// (process.resourceUsage, read as it exits, through a module preloaded with --import); its children (a node's
// shell) are not counted.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { makeWorkspace, runStep } from '../test/support/action-process.js';
import { issuesLabeled } from '../test/support/fixtures.js';
import { startGitHubServer } from '../test/support/github-server.js';
import { GRAPH } from './action.js';

const root = new URL('..', import.meta.url).pathname;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface CpuFigures {
  /** Medians, in CPU milliseconds (user + system) of the process itself. */
  step_ms: number;
  empty_ms: number;
  fetch_ms: number;
  http_fetch_ms: number;
  requests: number;
}

/** A module that, preloaded, writes the process's own CPU time to the file CPU_OUT names as it exits. */
function hook(dir: string): string {
  const path = join(dir, 'cpu-hook.mjs');
  writeFileSync(
    path,
    "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => { const u = process.resourceUsage(); writeFileSync(process.env.CPU_OUT, String((u.userCPUTime + u.systemCPUTime) / 1000)); });\n",
  );
  return pathToFileURL(path).href;
}

/** `count` requests to `url` (half GETs, half PUTs with a JSON body), through `fetchFn`, in a bundle of its own. */
async function requestBundle(
  dir: string,
  name: string,
  useHttpFetch: boolean,
  count: number,
): Promise<string> {
  const src = join(dir, `${name}.ts`);
  writeFileSync(
    src,
    `${useHttpFetch ? `import { httpFetch as f } from ${JSON.stringify(join(root, 'src/github/http-fetch.ts'))};` : 'const f = fetch;'}
const url = process.env.TARGET_URL;
for (let i = 0; i < ${count}; i++) {
  const r = await f(url, i % 2 ? { method: 'PUT', body: '{"a":1}', headers: { 'content-type': 'application/json' } } : {});
  await r.json();
}
`,
  );
  const out = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [src],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: true,
  });
  return out;
}

export async function cpuFigures(runs = 9): Promise<CpuFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-bench-cpu-'));
  const importHook = hook(dir);
  const out = join(dir, 'cpu');
  // Not execFileSync: the servers answering the process live in this one.
  const cpuOf = async (env: NodeJS.ProcessEnv, args: string[]) => {
    await promisify(execFile)(process.execPath, ['--import', importHook, ...args], {
      env: { ...env, CPU_OUT: out },
    });
    return Number(readFileSync(out, 'utf8'));
  };
  const requests = 10;
  const api = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  const target = `http://127.0.0.1:${(api.address() as AddressInfo).port}/x`;
  const server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }] });
  try {
    const viaFetch = await requestBundle(dir, 'fetch', false, requests);
    const viaHttp = await requestBundle(dir, 'http-fetch', true, requests);
    const repo = server.state.repo('acme/widgets');
    const steps: number[] = [];
    const empty: number[] = [];
    const fetches: number[] = [];
    const https: number[] = [];
    for (let i = 0; i < runs; i++) {
      // A fresh run each time: the same three nodes, one `node: all` step, on the git store.
      repo.addIssue({ number: i + 1, title: 'cpu', labels: ['go'] });
      const ws = makeWorkspace({ 'g.yml': GRAPH });
      const r = await runStep({
        apiUrl: server.url,
        repository: 'acme/widgets',
        workspace: ws,
        eventName: 'issues',
        payload: issuesLabeled('acme', 'widgets', i + 1, 'go'),
        inputs: { graph: 'g.yml', node: 'all' },
        job: { runId: 100 + i },
        env: { NODE_OPTIONS: `--import ${importHook}`, CPU_OUT: out },
      });
      rmSync(ws, { recursive: true, force: true });
      if (r.code !== 0 || !['completed', 'run-completed'].includes(r.outputs.status ?? ''))
        throw new Error(`bench step: ${r.outputs.status} (exit ${r.code}): ${r.stdout.slice(-500)}`);
      steps.push(Number(readFileSync(out, 'utf8')));
      empty.push(await cpuOf({}, ['-e', '0']));
      fetches.push(await cpuOf({ TARGET_URL: target }, [viaFetch]));
      https.push(await cpuOf({ TARGET_URL: target }, [viaHttp]));
    }
    return {
      step_ms: median(steps),
      empty_ms: median(empty),
      fetch_ms: median(fetches),
      http_fetch_ms: median(https),
      requests,
    };
  } finally {
    await server.close();
    await new Promise<void>((r) => api.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
}
