/**
 * The key proxy: an HTTP server on 127.0.0.1 (a random port), in this process and so as the runner's user, for
 * the step's life. Nodes call their model API through it with a placeholder key; it puts the real key in, sends
 * the request to the upstream (the official API, or the step env's own base URL) and streams the answer back as it
 * comes (SSE, and Codex's WebSocket). It refuses every other path, and every request without the step's
 * placeholder, so another local user who finds the port gets nothing. What it decides is in key-proxy-rules.ts.
 */
import { randomBytes } from 'node:crypto';
import type { ClientRequest, IncomingMessage, RequestOptions, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { http, https } from '../lazy.js';
import { configureAgentCredentials } from '../node-user/node-credentials.js';
import {
  credentialConflicts,
  decideRequest,
  downstreamHeaders,
  keyApi,
  type ModelApi,
  type ModelKey,
  nodeEnvFor,
  refusalBody,
  upstreamHeaders,
  upstreams,
  upstreamUrl,
} from './key-proxy-rules.js';

/** A running key proxy: its port, what nodes get in place of the keys, the names withheld, and its stop. */
export interface KeyProxy {
  port: number;
  /** The placeholders and base URLs nodes get (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, ...). */
  env: Record<string, string>;
  /** The variables of the step's env that no node and no check may see. */
  withheld: string[];
  /** Closes the server and every connection through it, upgraded ones included. */
  stop(): Promise<void>;
}

/** A per-step random placeholder, shaped like the provider's keys (letters, digits, `-`, `_`). */
function placeholder(api: ModelApi): string {
  return `${api === 'anthropic' ? 'sk-ant-' : 'sk-'}interlock-placeholder-${randomBytes(24).toString('base64url')}`;
}

/**
 * Starts the proxy for the listed names the step's env holds (undefined when it holds none of them). Each key
 * gets a placeholder of its own; the proxy serves only the APIs of the keys it holds.
 */
export async function startKeyProxy(names: string[], env: NodeJS.ProcessEnv): Promise<KeyProxy | undefined> {
  const keys: ModelKey[] = names
    .filter((n) => env[n])
    .map((n) => ({ name: n, api: keyApi(n, env), real: env[n]!, placeholder: placeholder(keyApi(n, env)) }));
  if (!keys.length) return undefined;
  const bases = upstreams(keys, env);
  const open = new Set<{ destroy(): void }>();
  const track = <T extends { destroy(): void; once(e: 'close', f: () => void): unknown }>(s: T): T => {
    open.add(s);
    s.once('close', () => open.delete(s));
    return s;
  };
  const agents = {
    http: new (http().Agent)({ keepAlive: true }),
    https: new (https().Agent)({ keepAlive: true }),
  };
  const send = (target: URL, opts: RequestOptions): ClientRequest => {
    const tls = target.protocol === 'https:';
    const req = (tls ? https() : http()).request(target, {
      ...opts,
      agent: tls ? agents.https : agents.http,
    });
    req.on('socket', (s) => s.setNoDelay(true));
    return track(req);
  };
  const server: Server = http().createServer((req, res) => forward(req, res, keys, bases, send));
  server.on('connection', (s: Socket) => s.setNoDelay(true));
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) =>
    relayUpgrade(req, track(socket), head, { keys, bases, send, track }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    env: nodeEnvFor(keys, port),
    withheld: keys.map((k) => k.name),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of open) s.destroy();
        agents.http.destroy();
        agents.https.destroy();
      }),
  };
}

/**
 * The face's one call (Action step, `interlock run`): starts the proxy for `names` and has every script started
 * from now on get its placeholders instead of the keys; `stop` undoes both. A name `node-credentials` also grants
 * is refused: one secret cannot be withheld and given.
 */
export async function serveAgentCredentials(
  names: string[],
  env: NodeJS.ProcessEnv,
  granted: Iterable<string>,
): Promise<KeyProxy | undefined> {
  const conflict = credentialConflicts(
    names.filter((n) => env[n]),
    granted,
  );
  if (conflict) throw new Error(conflict);
  const proxy = await startKeyProxy(names, env);
  if (!proxy) return undefined;
  configureAgentCredentials({ withheld: proxy.withheld, env: proxy.env, port: proxy.port });
  return {
    ...proxy,
    stop: async () => {
      configureAgentCredentials(undefined);
      await proxy.stop();
    },
  };
}

type Send = (target: URL, opts: RequestOptions) => ClientRequest;

