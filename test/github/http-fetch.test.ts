// httpFetch, the fetch that the Action's and the App's GitHub clients use: over real local HTTP servers, what
// Octokit relies on (status, headers, bodies, redirects, deadlines, dropped connections), and through Octokit.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithTimeout } from '../../src/github/client.js';
import { httpFetch } from '../../src/github/http-fetch.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => handler(req, body, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('httpFetch', () => {
  it('sends the method, headers and body, and answers with status, headers and the body', async () => {
    let seen: { method?: string; auth?: string; type?: string; body?: string } = {};
    const url = await serve((req, body, res) => {
      seen = { method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body };
      res.writeHead(201, 'Created', { 'content-type': 'application/json', 'x-ratelimit-remaining': '42' });
      res.end('{"id":7}');
    });
    const r = await httpFetch(`${url}/repos/o/r/issues`, {
      method: 'POST',
      headers: { authorization: 'token t', 'content-type': 'application/json' },
      body: '{"title":"é"}',
    });
    expect(seen).toEqual({
      method: 'POST',
      auth: 'token t',
      type: 'application/json',
      body: '{"title":"é"}',
    });
    expect([r.status, r.statusText, r.ok, r.url]).toEqual([201, 'Created', true, `${url}/repos/o/r/issues`]);
    expect(r.headers.get('X-RateLimit-Remaining')).toBe('42');
    expect(Object.fromEntries(r.headers)['content-type']).toBe('application/json');
    expect(await r.json()).toEqual({ id: 7 });
  });

  it('asks for compressed answers and decodes gzip', async () => {
    let accept: string | undefined;
    const url = await serve((req, _b, res) => {
      accept = req.headers['accept-encoding'];
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync('{"big":"journal"}'));
    });
    const r = await httpFetch(url);
    expect(accept).toBe('gzip, deflate, br');
    expect(await r.text()).toBe('{"big":"journal"}');
  });

  it('follows a redirect to another origin without the token, and turns a 303 after a POST into a GET', async () => {
    const seen: Array<{ method?: string; auth?: string; body: string }> = [];
    const other = await serve((req, body, res) => {
      seen.push({ method: req.method, auth: req.headers.authorization, body });
      res.end('moved here');
    });
    const url = await serve((req, _b, res) => {
      res.writeHead(req.url === '/see-other' ? 303 : 301, { location: `${other}/new` });
      res.end();
    });
    const moved = await httpFetch(`${url}/old`, { headers: { authorization: 'token secret' } });
    expect([moved.status, moved.url, moved.redirected, await moved.text()]).toEqual([
      200,
      `${other}/new`,
      true,
      'moved here',
    ]);
    await httpFetch(`${url}/see-other`, { method: 'POST', body: 'x', headers: { authorization: 'token s' } });
    expect(seen).toEqual([
      { method: 'GET', auth: undefined, body: '' },
      { method: 'GET', auth: undefined, body: '' },
    ]);
    const manual = await httpFetch(`${url}/old`, { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([301, `${other}/new`]);
  });

  it('keeps the token on a redirect within the same origin, and the method and body on a 307', async () => {
    const seen: Array<{ url?: string; method?: string; auth?: string; body: string }> = [];
    const url = await serve((req, body, res) => {
      seen.push({ url: req.url, method: req.method, auth: req.headers.authorization, body });
      if (req.url === '/a') res.writeHead(307, { location: '/b' }).end();
      else res.end('done');
    });
    await httpFetch(`${url}/a`, { method: 'PUT', body: 'data', headers: { authorization: 'token t' } });
    expect(seen).toEqual([
      { url: '/a', method: 'PUT', auth: 'token t', body: 'data' },
      { url: '/b', method: 'PUT', auth: 'token t', body: 'data' },
    ]);
  });

  it('rejects with the signal’s reason when the answer does not come in time', async () => {
    const url = await serve(() => {}); // never answers
    const e = await httpFetch(url, { signal: AbortSignal.timeout(100) }).catch((x: unknown) => x);
    expect((e as Error).name).toBe('TimeoutError');
  });

  it('rejects a dropped connection as fetch does: TypeError("fetch failed") with the cause', async () => {
    const url = await serve((req) => req.socket.destroy());
    const e = (await httpFetch(url).catch((x: unknown) => x)) as Error & { cause?: Error };
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe('fetch failed');
    expect(e.cause?.message).toMatch(/socket hang up/);
  });

  it('fails an answer cut off midway, rather than reading part of it', async () => {
    const url = await serve((_req, _b, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"events":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const e = (await httpFetch(url).catch((x: unknown) => x)) as Error;
    expect(e.message).toBe('fetch failed');
  });

  it('serves Octokit: data, errors with status and message, and a deadline as a retryable 500', async () => {
    const url = await serve((req, _b, res) => {
      if (req.url === '/repos/o/r')
        return res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":1}');
      if (req.url === '/repos/o/slow') return; // held
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
    });
    const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
    const octokit = new Octokit({ baseUrl: url, log: quiet, request: { fetch: fetchWithTimeout(150) } });
    expect((await octokit.rest.repos.get({ owner: 'o', repo: 'r' })).data).toEqual({ id: 1 });
    const missing = await octokit.rest.repos.get({ owner: 'o', repo: 'x' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, message: expect.stringContaining('Not Found') });
    const slow = await octokit.rest.repos.get({ owner: 'o', repo: 'slow' }).catch((e: unknown) => e);
    expect(slow).toMatchObject({ status: 500 });
  });
});
