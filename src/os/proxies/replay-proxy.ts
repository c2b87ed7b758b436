/**
 * The replay proxy (`interlock replay`, issue 48): in the key proxy's place, on 127.0.0.1, it answers each model
 * call of the replayed attempt from the attempt's recording, and sends nothing anywhere. A request is the recorded
 * call it matches (replay-match.ts); one that matches none is the replay's departure: it is answered with the API's
 * own error (so the engine does not retry), the attempt's agent is stopped, and the departure is kept for the
 * face to report. Each answered call is metered and kept on the attempt's tab as the key proxy does.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { http } from '../lazy.js';
import { AnswerReader } from './answer-usage.js';
import type { Route } from './key-proxy-routes.js';
import {
  decideRequest,
  keyApi,
  limitAnswer,
  type ModelApi,
  type ModelKey,
  nodeEnvFor,
  refusalBody,
} from './key-proxy-rules.js';
import { type ProxyTab, placeholderKey, RECORDING_BYTES, type TabLimit } from './key-proxy-tab.js';
import { DEFAULT_MODEL_PRICES } from './model-prices.js';
import { listenOnLoopback, servedKeys, stopServer } from './proxy-serve.js';
import {
  type ComparedRequest,
  comparedRequest,
  type Departure,
  matchCall,
  type RecordedCall,
} from './replay-match.js';
import { upgradeForReplay } from './replay-ws.js';

/** The replay proxy: what a node gets in place of keys, and what the replay saw. */
export interface ReplayProxy {
  port: number;
  env: Record<string, string>;
  withheld: string[];
  openTab(limits: TabLimit[], record?: boolean): ProxyTab;
  closeTab(tab: ProxyTab): void;
  /** The first request that matched no recorded call, once one did. */
  departure(): Departure | undefined;
  /** Each model request answered, in order: the recorded call (its `call` number) that answered it. */
  answered: number[];
  stop(): Promise<void>;
}

/**
 * The keys it stands in for, none real (nothing is sent on): every API's, and Copilot CLI's provider key as the
 * API of `COPILOT_PROVIDER_TYPE` in `env` (its default, openai), as the key proxy serves it.
 */
function stoodIn(env: Record<string, string | undefined>): ModelKey[] {
  const names: Array<[string, ModelApi]> = [
    ['ANTHROPIC_API_KEY', 'anthropic'],
    ['OPENAI_API_KEY', 'openai'],
    ['GEMINI_API_KEY', 'gemini'],
  ];
  try {
    names.push(['COPILOT_PROVIDER_API_KEY', keyApi('COPILOT_PROVIDER_API_KEY', env)]);
  } catch {
    // A provider type Copilot CLI has not: no provider key is stood in for (Copilot cannot run with it either).
  }
  return names.map(([name, api]) => ({ name, api, real: '', placeholder: placeholderKey(api, 'replay') }));
}

/** What the proxy does to a request's body before it is compared (secrets removed, the replay's folder named as the run's). */
type RequestText = (body: string) => string;

