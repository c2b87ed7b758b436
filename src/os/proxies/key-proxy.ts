/**
 * The key proxy: an HTTP server on 127.0.0.1 (a random port), in this process and so as the runner's user, for
 * the step's life. Nodes call their model API through it with a placeholder key; it puts the real key in, sends
 * the request to the upstream (the official API, or the step env's own base URL) and streams the answer back as it
 * comes (SSE, and Codex's WebSocket). It refuses every other path, and every request without the step's
 * placeholder, so another local user who finds the port gets nothing. What it decides is in key-proxy-rules.ts.
 */
import type { ClientRequest, IncomingMessage, RequestOptions, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { http, https } from '../lazy.js';
import { configureAgentCredentials } from '../node-user/node-credentials.js';
import { AnswerReader } from './answer-usage.js';
import type { Route } from './key-proxy-routes.js';
import {
  credentialConflicts,
  decideRequest,
  downstreamHeaders,
  keyApi,
  limitAnswer,
  type ModelKey,
  nodeEnvFor,
  refusalBody,
  upstreamHeaders,
  upstreams,
  upstreamUrl,
} from './key-proxy-rules.js';
import { type ProxyTab, placeholderKey, RECORDING_BYTES, type TabLimit } from './key-proxy-tab.js';
import { relayUpgrade, type Send } from './key-proxy-upgrade.js';
import { DEFAULT_MODEL_PRICES, type ModelPrice } from './model-prices.js';
import { listenOnLoopback, type ServedKeys, servedKeys, stopServer } from './proxy-serve.js';

/** A running key proxy: its port, what nodes get in place of the keys, the names withheld, and its stop. */
export interface KeyProxy {
  port: number;
  /** The placeholders and base URLs nodes get (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, ...). */
  env: Record<string, string>;
  /** The variables of the step's env that no node and no check may see. */
  withheld: string[];
  /** Opens an attempt's tab: placeholders of its own, its calls metered and held to `limits` (and recorded). */
  openTab(limits: TabLimit[], record?: boolean): ProxyTab;
  /** Closes a tab: its placeholders are refused from now on. */
  closeTab(tab: ProxyTab): void;
  /** Closes the server and every connection through it, upgraded ones included. */
  stop(): Promise<void>;
}

/**
 * Starts the proxy for the listed names the step's env holds (undefined when it holds none of them). Each key
 * gets a placeholder of its own; the proxy serves only the APIs of the keys it holds.
 */
export async function startKeyProxy(
  names: string[],
  env: NodeJS.ProcessEnv,
  prices: Readonly<Record<string, ModelPrice>> = DEFAULT_MODEL_PRICES,
): Promise<KeyProxy | undefined> {
  const stepKeys: ModelKey[] = names
    .filter((n) => env[n])
    .map((n) => ({
      name: n,
      api: keyApi(n, env),
      real: env[n]!,
      placeholder: placeholderKey(keyApi(n, env)),
    }));
  if (!stepKeys.length) return undefined;
  // Every open tab's keys are served beside the step's; a closed tab's are refused.
  const keys = servedKeys(stepKeys, prices);
  const bases = upstreams(stepKeys, env);
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
  const port = await listenOnLoopback(server);
  return {
    port,
    env: nodeEnvFor(stepKeys, port),
    withheld: stepKeys.map((k) => k.name),
    openTab: keys.openTab,
    closeTab: keys.closeTab,
    stop: () =>
      stopServer(server, () => {
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
  prices: Readonly<Record<string, ModelPrice>> = {},
): Promise<KeyProxy | undefined> {
  const conflict = credentialConflicts(
    names.filter((n) => env[n]),
    granted,
  );
  if (conflict) throw new Error(conflict);
  const proxy = await startKeyProxy(names, env, { ...DEFAULT_MODEL_PRICES, ...prices });
  if (!proxy) return undefined;
  configureAgentCredentials({
    withheld: proxy.withheld,
    env: proxy.env,
    port: proxy.port,
    openTab: proxy.openTab,
    closeTab: proxy.closeTab,
  });
  return {
    ...proxy,
    stop: async () => {
      configureAgentCredentials(undefined);
      await proxy.stop();
    },
  };
}

function refuseWith(res: ServerResponse, status: number, path: string, message: string): void {
  const body = refusalBody(path, message);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** One HTTP request: refused, answered, or sent upstream with the real key and its answer streamed back. */
function forward(
  req: IncomingMessage,
  res: ServerResponse,
  keys: ServedKeys,
  bases: Map<string, URL>,
  send: Send,
): void {
  const url = req.url ?? '/';
  const d = decideRequest(
    { method: req.method ?? 'GET', url, headers: req.headers, upgrade: false },
    keys.all(),
  );
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
  const tab = keys.tabOf(d.modelKey);
  const over = tab?.refusal();
  if (over) {
    req.resume();
    const a = limitAnswer(d.route.api, `interlock key proxy: ${over}`);
    res.writeHead(a.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(a.body),
    });
    res.end(a.body);
    return;
  }
  const target = upstreamUrl(bases.get(d.modelKey.name)!, d.route.upstreamPath, d.query);
  const headers = upstreamHeaders(req.headers, d.modelKey, false);
  // A metered call's answer comes unencoded, so that its usage can be read as it passes.
  if (tab) headers['accept-encoding'] = 'identity';
  const up = send(target, { method: req.method, headers });
  // What the attempt sent, kept for its recording (bounded as the recording is).
  const sent = { method: req.method ?? 'POST', path: url, parts: [] as Buffer[], bytes: 0 };
  if (tab?.recording)
    req.on('data', (c: Buffer) => {
      sent.bytes += c.length;
      if (sent.bytes <= RECORDING_BYTES) sent.parts.push(c);
    });
  up.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, downstreamHeaders(answer.headers));
    // Headers at once, then each chunk as it arrives: an SSE stream is never held back.
    res.flushHeaders();
    if (tab && (d.route.metered || d.route.recorded)) meterAnswer(answer, tab, d.route, sent);
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

/**
 * Reads a 2xx answer's usage as it passes and puts it on the tab once the answer ends (or is cut off); keeps the
 * exchange on its recording (a token count's too, which is billed nothing and so not metered).
 */
function meterAnswer(
  answer: IncomingMessage,
  tab: ProxyTab,
  route: Pick<Route, 'api' | 'metered'>,
  sent: { method: string; path: string; parts: Buffer[] },
): void {
  const status = answer.statusCode ?? 0;
  if (status < 200 || status > 299) return;
  const encoding = String(answer.headers['content-encoding'] ?? 'identity').toLowerCase();
  const reader = new AnswerReader(
    route.api,
    /event-stream/i.test(String(answer.headers['content-type'] ?? '')),
  );
  if (encoding !== 'identity') reader.unreadable = `the answer is ${encoding}-encoded`;
  const got: Buffer[] = [];
  let bytes = 0;
  answer.on('data', (c: Buffer) => {
    reader.push(c);
    bytes += c.length;
    if (tab.recording && bytes <= RECORDING_BYTES) got.push(c);
  });
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    if (route.metered) tab.record(reader.unreadable ? undefined : reader.end());
    const text = (parts: Buffer[]) => Buffer.concat(parts).toString('utf8');
    tab.keep({ method: sent.method, path: sent.path, request: text(sent.parts), status, answer: text(got) });
  };
  answer.once('end', end);
  answer.once('close', end);
}
