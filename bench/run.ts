// npm run bench: measures the core's speed and writes docs/BENCHMARKS.md.
// Every figure is a median of several runs, with a baseline measured in the same run (these machines are noisy).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { parseGraph } from '../src/graph/load/load.js';
import type { Graph } from '../src/graph/model.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../src/journal/events/events.js';
import { fold } from '../src/journal/fold.js';
import { appendEvents, parseJournal, serializeJournal } from '../src/journal/parse.js';
import { bundleSize, coldStart, coldStartTable, requestsPerStep, totalRequests } from './action.js';
import { answerRateSection, answerRates } from './app-load.js';
import { appMemory, appMemorySection } from './app-memory.js';
import { appStateFigures, appStateSection } from './app-state.js';
import { bytesPerWrite, contention } from './contention.js';
import { cpuFigures } from './cpu.js';
import { requestsPerEffect } from './effects.js';
import { connectLatency, connectLatencySection } from './egress.js';
import { forEachSection } from './for-each-report.js';
import { keyProxyLatency } from './key-proxy.js';
import { loadSection } from './load-report.js';
import { matrixSection } from './matrix-report.js';
import { pageFigures, pageSection } from './page.js';
import { writeSection } from './section.js';
import { serializedFigures } from './serialized.js';
import { STEP_CPU_NOTES, stepCpu, stepCpuRows } from './step-cpu.js';
import { webhookThroughput } from './webhooks.js';
import { writesPerNode } from './writes-per-node.js';

// BENCH_QUICK=1: every benchmark at a small size, once, for the test that keeps this command working
// (`npm run bench:check`, bench/check.ts); its figures mean nothing. BENCH_OUT: where to write the page instead of docs/.
const QUICK = process.env.BENCH_QUICK === '1';
const RUNS = QUICK ? 1 : Number(process.env.BENCH_RUNS ?? 5);
const OUT = process.env.BENCH_OUT ?? new URL('../docs/BENCHMARKS.md', import.meta.url).pathname;
const FOLD_SIZES = QUICK ? [1_000, 10_000] : [10_000, 100_000, 200_000];
const LOAD_SIZES = QUICK ? [100, 2_000] : [1_000, 5_000, 20_000];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function measure(fn: () => void): number {
  fn(); // warm up
  return median(Array.from({ length: RUNS }, () => time(fn)));
}

function graphText(n: number, seed = 1): string {
  let x = seed;
  const rand = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  const lines = ['interlock: 1', 'name: bench', 'nodes:'];
  for (let i = 0; i < n; i++) {
    const deps = new Set<number>();
    for (let k = 0; k < 3 && i > 0; k++) if (rand() < 0.7) deps.add(Math.floor(rand() * i));
    lines.push(`  - id: n${i}`);
    if (deps.size) lines.push(`    depends_on: [${[...deps].map((d) => `n${d}`).join(', ')}]`);
    lines.push(`    run: echo ${i}`, '    validates:', `      - file: out/${i}.txt`);
  }
  return `${lines.join('\n')}\n`;
}

/** A valid journal of about `events` events: never nodes interrupted and approved again and again. */
function journalOf(graph: Graph, events: number): Journal {
  const runner = { kind: 'local' as const, host: 'bench', pid: 1 };
  let j: Journal = {
    format: JOURNAL_FORMAT,
    run_id: 'bench',
    graph: { name: graph.name, hash: graph.hash, path: 'g.yml' },
    events: [],
  };
  const batch: NewEvent[] = [
    { type: 'RunStarted', graph: j.graph, intent: 'bench', subject: 'local', runner, inputs: {} },
  ];
  const roots = graph.nodes.filter((n) => n.depends_on.length === 0);
  const attempts = new Map<string, number>();
  let i = 0;
  while (batch.length < events) {
    const node = roots[i++ % roots.length]!;
    const attempt = (attempts.get(node.id) ?? 0) + 1;
    attempts.set(node.id, attempt);
    batch.push(
      { type: 'NodeDispatched', node: node.id, attempt, replay: 'never', approach: 'default', runner },
      { type: 'NodeInterrupted', node: node.id, attempt, observed_usage: { wall_ms: 5 } },
      { type: 'RerunApproved', node: node.id, attempt, approved_by: 'bench', source: 'bench' },
    );
  }
  j = appendEvents(j, batch.slice(0, events), '2026-01-01T00:00:00.000Z');
  return j;
}