function answerWith(res: ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Answers a request with a recorded call's answer; the attempt's tab meters and keeps it, as the key proxy's would. */
function answerFromRecording(
  req: IncomingMessage,
  res: ServerResponse,
  a: { call: RecordedCall; route: Pick<Route, 'api' | 'metered'>; tab: ProxyTab | undefined; body: string },
): void {
  const { call, tab } = a;
  const stream = /^(event|data):/m.test(call.answer.slice(0, 200));
  if (tab) {
    const reader = new AnswerReader(a.route.api, stream);
    reader.push(Buffer.from(call.answer));
    // A token count is answered and kept, not metered (it is billed nothing).
    if (a.route.metered && call.status >= 200 && call.status < 300) tab.record(reader.end());
    const url = req.url ?? '/';
    tab.keep({
      method: req.method ?? 'POST',
      path: url,
      request: a.body,
      status: call.status,
      answer: call.answer,
    });
  }
  answerWith(res, call.status, call.answer, stream ? 'text/event-stream' : 'application/json');
}

/**
 * Answers the request that departed (and every one after it) with the API's error, so that the engine does not
 * retry; keeps it on the tab with that answer, and stops the attempt's agent.
 */
function departWith(
  req: IncomingMessage,
  res: ServerResponse,
  a: { departure: Departure; api: ModelApi; tab: ProxyTab | undefined; body: string },
): void {
  const why = `interlock replay: ${a.departure.message}`;
  const answer = limitAnswer(a.api, why);
  const url = req.url ?? '/';
  a.tab?.keep({
    method: req.method ?? 'POST',
    path: url,
    request: a.body,
    status: answer.status,
    answer: answer.body,
  });
  answerWith(res, answer.status, answer.body);
  if (a.tab && !a.tab.stopped) {
    a.tab.stopped = why;
    a.tab.onStop?.(why);
  }
}

/** The request's body, bounded as a recording is, once it has all come. */
function withBody(req: IncomingMessage, then: (body: string) => void): void {
  const parts: Buffer[] = [];
  let bytes = 0;
  req.on('data', (c: Buffer) => {
    bytes += c.length;
    if (bytes <= RECORDING_BYTES) parts.push(c);
  });
  req.on('end', () => then(Buffer.concat(parts).toString('utf8')));
}

/**
 * Starts the replay proxy over `calls` (the recording's lines, in order); `env` is the replay's (Copilot CLI's
 * provider type is read from it).
 */
export async function startReplayProxy(
  calls: RecordedCall[],
  asCompared: RequestText,
  env: Record<string, string | undefined>,
): Promise<ReplayProxy> {
  const stepKeys = stoodIn(env);
  const keys = servedKeys(stepKeys, DEFAULT_MODEL_PRICES);
  const compared: ComparedRequest[] = calls.map((c) => comparedRequest(c.method, c.path, c.request));
  const done = new Set<number>();
  const answered: number[] = [];
  let departed: Departure | undefined;
  let requests = 0;
  // Upgraded sockets are no longer the server's: they are ended with it here.
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    return s;
  };
  /** The recorded call a request is, taken; or the replay's departure (every request after it departs too). */
  const take = (method: string, url: string, body: string): { index: number } | { departure: Departure } => {
    requests += 1;
    const m = departed
      ? { departure: departed }
      : matchCall(calls, compared, done, comparedRequest(method, url, asCompared(body)), requests);
    if ('departure' in m) departed ??= m.departure;
    else {
      done.add(m.index);
      answered.push(calls[m.index]!.call);
    }
    return m;
  };
  const serve = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = req.url ?? '/';
    const d = decideRequest(
      { method: req.method ?? 'GET', url, headers: req.headers, upgrade: false },
      keys.all(),
    );
    if (d.kind === 'answer') return void res.writeHead(200).end();
    if (d.kind === 'refuse') return answerWith(res, d.status, refusalBody(url, d.message));
    const tab = keys.tabOf(d.modelKey);
    const none = `interlock replay: ${req.method} ${url} is not a model call; the recording holds none`;
    if (!d.route.metered && !d.route.recorded) return answerWith(res, 404, refusalBody(url, none));
    const m = take(req.method ?? 'POST', url, body);
    if ('departure' in m)
      return departWith(req, res, { departure: m.departure, api: d.route.api, tab, body });
    answerFromRecording(req, res, { call: calls[m.index]!, route: d.route, tab, body });
  };
  const server: Server = http().createServer((req, res) => withBody(req, (body) => serve(req, res, body)));
  // Codex's WebSocket: answered from the recording when it holds calls made over one (replay-ws.ts).
  server.on('upgrade', (req: IncomingMessage, socket: Socket) =>
    upgradeForReplay(req, track(socket), { calls, keys, take }),
  );
  const port = await listenOnLoopback(server);
  return {
    port,
    env: nodeEnvFor(stepKeys, port),
    withheld: [...new Set([...stepKeys.map((k) => k.name), 'CODEX_API_KEY', 'COPILOT_PROVIDER_API_KEY'])],
    openTab: keys.openTab,
    closeTab: keys.closeTab,
    departure: () => departed,
    answered,
    stop: () =>
      stopServer(server, () => {
        for (const s of sockets) s.destroy();
      }),
  };
}
