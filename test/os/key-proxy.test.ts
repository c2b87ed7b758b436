// The key proxy against a local upstream: the placeholder is swapped for the real key, a request without it or to
// another path never reaches the upstream, answers stream through chunk by chunk, the upstream's errors come back
// as they were, and stop() ends every connection. The rules themselves (src/os/proxies/key-proxy-rules.ts) are pure.
import { Agent, createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withoutWithheldCredentials } from '../../src/os/node-user/node-credentials.js';
import { type KeyProxy, serveAgentCredentials, startKeyProxy } from '../../src/os/proxies/key-proxy.js';
import {
  credentialConflicts,
  decideRequest,
  type ModelKey,
  nodeEnvFor,
  parseAgentCredentials,
  withLoopbackNoProxy,
} from '../../src/os/proxies/key-proxy-rules.js';

const REAL_ANTHROPIC = 'sk-ant-real-0123456789';
const REAL_OPENAI = 'sk-real-openai-abcdef';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Upstream {
  url: string;
  seen: Seen[];
  /** Each request's answer; the default is a JSON 200. */
  answer: (req: IncomingMessage, res: import('node:http').ServerResponse, body: string) => void;
  server: Server;
}

const upstreamsMade: Upstream[] = [];
const upgraded: Socket[] = [];
const proxies: KeyProxy[] = [];

async function upstream(): Promise<Upstream> {
  const u: Upstream = {
    url: '',
    seen: [],
    answer: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    },
    server: undefined as unknown as Server,
  };
  u.server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      u.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      u.answer(req, res, body);
    });
  });
  await new Promise<void>((r) => u.server.listen(0, '127.0.0.1', r));
  u.url = `http://127.0.0.1:${(u.server.address() as AddressInfo).port}`;
  upstreamsMade.push(u);
  return u;
}

async function proxyTo(up: Upstream, extra: Record<string, string> = {}): Promise<KeyProxy> {
  const p = await startKeyProxy(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'], {
    ANTHROPIC_API_KEY: REAL_ANTHROPIC,
    OPENAI_API_KEY: REAL_OPENAI,
    ANTHROPIC_BASE_URL: up.url,
    OPENAI_BASE_URL: `${up.url}/v1`,
    ...extra,
  });
  proxies.push(p!);
  return p!;
}

afterEach(async () => {
  for (const p of proxies.splice(0)) await p.stop();
  for (const s of upgraded.splice(0)) s.destroy();
  for (const u of upstreamsMade.splice(0)) {
    u.server.closeAllConnections();
    await new Promise((r) => u.server.close(r));
  }
});

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

function call(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path, headers: opts.headers },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const anthropic = (p: KeyProxy) => ({
  'x-api-key': p.env.ANTHROPIC_API_KEY!,
  'content-type': 'application/json',
});
const openai = (p: KeyProxy) => ({ authorization: `Bearer ${p.env.OPENAI_API_KEY!}` });