interface Row {
  figure: string;
  target: string;
  measured: number;
  baseline: number;
  baselineName: string;
}

/** Load, validate and compute ready nodes, at each size: run in a process of its own (see below). */
function graphLoadRows(): Row[] {
  const out: Row[] = [];
  for (const n of LOAD_SIZES) {
    const text = graphText(n);
    let graph: Graph | undefined;
    const ms = measure(() => {
      graph = parseGraph({ path: 'g.yml', text });
      const j: Journal = {
        format: JOURNAL_FORMAT,
        run_id: 'b',
        graph: { name: 'bench', hash: graph.hash, path: 'g.yml' },
        events: [],
      };
      fold(
        appendEvents(
          j,
          [
            {
              type: 'RunStarted',
              graph: j.graph,
              intent: 'b',
              subject: 'b',
              runner: { kind: 'local' },
              inputs: {},
            },
          ],
          'x',
        ),
        graph,
      );
    });
    out.push({
      figure: `load, validate and compute ready nodes: ${n.toLocaleString('en')}-node graph`,
      target: n === 20_000 ? '< 500 ms' : '',
      measured: ms,
      baseline: measure(() => parseYaml(text)),
      baselineName: 'yaml.parse of the same text',
    });
  }
  return out;
}

// A process loads one graph: measured in a fresh process, not in a heap the fold benchmarks have grown to
// hundreds of megabytes (whose garbage collections would be counted against the graph load).
if (process.argv[2] === '--graph-load') {
  process.stdout.write(JSON.stringify(graphLoadRows()));
  process.exit(0);
}

// `npm run bench -- <name>`: one section alone, measured now and written into docs/BENCHMARKS.md in its place, with
// the machine's load when it began (these machines are shared: the lead measures again on a quiet one).
const ALONE: Record<string, (command: string) => Promise<string[]>> = {
  'app-load': async (command) => answerRateSection(await answerRates(QUICK ? 1 : 10), command),
  'app-memory': async (command) => appMemorySection(await appMemory(QUICK), command),
};
const ALONE_NOTE =
  'Measured alone, each writing its own section here in place (after `npm run build`): `npm run bench -- app-load` ' +
  "(deliveries one App process answers within GitHub's 10 s) and `npm run bench -- app-memory` (the App's memory " +
  'against repositories × runs × page sessions); `npm run bench:cold-start` prints the cold start.';
const alone = process.argv[2];
if (alone !== undefined) {
  const measureAlone = ALONE[alone];
  if (!measureAlone) {
    process.stderr.write(
      `npm run bench: there is no section "${alone}" to measure alone: name one of ${Object.keys(ALONE).join(', ')}, or none for every section\n`,
    );
    process.exit(2);
  }
  const load = loadavg().map((l) => l.toFixed(1));
  const lines = await measureAlone(`npm run bench -- ${alone}`);
  lines.push(
    `Measured alone on ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, at a load average of ${load.join(' / ')} (1 / 5 / 15 min) when it began.`,
    '',
  );
  writeSection(lines, OUT);
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exit(0);
}

const rows: Row[] = [];
const graph100 = parseGraph({ path: 'g.yml', text: graphText(100) });