function refuseWith(res: ServerResponse, status: number, path: string, message: string): void {
  const body = refusalBody(path, message);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** One HTTP request: refused, answered, or sent upstream with the real key and its answer streamed back. */
function forward(
  req: IncomingMessage,
  res: ServerResponse,
  keys: ModelKey[],
  bases: Map<string, URL>,
  send: Send,
): void {
  const url = req.url ?? '/';
  const d = decideRequest({ method: req.method ?? 'GET', url, headers: req.headers, upgrade: false }, keys);
  if (d.kind === 'answer') {
    res.writeHead(200).end();
    return;
  }
  if (d.kind === 'refuse') {
    // The body is dropped; the connection stays usable for the client's next request.
    req.resume();
    refuseWith(res, d.status, url, d.message);
    return;
  }
  const target = upstreamUrl(bases.get(d.modelKey.name)!, d.route.upstreamPath, d.query);
  const up = send(target, { method: req.method, headers: upstreamHeaders(req.headers, d.modelKey, false) });
  up.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, downstreamHeaders(answer.headers));
    // Headers at once, then each chunk as it arrives: an SSE stream is never held back.
    res.flushHeaders();
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  up.on('error', (e) => {
    if (res.headersSent) res.destroy();
    else refuseWith(res, 502, url, `interlock key proxy: the upstream ${target.host} failed: ${e.message}`);
  });
  // A node that goes away takes its upstream request with it.
  res.on('close', () => {
    if (!res.writableFinished) up.destroy();
  });
  req.pipe(up);
}

function rawResponse(
  status: number,
  reason: string,
  headers: Record<string, string | string[]>,
  body = '',
): string {
  const lines = Object.entries(headers).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((x) => `${k}: ${x}`),
  );
  return `HTTP/1.1 ${status} ${reason}\r\n${lines.join('\r\n')}${lines.length ? '\r\n' : ''}\r\n${body}`;
}

interface UpgradeDeps {
  keys: ModelKey[];
  bases: Map<string, URL>;
  send: Send;
  track: <T extends { destroy(): void; once(e: 'close', f: () => void): unknown }>(s: T) => T;
}

/**
 * A WebSocket upgrade (Codex's Responses API over WebSocket): checked like any request, then, once the upstream
 * switched protocols, the two sockets are joined byte for byte. An upstream that answers without switching has its
 * answer passed back as it is (Codex then falls back to HTTPS).
 */
function relayUpgrade(req: IncomingMessage, socket: Socket, head: Buffer, deps: UpgradeDeps): void {
  const url = req.url ?? '/';
  const d = decideRequest(
    { method: req.method ?? 'GET', url, headers: req.headers, upgrade: true },
    deps.keys,
  );
  if (d.kind !== 'forward') {
    const body = d.kind === 'refuse' ? refusalBody(url, d.message) : '';
    const status = d.kind === 'refuse' ? d.status : 400;
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    socket.end(rawResponse(status, 'Refused', headers, body));
    return;
  }
  socket.on('error', () => socket.destroy());
  const target = upstreamUrl(deps.bases.get(d.modelKey.name)!, d.route.upstreamPath, d.query);
  const up = deps.send(target, { method: 'GET', headers: upstreamHeaders(req.headers, d.modelKey, true) });
  up.on('upgrade', (answer, upSocket, upHead) => {
    deps.track(upSocket);
    socket.write(
      rawResponse(101, 'Switching Protocols', {
        ...downstreamHeaders(answer.headers),
        connection: 'Upgrade',
        upgrade: String(answer.headers.upgrade ?? 'websocket'),
      }),
    );
    if (upHead.length) socket.write(upHead);
    if (head.length) upSocket.write(head);
    upSocket.pipe(socket).on('error', () => upSocket.destroy());
    socket.pipe(upSocket);
    upSocket.on('error', () => socket.destroy());
    socket.on('close', () => upSocket.destroy());
    upSocket.on('close', () => socket.destroy());
  });
  up.on('response', (answer) => {
    socket.write(
      rawResponse(answer.statusCode ?? 502, answer.statusMessage ?? '', {
        ...downstreamHeaders(answer.headers),
        connection: 'close',
      }),
    );
    answer.pipe(socket);
  });
  up.on('error', (e) => {
    const body = refusalBody(url, `interlock key proxy: the upstream ${target.host} failed: ${e.message}`);
    socket.end(
      rawResponse(
        502,
        'Bad Gateway',
        {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          connection: 'close',
        },
        body,
      ),
    );
  });
  up.end();
}