describe('the key proxy swaps the placeholder for the real key', () => {
  it('Anthropic Messages: x-api-key replaced, query, body and other headers unchanged', async () => {
    const up = await upstream();
    const p = await proxyTo(up);
    const body = '{"model":"claude","messages":[],"stream":true}';
    const r = await call(p.port, {
      path: '/v1/messages?beta=true',
      headers: { ...anthropic(p), 'anthropic-version': '2023-06-01', 'anthropic-beta': 'x-2025' },
      body,
    });
    expect(r.status).toBe(200);
    expect(up.seen).toHaveLength(1);
    expect(up.seen[0]).toMatchObject({ method: 'POST', url: '/v1/messages?beta=true', body });
    expect(up.seen[0]!.headers['x-api-key']).toBe(REAL_ANTHROPIC);
    expect(up.seen[0]!.headers['anthropic-version']).toBe('2023-06-01');
    expect(up.seen[0]!.headers['anthropic-beta']).toBe('x-2025');
    expect(JSON.stringify(up.seen[0]!.headers)).not.toContain('placeholder');
  });

  it('OpenAI Responses: Authorization replaced, the upstream base path kept (…/v1/responses)', async () => {
    const up = await upstream();
    const p = await proxyTo(up);
    const r = await call(p.port, { path: '/v1/responses', headers: openai(p), body: '{}' });
    expect(r.status).toBe(200);
    expect(up.seen[0]).toMatchObject({ url: '/v1/responses' });
    expect(up.seen[0]!.headers.authorization).toBe(`Bearer ${REAL_OPENAI}`);
  });

  it('Gemini generateContent: the key from x-goog-api-key or the key query parameter goes up in the header only', async () => {
    const up = await upstream();
    const p = await startKeyProxy(['GEMINI_API_KEY'], {
      GEMINI_API_KEY: 'AIza-real-gemini',
      GOOGLE_GEMINI_BASE_URL: up.url,
    });
    proxies.push(p!);
    expect(p!.env.GOOGLE_GEMINI_BASE_URL).toBe(`http://127.0.0.1:${p!.port}`);
    const ph = p!.env.GEMINI_API_KEY!;
    const path = '/v1beta/models/gemini-2.5-flash:streamGenerateContent';
    const r = await call(p!.port, { path: `${path}?alt=sse`, headers: { 'x-goog-api-key': ph }, body: '{}' });
    expect(r.status).toBe(200);
    await call(p!.port, { path: `${path}?key=${ph}&alt=sse`, body: '{}' });
    expect(up.seen.map((s) => s.url)).toEqual([`${path}?alt=sse`, `${path}?alt=sse`]);
    for (const s of up.seen) expect(s.headers['x-goog-api-key']).toBe('AIza-real-gemini');
    expect(JSON.stringify(up.seen)).not.toContain('placeholder');
    // Not a model call, two keys at once, or no placeholder: refused before anything goes upstream.
    const files = await call(p!.port, {
      path: '/v1beta/files',
      headers: { 'x-goog-api-key': ph },
      body: '{}',
    });
    expect(files.status).toBe(404);
    const twice = await call(p!.port, { path: `${path}?key=${ph}`, headers: { 'x-goog-api-key': ph } });
    expect(twice.status).toBe(401);
    const none = await call(p!.port, { path, headers: { 'x-goog-api-key': 'AIza-guess' } });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    expect(up.seen).toHaveLength(2);
  });

  it('a gateway base URL with a path of its own gets the call under that path', async () => {
    const up = await upstream();
    const p = await proxyTo(up, { ANTHROPIC_BASE_URL: `${up.url}/gateway/anthropic/` });
    await call(p.port, { path: '/v1/messages/count_tokens', headers: anthropic(p), body: '{}' });
    expect(up.seen[0]!.url).toBe('/gateway/anthropic/v1/messages/count_tokens');
  });

  it("answers Claude Code's HEAD / itself: nothing goes upstream, no key needed", async () => {
    const up = await upstream();
    const p = await proxyTo(up);
    const r = await call(p.port, { method: 'HEAD', path: '/' });
    expect(r.status).toBe(200);
    expect(up.seen).toEqual([]);
  });

  it('listens on the loopback interface only, on a port of its own', async () => {
    const up = await upstream();
    const p = await proxyTo(up);
    expect(p.port).toBeGreaterThan(0);
    expect(p.env.ANTHROPIC_BASE_URL).toBe(`http://127.0.0.1:${p.port}`);
    expect(p.env.OPENAI_BASE_URL).toBe(`http://127.0.0.1:${p.port}/v1`);
    const other = await proxyTo(up);
    expect(other.port).not.toBe(p.port);
    expect(other.env.ANTHROPIC_API_KEY).not.toBe(p.env.ANTHROPIC_API_KEY);
  });
});