const foldTimes = new Map<number, number>();
for (const n of FOLD_SIZES) {
  const j = journalOf(graph100, n);
  const text = serializeJournal(j);
  const ms = measure(() => fold(j, graph100));
  foldTimes.set(n, ms);
  const base = measure(() => {
    let c = 0;
    for (const e of j.events) if (e.type === 'NodeDispatched') c++;
    return c;
  });
  rows.push({
    figure: `fold ${n.toLocaleString('en')} events`,
    target: n === 100_000 ? '< 250 ms' : '',
    measured: ms,
    baseline: base,
    baselineName: 'a loop over the same events',
  });
  const parseMs = measure(() => parseJournal(text, 'bench.json'));
  rows.push({
    figure: `parse and validate ${n.toLocaleString('en')} events (${(text.length / 1e6).toFixed(1)} MB)`,
    target: '',
    measured: parseMs,
    baseline: measure(() => JSON.parse(text)),
    baselineName: 'JSON.parse of the same text',
  });
}

const loadRows = JSON.parse(
  execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--graph-load'], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  }),
) as Row[];
rows.push(...loadRows);
const loadTimes = new Map(loadRows.map((r, i) => [LOAD_SIZES[i]!, r.measured]));

const [fa, fb] = [FOLD_SIZES[0]!, FOLD_SIZES[1]!];
const [la, lb] = [LOAD_SIZES[0]!, LOAD_SIZES.at(-1)!];
const n = (x: number) => x.toLocaleString('en');
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const md = [
  '# Benchmarks',
  '',
  ...(QUICK
    ? ['**Quick mode (BENCH_QUICK=1): small sizes, one run each; these figures mean nothing.**', '']
    : []),
  `Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}; ${machine}. Each figure is the median of ${RUNS} runs`,
  'after a warm-up; each baseline is measured in the same run, so the ratio is what to compare across machines.',
  '',
  ALONE_NOTE,
  '',
  '| figure | target | measured (ms) | baseline (ms) | ratio | baseline is |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) =>
      `| ${r.figure} | ${r.target} | ${fmt(r.measured)} | ${fmt(r.baseline)} | ${(r.measured / r.baseline).toFixed(1)}x | ${r.baselineName} |`,
  ),
  '',
  `Growth: folding ${fb / fa}x the events (${n(fa)} → ${n(fb)}) took ${(foldTimes.get(fb)! / foldTimes.get(fa)!).toFixed(1)}x the time (target: at most 12x);`,
  `loading ${lb / la}x the nodes (${n(la)} → ${n(lb)}) took ${(loadTimes.get(lb)! / loadTimes.get(la)!).toFixed(1)}x the time (linear would be ${lb / la}x).`,
  '',
  'Folding excludes reading the file: the parse-and-validate rows show that cost separately (every event is',
  'checked against its schema when a journal is read).',
  '',
  'The graph load runs in a process of its own, as it does in use. Where its time goes (timers around each phase of',
  '`parseGraph` on the 20,000-node file, 2026-11-30, quiet machine): js-yaml about 110 ms, zod 45 ms, ids and edges',
  "20 ms, the cycle search 15 ms, building nodes and their approaches 95 ms, the graph's hash 60 ms; garbage",
  'collection (a CPU profile puts it at a third) is spread over all of them. Changed that day, each against the code',
  'before in alternating processes (medians of 9): the hash is fed a node at a time instead of hashing one sorted copy',
  'of the whole graph written out as megabytes of text (446 → 395 ms, with fewer throw-away arrays per node and a',
  'cycle search by index); nodes and approaches are built with their keys in sorted order, so only the checks are',
  'sorted for the hash (408 → 394 ms). Earlier the same day: approaches stopped `delete`-ing fields, and the alias',
  'check is skipped for a text with no `*` (5-10%). This machine is shared: the same load measured 360-600 ms',
  'within minutes, so compare the ratio to yaml.parse more than the milliseconds.',
  '',
];
const req = await requestsPerStep();
const kinds = (byKind: Record<string, number>) =>
  Object.entries(byKind)
    .map(([k, n]) => `${n} × \`${k}\``)
    .join(', ');
