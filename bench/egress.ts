// The latency a node's CONNECT pays for going through interlock's egress proxy (issue 27): from inside the node's
// network namespace, through the relay, the Unix socket and the proxy, to a local HTTP server, against the same
// client connecting to that server directly (outside a namespace), in the same run. Each request is a new
// connection: connect, (CONNECT), one GET, the whole answer, close. Needs root or passwordless sudo.
import { createServer } from 'node:http';
import { runScript } from '../src/os/exec.js';
import { netnsProblem } from '../src/os/netns.js';
import { egressDecision, egressPick, egressRefusal } from '../src/protocol/attempt/egress.js';

/** The client: `n` sequential requests, each on a new connection, directly or through a CONNECT; ms each, as JSON. */
const CLIENT = `const net = require('net');
const [mode, host, port, n] = process.argv.slice(1);
const proxy = new URL(process.env.HTTP_PROXY || 'http://127.0.0.1:1');
const once = () => new Promise((resolve, reject) => {
  const t0 = process.hrtime.bigint();
  const s = mode === 'proxy' ? net.connect(Number(proxy.port), '127.0.0.1') : net.connect(Number(port), host);
  let stage = mode === 'proxy' ? 'connect' : 'get';
  let got = '';
  const get = () => s.write('GET / HTTP/1.1\\r\\nHost: ' + host + '\\r\\nConnection: close\\r\\n\\r\\n');
  s.on('connect', () => (mode === 'proxy' ? s.write('CONNECT ' + host + ':' + port + ' HTTP/1.1\\r\\nHost: ' + host + ':' + port + '\\r\\n\\r\\n') : get()));
  s.on('data', (d) => {
    got += d;
    if (stage === 'connect' && got.includes('\\r\\n\\r\\n')) { if (!got.startsWith('HTTP/1.1 200')) reject(new Error(got)); stage = 'get'; got = ''; get(); }
  });
  s.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
  s.on('error', reject);
});
(async () => { const ms = []; for (let i = 0; i < Number(n); i++) ms.push(await once()); console.log(JSON.stringify(ms)); })()
  .catch((e) => { console.error(e.message); process.exit(1); });`;

export interface Latency {
  p50: number;
  p99: number;
}
export interface ConnectLatency {
  requests: number;
  direct: Latency;
  proxied: Latency;
}

function percentiles(ms: number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { p50: at(0.5), p99: at(0.99) };
}

async function client(mode: 'direct' | 'proxy', port: number, n: number): Promise<number[]> {
  const script = `${JSON.stringify(process.execPath)} -e ${shellQuote(CLIENT)} ${mode} 127.0.0.2 ${port} ${n}`;
  const allow = ['127.0.0.2'];
  const r = await runScript({
    script,
    grants: new Map(),
    env: { PATH: process.env.PATH },
    cwd: '/tmp',
    timeoutMs: 120_000,
    keepStdout: 1 << 20,
    ...(mode === 'proxy'
      ? {
          network: {
            passPorts: [],
            rules: {
              decide: (h: string, p: number) => egressDecision(allow, h, p),
              refusal: (h: string, p: number) => egressRefusal('bench', h, p),
              pick: (h: string, p: number, a: readonly string[]) => egressPick('bench', allow, h, p, a),
              record: () => {},
            },
          },
        }
      : {}),
  });
  if (r.exitCode !== 0) throw new Error(`the ${mode} client failed: ${r.tail}`);
  return JSON.parse(r.stdout!.trim().split('\n').pop()!) as number[];
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Median and p99 per request of `n` requests, directly and through the proxy; undefined (with why) where no namespace can be made. */
export async function connectLatency(n: number): Promise<ConnectLatency | { skipped: string }> {
  const why = netnsProblem();
  if (why) return { skipped: why };
  const server = createServer((_req, res) => res.end('ok\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.2', () => r()));
  const port = (server.address() as { port: number }).port;
  try {
    // A warm-up of each, then the measured runs, alternated so drift on a noisy machine hits both.
    await client('direct', port, 10);
    await client('proxy', port, 10);
    const direct: number[] = [];
    const proxied: number[] = [];
    for (let i = 0; i < 4; i++) {
      direct.push(...(await client('direct', port, n / 4)));
      proxied.push(...(await client('proxy', port, n / 4)));
    }
    return { requests: n, direct: percentiles(direct), proxied: percentiles(proxied) };
  } finally {
    server.close();
  }
}

/** The section of docs/BENCHMARKS.md. */
export function connectLatencySection(r: ConnectLatency | { skipped: string }): string[] {
  const head = [
    '## Added latency per CONNECT through the egress proxy',
    '',
    "A node with `network:` reaches the network only through interlock's forward proxy (issue 27). The same client makes",
    'one request per new connection to a local HTTP server on 127.0.0.2 (connect, one `GET`, the whole answer, close):',
    "directly, outside a namespace, and from inside a node's network namespace through the relay, the Unix socket and",
    'the proxy (`CONNECT`, then the `GET` in the tunnel), the two alternated in one run (`bench/egress.ts`).',
    '',
  ];
  if ('skipped' in r) return [...head, `Not measured here: ${r.skipped}.`, ''];
  const f = (x: number) => x.toFixed(2);
  return [
    ...head,
    '| requests | direct p50 / p99 (ms) | through the proxy p50 / p99 (ms) | ratio p50 / p99 | added p50 / p99 (ms) |',
    '| --- | --- | --- | --- | --- |',
    `| ${r.requests} | ${f(r.direct.p50)} / ${f(r.direct.p99)} | ${f(r.proxied.p50)} / ${f(r.proxied.p99)} | ${(r.proxied.p50 / r.direct.p50).toFixed(2)}x / ${(r.proxied.p99 / r.direct.p99).toFixed(2)}x | ${f(r.proxied.p50 - r.direct.p50)} / ${f(r.proxied.p99 - r.direct.p99)} |`,
    '',
    'The proxy adds a round trip (the `CONNECT` and its answer) and two hops (the relay, then the proxy), on one',
    'machine. Against a registry or an API across the internet (tens of milliseconds per request) the added time is',
    'small; what it costs is per connection, so clients that keep connections alive (npm, the agents) pay it once.',
    '',
  ];
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const r = await connectLatency(Number(process.env.BENCH_EGRESS_REQUESTS ?? 200));
  process.stdout.write(`${connectLatencySection(r).join('\n')}\n`);
  process.exit(0);
}