describe('the key proxy refuses what is not a model call with the placeholder', () => {
  it.each([
    ['no key', {}],
    ['a guessed key', { 'x-api-key': 'sk-ant-guess' }],
    ['the real key itself is no placeholder', { 'x-api-key': REAL_ANTHROPIC }],
  ])('%s: 401, and the upstream sees nothing', async (_name, headers) => {
    const up = await upstream();
    const p = await proxyTo(up);
    const r = await call(p.port, { path: '/v1/messages', headers, body: '{}' });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body).error.message).toMatch(/does not carry this step's placeholder key/);
    expect(up.seen).toEqual([]);
  });

  it('a refused request leaves its keep-alive connection usable for the next one', async () => {
    const up = await upstream();
    const p = await proxyTo(up);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { agent, host: '127.0.0.1', port: p.port, method: 'POST', path, headers },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end('{"a":"body"}');
      });
    try {
      expect(await send('/v1/files', anthropic(p))).toBe(404);
      expect(await send('/v1/messages', anthropic(p))).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it("OpenAI's placeholder on the Anthropic path is refused (a key serves its own API only)", async () => {
    const up = await upstream();
    const p = await proxyTo(up);
    const r = await call(p.port, { path: '/v1/messages', headers: openai(p), body: '{}' });
    expect(r.status).toBe(401);
    expect(up.seen).toEqual([]);
  });

  it.each([
    ['POST', '/v1/models', 404],
    ['GET', '/v1/models', 404],
    ['POST', '/v1/files', 404],
    ['POST', '/v1/messages/batches', 404],
    ['POST', '/v1/completions', 404],
    ['POST', '/v1/embeddings', 404],
    ['POST', '/v1/organizations/api_keys', 404],
    ['GET', '/v1/messages', 405],
    ['DELETE', '/v1/responses', 405],
    ['POST', '/v1/messages/../models', 400],
    ['POST', '/v1/%6dessages', 400],
    ['POST', '//v1/messages', 400],
  ])('%s %s with the placeholder: %i, with the rule in its body', async (method, path, status) => {
    const up = await upstream();
    const p = await proxyTo(up);
    const body = method === 'POST' ? '{}' : undefined;
    const r = await call(p.port, { method, path, headers: { ...anthropic(p), ...openai(p) }, body });
    expect(r.status).toBe(status);
    expect(r.body).toMatch(/interlock key proxy: .*it serves POST \/v1\/messages/);
    expect(up.seen).toEqual([]);
  });
});

describe('answers come back as the upstream sent them', () => {
  it('an SSE stream is passed on chunk by chunk: the second event is sent only once the first arrived', async () => {
    const up = await upstream();
    let release: () => void = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    up.answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\ndata: {"n":1}\n\n');
      // Held until the client has the first event: a proxy that buffered would never let the test go on.
      void released.then(() => res.end('event: message_stop\ndata: {"n":2}\n\n'));
    };
    const p = await proxyTo(up);
    const got: string[] = [];
    const done = await new Promise<IncomingMessage['headers']>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: p.port, method: 'POST', path: '/v1/messages', headers: anthropic(p) },
        (res) => {
          res.on('data', (c: Buffer) => {
            got.push(c.toString('utf8'));
            if (got.length === 1) release();
          });
          res.on('end', () => resolve(res.headers));
        },
      );
      req.on('error', reject);
      req.end('{"stream":true}');
    });
    expect(done['content-type']).toBe('text/event-stream');
    expect(got[0]).toBe('event: message_start\ndata: {"n":1}\n\n');
    expect(got.join('')).toBe(
      'event: message_start\ndata: {"n":1}\n\nevent: message_stop\ndata: {"n":2}\n\n',
    );
  });

  it('an upstream error (429 with retry-after) comes back as it was: status, headers, body', async () => {
    const up = await upstream();
    const body = '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}';
    up.answer = (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(body);
    };
    const p = await proxyTo(up);
    const r = await call(p.port, { path: '/v1/messages', headers: anthropic(p), body: '{}' });
    expect(r).toMatchObject({ status: 429, body });
    expect(r.headers['retry-after']).toBe('7');
  });

  it('an upstream that cannot be reached is a 502 naming it', async () => {
    const up = await upstream();
    const gone = up.url;
    up.server.close();
    const p = await proxyTo(up, { ANTHROPIC_BASE_URL: gone });
    const r = await call(p.port, { path: '/v1/messages', headers: anthropic(p), body: '{}' });
    expect(r.status).toBe(502);
    expect(r.body).toContain(`the upstream ${new URL(gone).host} failed`);
  });
});