md.push(
  '## GitHub API requests per node step',
  '',
  'Counted by the local GitHub server while `dist/index.js` runs as a child process, as a runner runs it (`bench/action.ts`).',
  '',
  '| step | requests | what they are |',
  '| --- | --- | --- |',
  `| git store, first step of a run (creates the journal branch and the progress comment) | ${totalRequests(req.git.first)} | ${kinds(req.git.first)} |`,
  `| git store, a later step, no GitHub evidence check | ${totalRequests(req.git.steady)} | ${kinds(req.git.steady)} |`,
  `| git store, a later step with one GitHub evidence check | ${totalRequests(req.git.withCheck)} | ${kinds(req.git.withCheck)} |`,
  `| check-run store, first step | ${totalRequests(req.checkRun.first)} | ${kinds(req.checkRun.first)} |`,
  `| check-run store, a later step | ${totalRequests(req.checkRun.steady)} | ${kinds(req.checkRun.steady)} |`,
  '',
  'The journal itself costs one read and two writes per step on the git store (dispatch before the work, record after),',
  'the least the protocol allows; the progress comment adds one update. The check-run store has no compare-and-swap,',
  'so each of its two writes reads the check run before (to refuse a write over a newer journal) and after (to detect a',
  'lost update), and the step reads it once more as it ends (a lost update after its last write): 1 + 2 × 3 + 1',
  'requests for the journal on a later step. A first step also looks for the run where a force-push may have left',
  "it (the pull request's earlier commits, and the pointer in interlock's progress comment) before it creates the",
  'check run.',
  '',
);
const effects = await requestsPerEffect();
md.push(
  '## GitHub API requests per effect',
  '',
  'What an effect node adds to its step: the step (`node: all`, `dist/index.js` against the local GitHub, writes spaced',
  'as GitHub asks) minus the same step with a plain command in its place, both in this run (`bench/effects.ts`). Target:',
  'a `pull_request` effect of a 20-file change in at most 30 requests.',
  '',
  '| effect | requests added | the step / the same step without it | what they are |',
  '| --- | --- | --- | --- |',
  ...effects.map((e) => `| ${e.effect} | ${e.total} | ${e.step} / ${e.baseline} | ${kinds(e.added)} |`),
  '',
  'The effect reads its mark first (the branch tip, the pull requests of the branch, the comments, the release of the',
  'tag) and writes only what is missing; the 19 text files go inline in the tree, the binary one is a blob.',
  '',
);
const chain = await writesPerNode(QUICK ? 3 : 10, QUICK ? 0 : 1000);
md.push(
  '## Journal writes per node in `node: all`',
  '',
  `One step with \`node: all\` runs a linear graph of ${chain.nodes} nodes through \`dist/index.js\` against the local GitHub, with`,
  "GitHub's one-second spacing between writes (`bench/writes-per-node.ts`); the server counts the journal's PUTs.",
  '',
  '| nodes | journal PUTs | landed writes | writes per node | step wall time |',
  '| --- | --- | --- | --- | --- |',
  `| ${chain.nodes} | ${chain.journal_puts} | ${chain.journal_writes} | ${chain.per_node.toFixed(1)} | ${(chain.step_ms / 1000).toFixed(1)} s |`,
  '',
  'Each write records one node and dispatches the next, so a node costs one write; the first write also starts',
  'the run, and the last also completes it. The PUT that is refused while the journal branch is first created is',
  'counted in the PUTs, not in the writes. Before this change a node cost two writes (dispatch, then record), a',
  'second apart: 10 nodes took 21 PUTs, 20 writes and 23.8 s (measured once with the same script against the',
  'previous bundle).',
  '',
);
md.push(...(await matrixSection(QUICK)));
md.push(...(await forEachSection(QUICK)));
md.push(...(await loadSection(QUICK)));
const ser = await serializedFigures(5, QUICK ? 1 : 3);
md.push(
  '## A serialized chain against one node a call',
  '',
  'The CLI runs a chain of 5 prompt nodes of one session with the real Claude Code CLI against the scripted model',
  'server (`bench/serialized.ts`), once with `sessions.work.serialized: true` and once without; the server counts',
  "the model calls (Claude Code's side request for a session title excluded). Wall time is the whole run, median.",
  '',
  ...(ser
    ? [
        `| mode | model calls | wall time (median of ${ser.runs}) |`,
        '| --- | --- | --- |',
        `| one node a call | ${ser.calls.one_a_call} | ${(ser.wall_ms.one_a_call / 1000).toFixed(2)} s |`,
        `| serialized | ${ser.calls.serialized} | ${(ser.wall_ms.serialized / 1000).toFixed(2)} s |`,
        `| ratio | ${(ser.calls.one_a_call / ser.calls.serialized).toFixed(1)}x fewer | ${(ser.wall_ms.one_a_call / ser.wall_ms.serialized).toFixed(1)}x faster |`,
      ]
    : [
        'Claude Code is not installed (`.agent-clis/`, see test/support/agent-clis.ts): not measured in this run.',
      ]),
  '',
  'The scripted model answers at once, so the time saved here is the agent CLI started, and its session resumed,',
  'four times fewer; against a real model each call also costs its latency and the context it sends again.',
  '',
);
const COLD_RUNS = QUICK ? 1 : 21;
const cold = await coldStart(COLD_RUNS, !QUICK);
md.push(
  '## Cold start of dist/index.js',
  '',
  'From spawning `node dist/index.js` to its first API request arriving at a local server, against a bare bundle built in the',
  'same run by the same bundler (esbuild, `scripts/build.mjs`) from `bench/bare/index.ts` (reads an input with',
  '`@actions/core`, makes one request, sets an output).',
  `Medians of ${COLD_RUNS} interleaved runs; on this shared machine a single run's ratio can move by 0.2x, so compare several.`,
  '',
  ...coldStartTable(cold),
  '',
);
md.push(
  'Where the time went (CPU profiles of `node --cpu-prof dist/index.js`, Node 20, 2026-11-30): the bundle was 640 kB',
  "from ncc, and V8 spent about 90 ms parsing it; Octokit's retry and throttling plugins queued the first request",
  'through Bottleneck timers, about 10 ms of waiting. Changed that day, each measured against the bundle before in the',
  'same interleaved runs (medians of 11-15):',
  '',
  '- esbuild instead of ncc, with zod imported as a namespace so its translations of error messages (about 60 languages, 260 kB) are left out, and the careful',
  '  YAML parser (needed only to locate an error) in `dist/yaml.cjs` beside the bundle: 656 kB → 420 kB;',
  '  Node 20 267 → 220 ms, Node 24 275 → 241 ms.',
  '- One request hook in `src/github/client.ts` (retries, rate limits, spaced writes) instead of the two plugins and',
  '  Bottleneck: Node 20 221 → 210 ms, Node 24 242 → 232 ms, and no timer before any request.',
  '',
  'Isolation (2026-11-30, `isolation: auto`, here as root) put the node user before the first request: three `id`',
  'processes to find it, then `test` run as it. By 2026-12-01 the ratio on Node 20 had grown to 1.47-1.50x (two',
  'runs of 15). Since then the user is read from /etc/passwd (where `useradd` writes it; `id` only for a user',
  "from a directory service), and the client no longer loads Node's `fetch` (below): 1.19-1.22x in three runs of",
  '21 the same day, Node 24 1.23-1.31x.',
  '',
  'What is left, beyond `node -e 0`: about 30 ms compiling the bundle, 15 ms running its top level (zod and Octokit',
  "build their tables), 15 ms of garbage collection, 10 ms loading Node built-ins, and the step's own work (reading the",
  'inputs, the event and the graph).',
  '',
  'By 2026-12-02 the code of every room had grown into the step: 1.52-1.61x on Node 20 and 1.72-1.92x on Node 24',
  '(runs of 11). Changed that day (docs/ARCHITECTURE.md, "Loading"), each measured as CPU time from start to the',
  'first connection, medians of 15-21 interleaved runs against the bundle before:',
  '',
  "- Built-ins: src/'s `import { … } from 'node:…'` bundled as one `require` each, and `http`, `https` and `zlib`",
  "  loaded on first use: Node's ES module facade of `node:fs` loaded fs/promises and readline, and on Node 24 that",
  "  of `node:http` loaded fetch's client, http2, TLS and worker threads. Node 24: 215 → 166-178 ms.",
  "- The Action's Octokit with only the REST methods src/ calls (42 of about 1,100; the table was 80 kB): with the",
  '  built-ins, Node 20: 167 → 156 ms.',
  '- zod without its compiled fast path (six parsers made with `new Function` before the first request): 162 → 149 ms.',
  '- The effects, the serialized chain, the egress proxy and the refusal reply imported when entered.',
  '',
  "Tried and left: esbuild's code splitting. It gives each set of entries that share a module a file of its own; a",
  'step loaded 20 to 38 files and started slower than from one file (Node 20: 192 → 252 ms), so the Action is one',
  'file in which a room reached through `import()` runs only when entered, and is only parsed otherwise.',
  '',
  'Seven runs of 21 after these changes, the same day, on a machine shared with four other builds: Node 20',
  '1.16-1.46x (1.30x and 1.27x with the machine otherwise idle), Node 24 1.11-1.20x. What holds Node 20 above 1.25x:',
  "its bare bundle costs only 25-40 ms beyond `node -e 0` (on Node 24 the bare bundle's `fetch` loads its HTTP",
  "client, about 90 ms), against the step's own work before its first request, which no room holds: building the",
  "journal's event schemas (about 10 ms; the step's first write checks its events with them), reading and checking",
  'the graph (js-yaml and zod), `test` run as the node user, and loading `child_process` and `crypto`.',
  '',
);
const cpu = await cpuFigures(QUICK ? 1 : 9);
md.push(
  '## CPU time of a step',
  '',
  "Each process's own user + system time, read as it exits (`bench/cpu.ts`); medians of " +
    `${QUICK ? 1 : 9} interleaved runs. A runner pays this for every step.`,
  '',
  '| process | CPU (ms) | baseline | baseline CPU (ms) | ratio |',
  '| --- | --- | --- | --- | --- |',
  `| a \`node: all\` step of dist/index.js: 3 nodes, git store, local GitHub | ${cpu.step_ms.toFixed(0)} | \`node -e 0\` | ${cpu.empty_ms.toFixed(0)} | ${(cpu.step_ms / cpu.empty_ms).toFixed(1)}x |`,
  `| ${cpu.requests} requests through httpFetch (\`src/github/http-fetch.ts\`) | ${cpu.http_fetch_ms.toFixed(0)} | the same through Node's \`fetch\` | ${cpu.fetch_ms.toFixed(0)} | ${(cpu.http_fetch_ms / cpu.fetch_ms).toFixed(2)}x |`,
  '',
  "Node's own `fetch` loads its bundled HTTP client and compiles a WebAssembly HTTP parser in each process on first",
  "use; the Action's client and the App's send their requests through `httpFetch`, over `node:http`, instead",
  '(2026-12-01). With it, the crash matrix of `npm run reliability`, which starts thousands of steps, took a third',
  'less CPU per Action scenario (docs/RELIABILITY.md).',
  '',
);
const steps = await stepCpu(QUICK ? 1 : 9);
md.push(
  "## CPU of the crash matrix's steps",
  '',
  "The two steps the crash matrix of `npm run reliability` starts most, each process's own user + system time",
  `(\`bench/step-cpu.ts\`; medians of ${steps.runs} interleaved runs, on the Node the suites run steps on): a graph of two`,
  'nodes, the second with `approval: before`, on the git store against the local GitHub.',
  '',
  ...stepCpuRows(steps),
  '',
  ...STEP_CPU_NOTES,
  '',
);
const size = await bundleSize();
md.push(
  '## Bundle size',
  '',
  `dist/index.js: ${(size.bytes / 1024).toFixed(0)} kB minified. Largest contributors to it: ${size.top
    .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} kB`)
    .join(', ')}.`,
  '',
);
const growth = bytesPerWrite(QUICK ? [100, 1_000] : [100, 1_000, 10_000]);
md.push(
  '## Bytes written to GitHub per event as a journal grows',
  '',
  'The git store writes the whole journal on every write (the contents API replaces a file whole), so the bytes sent',
  'per appended event grow linearly with the journal. Measured on journals of realistic dispatch/record events:',
  '',
  '| events in the journal | journal (bytes) | one PUT sends (base64, bytes) | bytes per event |',
  '| --- | --- | --- | --- |',
  ...growth.map(
    (g) =>
      `| ${g.events.toLocaleString('en')} | ${g.journal_bytes.toLocaleString('en')} | ${g.put_bytes.toLocaleString('en')} | ${(g.journal_bytes / g.events).toFixed(0)} |`,
  ),
  '',
  'A run of a typical graph (tens of nodes, a few attempts each) stays under 100 events, about 25 kB a write. The layout',
  'that keeps writes bounded, not built yet: `runs/<run-id>/` holding sealed segments of 500 events plus a small head',
  'file naming the segments and the open tail; a write then replaces only the head and the tail (compare-and-swap on the',
  "head's blob sha), so its size no longer grows with the run.",
  '',
);
md.push(
  '## Parallel jobs appending to one journal (local GitHub server)',
  '',
  "Each job dispatches and records its own node through the git store's compare-and-swap, all started at once",
  '(`bench/contention.ts`). Latency is per append, including retries after conflicts.',
  '',
  '| jobs | events | lost | dispatched twice | requests per appended event | conflicts | p50 (ms) | p99 (ms) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
);
for (const jobs of QUICK ? [2, 4] : [2, 4, 8, 16, 32]) {
  const c = await contention(jobs);
  md.push(
    `| ${c.jobs} | ${c.events} | ${c.lost} | ${c.doubleDispatched} | ${c.requestsPerEvent.toFixed(1)} | ${c.conflicts} | ${c.p50_ms.toFixed(0)} | ${c.p99_ms.toFixed(0)} |`,
  );
}
md.push(
  '',
  'No event is lost and no node dispatched twice at any level; the cost of contention is retries: every conflict is a',
  'fresh read and a new decision. Past 8 jobs a fan-out is better split into waves (plan, matrix, plan again).',
  '',
  '## Runner minutes while a node waits for approval',
  '',
  'Zero by design: a held or escalated node ends the step (`status=held`), so no job runs while people decide. The',
  'approval (`/approve-rerun`) dispatches the workflow again, and the next job starts at the node. An approval step that',
  'polls from a live runner keeps that runner busy, and billed per minute, for as long as people take: hours. A job',
  'gated by an environment with required reviewers also waits without a runner, but the gate stands only before a job',
  'starts, so it cannot stop a half-run node from being repeated. The end-to-end tests show the step exiting at the hold.',
  '',
);
const hooks = await webhookThroughput(QUICK ? 16 : 200, QUICK ? 4 : 8);
md.push(
  '## Webhook deliveries per second (the app)',
  '',
  'Signed `issue_comment` deliveries, 8 at a time, to the app (Probot, `src/app/probot.ts`) and to a bare Probot app that only',
  'receives them, both behind the same `createNodeMiddleware`, against the local GitHub server (`bench/webhooks.ts`).',
  '',
  '| deliveries | interlock (per s) | bare Probot (per s) | ratio | interlock p50 / p99 (ms) | bare p50 / p99 (ms) |',
  '| --- | --- | --- | --- | --- | --- |',
  ...hooks.map(
    (h) =>
      `| ${h.kind} | ${h.interlock_per_s.toFixed(0)} | ${h.bare_per_s.toFixed(0)} | ${(h.interlock_per_s / h.bare_per_s).toFixed(2)}x | ${h.p50_ms.toFixed(0)} / ${h.p99_ms.toFixed(0)} | ${h.bare_p50_ms.toFixed(0)} / ${h.bare_p99_ms.toFixed(0)} |`,
  ),
  '',
  "A plain comment (most deliveries an installed app sees) is handled at the bare app's rate: the handler parses it",
  'and returns. A command cannot be: authorization and the answer are API requests (a reaction, the permission, the',
  'journal branch, the reply, the final reaction); the App answers a delivery once handled, so a failure shows in',
  'its delivery log, or 202 after `INTERLOCK_ANSWER_MS` (next section). The 0.8x target holds for plain comments and is the wrong target for commands,',
  "which are bounded by GitHub's API rate, not by the app: a few commands an hour per repository.",
  '',
);
md.push(...appStateSection(await appStateFigures(QUICK)));
md.push(...answerRateSection(await answerRates(QUICK ? 1 : 10), 'npm run bench'));
md.push(...appMemorySection(await appMemory(QUICK), 'npm run bench'));
md.push(...connectLatencySection(await connectLatency(QUICK ? 20 : 200)));
const kp = await keyProxyLatency(QUICK ? 20 : 200);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
md.push(
  '## The key proxy: added latency per model request',
  '',
  `${kp.requests} streamed Anthropic Messages calls (SSE) to the scripted model server (\`test/support/model-server.ts\`),`,
  'each sent straight to it and through the key proxy (`src/os/proxies/key-proxy.ts`) in turn, keep-alive on both, timed',
  'from the request to the last byte of the answer (`bench/key-proxy.ts`).',
  '',
  '| | direct (ms) | through the key proxy (ms) | ratio | added (ms) | metered and recorded (ms) | added by metering (ms) |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  `| median | ${kp.direct_p50_ms.toFixed(2)} | ${kp.proxied_p50_ms.toFixed(2)} | ${ratio(kp.proxied_p50_ms, kp.direct_p50_ms)} | ${(kp.proxied_p50_ms - kp.direct_p50_ms).toFixed(2)} | ${kp.metered_p50_ms.toFixed(2)} | ${(kp.metered_p50_ms - kp.proxied_p50_ms).toFixed(2)} |`,
  `| p99 | ${kp.direct_p99_ms.toFixed(2)} | ${kp.proxied_p99_ms.toFixed(2)} | ${ratio(kp.proxied_p99_ms, kp.direct_p99_ms)} | ${(kp.proxied_p99_ms - kp.direct_p99_ms).toFixed(2)} | ${kp.metered_p99_ms.toFixed(2)} | ${(kp.metered_p99_ms - kp.proxied_p99_ms).toFixed(2)} |`,
  '',
  `Metered and recorded: the same call with an attempt's placeholder, its usage read and its exchange kept (issue 48); the recording takes ${kp.recording_bytes_per_call.toLocaleString('en-US')} bytes per call here (a short scripted answer: a real one is its prompt and answer's size).`,
  '',
  'The local server answers in about a millisecond, so the ratio is the worst case: against a real model API,',
  'whose answers take seconds, the added milliseconds are what counts.',
  '',
);
md.push(...pageSection(await pageFigures(QUICK ? 3 : 20, QUICK ? 2 : 10)));
writeFileSync(OUT, md.join('\n'));
// The repository's formatter owns Markdown tables: format the generated page so the lint check stays green.
execFileSync(
  process.execPath,
  [new URL('../node_modules/@biomejs/biome/bin/biome', import.meta.url).pathname, 'format', '--write', OUT],
  {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: 'ignore',
  },
);
process.stdout.write(`${md.join('\n')}\n`);
