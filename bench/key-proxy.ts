// The key proxy's added latency per model request: a streamed Anthropic Messages call to the scripted model
// server, sent straight to it and through the key proxy (src/os/proxies/key-proxy.ts) in alternation, so drift on a noisy
// machine falls on both alike. Each figure is the time from sending the request to the last byte of its SSE answer.
import { Agent, request } from 'node:http';
import { startKeyProxy } from '../src/os/proxies/key-proxy.js';
import { startModelServer } from '../test/support/model-server.js';

export interface KeyProxyFigures {
  requests: number;
  direct_p50_ms: number;
  direct_p99_ms: number;
  proxied_p50_ms: number;
  proxied_p99_ms: number;
  /** Through an attempt's tab: metered and recorded (issue 48). */
  metered_p50_ms: number;
  metered_p99_ms: number;
  /** The recording's size per model call, in bytes. */
  recording_bytes_per_call: number;
}

const BODY = JSON.stringify({
  model: 'claude-bench',
  max_tokens: 64,
  stream: true,
  messages: [{ role: 'user', content: 'hello' }],
  tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
});

function timed(agent: Agent, base: string, key: string): Promise<number> {
  const u = new URL(base);
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/v1/messages?beta=true',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
};

export async function keyProxyLatency(n: number): Promise<KeyProxyFigures> {
  const model = await startModelServer({ script: [], whenDone: { text: 'ok', usage: { output_tokens: 3 } } });
  const proxy = (await startKeyProxy(['ANTHROPIC_API_KEY'], {
    ANTHROPIC_API_KEY: 'sk-ant-bench',
    ANTHROPIC_BASE_URL: model.url,
  }))!;
  // Keep-alive on both sides, as the engines' clients do.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const direct: number[] = [];
  const proxied: number[] = [];
  const metered: number[] = [];
  const tab = proxy.openTab([], true);
  const tabKey = tab.env().ANTHROPIC_API_KEY!;
  try {
    for (let i = 0; i < 10; i++) {
      await timed(agent, model.url, 'sk-ant-bench');
      await timed(agent, proxy.env.ANTHROPIC_BASE_URL!, proxy.env.ANTHROPIC_API_KEY!);
      await timed(agent, proxy.env.ANTHROPIC_BASE_URL!, tabKey);
    }
    for (let i = 0; i < n; i++) {
      direct.push(await timed(agent, model.url, 'sk-ant-bench'));
      proxied.push(await timed(agent, proxy.env.ANTHROPIC_BASE_URL!, proxy.env.ANTHROPIC_API_KEY!));
      metered.push(await timed(agent, proxy.env.ANTHROPIC_BASE_URL!, tabKey));
    }
  } finally {
    agent.destroy();
    await proxy.stop();
    await model.close();
  }
  if (model.requests.some((r) => r.headers['x-api-key'] !== 'sk-ant-bench'))
    throw new Error('a request reached the model server without the real key');
  return {
    requests: n,
    direct_p50_ms: pct(direct, 50),
    direct_p99_ms: pct(direct, 99),
    proxied_p50_ms: pct(proxied, 50),
    proxied_p99_ms: pct(proxied, 99),
    metered_p50_ms: pct(metered, 50),
    metered_p99_ms: pct(metered, 99),
    recording_bytes_per_call: Math.round(tab.recording!.bytes / Math.max(1, tab.recording!.lines.length)),
  };
}