describe('stop', () => {
  it('ends a stream in flight and refuses new connections', async () => {
    const up = await upstream();
    up.answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n'); // and never ends
    };
    const p = await proxyTo(up);
    const ended = new Promise<string>((resolve) => {
      const req = request(
        { host: '127.0.0.1', port: p.port, method: 'POST', path: '/v1/messages', headers: anthropic(p) },
        (res) => {
          res.once('data', () => void p.stop());
          res.on('close', () => resolve('closed'));
          res.on('error', () => resolve('closed'));
        },
      );
      req.on('error', () => resolve('closed'));
      req.end('{}');
    });
    expect(await ended).toBe('closed');
    await expect(call(p.port, { method: 'HEAD', path: '/' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

/** A raw HTTP upgrade request; resolves with the socket and the response head once the proxy answered. */
function upgrade(port: number, headers: Record<string, string>): Promise<{ socket: Socket; head: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      const lines = Object.entries({
        host: `127.0.0.1:${port}`,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      }).map(([k, v]) => `${k}: ${v}`);
      s.write(`GET /v1/responses HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
    });
    let text = '';
    s.on('data', function onData(c: Buffer) {
      text += c.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end >= 0) {
        s.off('data', onData);
        resolve({ socket: s, head: text });
      }
    });
    s.on('error', reject);
  });
}

describe("Codex's WebSocket to the Responses API", () => {
  it('is relayed with the real key once the upstream switches protocols; bytes flow both ways', async () => {
    const up = await upstream();
    const seen: IncomingMessage['headers'][] = [];
    up.server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      seen.push(req.headers);
      upgraded.push(socket);
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n');
      socket.on('data', (c: Buffer) => socket.write(`echo:${c.toString('utf8')}`));
    });
    const p = await proxyTo(up);
    const { socket, head } = await upgrade(p.port, openai(p));
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    expect(seen[0]!.authorization).toBe(`Bearer ${REAL_OPENAI}`);
    const echoed = new Promise<string>((r) => socket.once('data', (c: Buffer) => r(c.toString('utf8'))));
    socket.write('frame');
    expect(await echoed).toBe('echo:frame');
    // stop() ends the relayed connection too: the upstream's side closes.
    const upClosed = new Promise((r) => upgraded[0]!.once('end', r));
    await p.stop();
    await upClosed;
    socket.destroy();
  });

  it('without the placeholder is refused before anything goes upstream', async () => {
    const up = await upstream();
    let upgrades = 0;
    up.server.on('upgrade', () => upgrades++);
    const p = await proxyTo(up);
    const { socket, head } = await upgrade(p.port, { authorization: 'Bearer sk-guess' });
    expect(head).toMatch(/^HTTP\/1\.1 401 /);
    expect(upgrades).toBe(0);
    socket.destroy();
  });
});

describe('which keys are served, and what nodes get instead', () => {
  const key = (name: string, api: ModelKey['api']): ModelKey => ({
    name,
    api,
    real: `real-${name}`,
    placeholder: `ph-${name}`,
  });

  it('serves only the names the step env holds; none held, no proxy', async () => {
    expect(await startKeyProxy(['ANTHROPIC_API_KEY'], {})).toBeUndefined();
    const p = (await startKeyProxy(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'], { OPENAI_API_KEY: 'sk-x' }))!;
    proxies.push(p);
    expect(p.withheld).toEqual(['OPENAI_API_KEY']);
    expect(p.env.ANTHROPIC_BASE_URL).toBeUndefined();
    const r = await call(p.port, { path: '/v1/messages', headers: { 'x-api-key': 'x' }, body: '{}' });
    expect(r.status).toBe(404);
  });

  it('nodes get placeholders, base URLs, and Codex its CODEX_API_KEY', () => {
    const env = nodeEnvFor([key('ANTHROPIC_API_KEY', 'anthropic'), key('OPENAI_API_KEY', 'openai')], 4100);
    expect(env).toEqual({
      ANTHROPIC_API_KEY: 'ph-ANTHROPIC_API_KEY',
      OPENAI_API_KEY: 'ph-OPENAI_API_KEY',
      CODEX_API_KEY: 'ph-OPENAI_API_KEY',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4100',
      OPENAI_BASE_URL: 'http://127.0.0.1:4100/v1',
    });
  });

  it("Copilot CLI's provider key: its provider's API and base URL, COPILOT_OFFLINE, an unknown type refused with the fix", async () => {
    const up = await upstream();
    const p = (await startKeyProxy(['ANTHROPIC_API_KEY', 'COPILOT_PROVIDER_API_KEY'], {
      ANTHROPIC_API_KEY: REAL_ANTHROPIC,
      ANTHROPIC_BASE_URL: `${up.url}/anthropic`,
      COPILOT_PROVIDER_API_KEY: 'real-copilot-provider',
      COPILOT_PROVIDER_TYPE: 'anthropic',
      COPILOT_PROVIDER_BASE_URL: `${up.url}/provider`,
    }))!;
    proxies.push(p);
    expect(p.env).toMatchObject({
      COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${p.port}`,
      COPILOT_OFFLINE: 'true',
    });
    expect(p.env.COPILOT_PROVIDER_API_KEY).toMatch(/^sk-ant-interlock-placeholder-/);
    // Two keys of one API, each to its own upstream.
    await call(p.port, {
      path: '/v1/messages',
      headers: { 'x-api-key': p.env.COPILOT_PROVIDER_API_KEY! },
      body: '{}',
    });
    await call(p.port, { path: '/v1/messages', headers: anthropic(p), body: '{}' });
    expect(up.seen.map((x) => [x.url, x.headers['x-api-key']])).toEqual([
      ['/provider/v1/messages', 'real-copilot-provider'],
      ['/anthropic/v1/messages', REAL_ANTHROPIC],
    ]);
    const openai = (await startKeyProxy(['COPILOT_PROVIDER_API_KEY'], {
      COPILOT_PROVIDER_API_KEY: 'k',
      COPILOT_PROVIDER_BASE_URL: `${up.url}/v1`,
    }))!;
    proxies.push(openai);
    expect(openai.env.COPILOT_PROVIDER_BASE_URL).toBe(`http://127.0.0.1:${openai.port}/v1`);
    await expect(
      startKeyProxy(['COPILOT_PROVIDER_API_KEY'], {
        COPILOT_PROVIDER_API_KEY: 'k',
        COPILOT_PROVIDER_TYPE: 'bedrock',
      }),
    ).rejects.toThrow(
      /COPILOT_PROVIDER_TYPE in the step's env is "bedrock": .*anthropic, openai and azure.* remove COPILOT_PROVIDER_API_KEY from agent-credentials/,
    );
  });

  it("Copilot CLI's Azure OpenAI provider: api-key swapped, the v1 and versioned routes, a project's path kept", async () => {
    const up = await upstream();
    const p = (await startKeyProxy(['COPILOT_PROVIDER_API_KEY'], {
      COPILOT_PROVIDER_API_KEY: 'real-azure-key',
      COPILOT_PROVIDER_TYPE: 'azure',
      COPILOT_PROVIDER_BASE_URL: `${up.url}/api/projects/demo/`,
    }))!;
    proxies.push(p);
    expect(p.env.COPILOT_PROVIDER_BASE_URL).toBe(`http://127.0.0.1:${p.port}`);
    const key = { 'api-key': p.env.COPILOT_PROVIDER_API_KEY! };
    for (const path of [
      '/openai/v1/responses',
      '/openai/v1/chat/completions',
      '/openai/responses?api-version=2025-04-01-preview',
      '/openai/deployments/team-gpt/chat/completions?api-version=2024-10-21',
    ])
      expect((await call(p.port, { path, headers: key, body: '{}' })).status).toBe(200);
    expect(up.seen.map((x) => [x.url, x.headers['api-key'], x.headers.authorization])).toEqual([
      ['/api/projects/demo/openai/v1/responses', 'real-azure-key', undefined],
      ['/api/projects/demo/openai/v1/chat/completions', 'real-azure-key', undefined],
      ['/api/projects/demo/openai/responses?api-version=2025-04-01-preview', 'real-azure-key', undefined],
      [
        '/api/projects/demo/openai/deployments/team-gpt/chat/completions?api-version=2024-10-21',
        'real-azure-key',
        undefined,
      ],
    ]);
    // The placeholder as a bearer token, a wrong key, another path: refused, nothing sent on.
    const refusals = await Promise.all([
      call(p.port, { path: '/openai/v1/responses', headers: { authorization: `Bearer ${key['api-key']}` } }),
      call(p.port, { path: '/openai/v1/responses', headers: { 'api-key': 'real-azure-key' } }),
      call(p.port, { path: '/openai/v1/files', headers: key }),
      call(p.port, { path: '/openai/deployments/a/b/chat/completions', headers: key }),
    ]);
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 404, 404]);
    expect(refusals[0]!.body).toContain('(api-key)');
    expect(up.seen).toHaveLength(4);
    // An Azure resource has no address of its own: without one the step stops, naming the variable.
    await expect(
      startKeyProxy(['COPILOT_PROVIDER_API_KEY'], {
        COPILOT_PROVIDER_API_KEY: 'k',
        COPILOT_PROVIDER_TYPE: 'azure',
      }),
    ).rejects.toThrow(/COPILOT_PROVIDER_BASE_URL is not in the step's env: an azure provider/);
  });

  it('NO_PROXY keeps what it had and gains the loopback names once', () => {
    expect(withLoopbackNoProxy(undefined)).toBe('127.0.0.1,localhost');
    expect(withLoopbackNoProxy('corp.example, localhost')).toBe('corp.example,localhost,127.0.0.1');
  });

  it('every script loses the real keys and gets the placeholders while the proxy serves them', async () => {
    const up = await upstream();
    const env = {
      ANTHROPIC_API_KEY: REAL_ANTHROPIC,
      ANTHROPIC_BASE_URL: up.url,
      PATH: '/bin',
      NO_PROXY: 'x.test',
    };
    const p = (await serveAgentCredentials(['ANTHROPIC_API_KEY'], env, []))!;
    try {
      const nodeEnv = withoutWithheldCredentials({ ...env, INTERLOCK_NODE: 'a' }, new Map());
      expect(nodeEnv.ANTHROPIC_API_KEY).toBe(p.env.ANTHROPIC_API_KEY);
      expect(nodeEnv.ANTHROPIC_BASE_URL).toBe(`http://127.0.0.1:${p.port}`);
      expect(nodeEnv.NO_PROXY).toBe('x.test,127.0.0.1,localhost');
      expect(JSON.stringify(nodeEnv)).not.toContain(REAL_ANTHROPIC);
    } finally {
      await p.stop();
    }
    expect(withoutWithheldCredentials({ ...env }, new Map()).ANTHROPIC_API_KEY).toBe(REAL_ANTHROPIC);
  });

  it('bad names and a name also granted by node-credentials are refused, naming the fix', async () => {
    expect(parseAgentCredentials('ANTHROPIC_API_KEY, OPENAI_API_KEY\nANTHROPIC_API_KEY')).toEqual([
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
    ]);
    expect(parseAgentCredentials('none')).toEqual([]);
    expect(parseAgentCredentials('')).toEqual([]);
    expect(() => parseAgentCredentials('NPM_TOKEN')).toThrow(
      /agent-credentials: "NPM_TOKEN" is not a model key .* \(it serves ANTHROPIC_API_KEY, OPENAI_API_KEY, CODEX_API_KEY, GEMINI_API_KEY, COPILOT_PROVIDER_API_KEY\)/,
    );
    expect(credentialConflicts(['ANTHROPIC_API_KEY'], ['GH_TOKEN', 'ANTHROPIC_API_KEY'])).toMatch(
      /ANTHROPIC_API_KEY is in both agent-credentials .* and node-credentials .*: remove it from one of the two/,
    );
    await expect(
      serveAgentCredentials(['ANTHROPIC_API_KEY'], { ANTHROPIC_API_KEY: 'k' }, ['ANTHROPIC_API_KEY']),
    ).rejects.toThrow(/in both agent-credentials/);
    await expect(
      startKeyProxy(['OPENAI_API_KEY'], { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'file:///etc' }),
    ).rejects.toThrow(/OPENAI_BASE_URL in the step's env \("file:\/\/\/etc"\) is not an http\(s\) URL/);
  });

  it('decideRequest: the exact route, then the key of its API', () => {
    const keys = [key('ANTHROPIC_API_KEY', 'anthropic')];
    const req = (url: string, headers = {}) => ({ method: 'POST', url, headers, upgrade: false });
    expect(
      decideRequest(req('/v1/messages?beta=true', { 'x-api-key': 'ph-ANTHROPIC_API_KEY' }), keys),
    ).toMatchObject({ kind: 'forward', query: '?beta=true', modelKey: { name: 'ANTHROPIC_API_KEY' } });
    expect(
      decideRequest(req('/v1/messages', { authorization: 'Bearer ph-ANTHROPIC_API_KEY' }), keys).kind,
    ).toBe('forward');
    // Only OpenAI's paths would need an OpenAI key: with none served, they are no path at all.
    expect(
      decideRequest(req('/v1/responses', { authorization: 'Bearer ph-ANTHROPIC_API_KEY' }), keys),
    ).toMatchObject({ kind: 'refuse', status: 404 });
  });
});
