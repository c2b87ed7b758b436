/**
 * A scripted model server for tests of the real agent CLIs (Claude Code, Codex, Copilot CLI, Gemini CLI), offline:
 * node built-ins only.
 *
 * `startModelServer({ script })` listens on 127.0.0.1 (ephemeral port) and answers
 * - the Anthropic Messages API: `POST /v1/messages` (any query, e.g. `?beta=true`), streamed (SSE) or JSON;
 *   `POST /v1/messages/count_tokens`; and the `HEAD /` Claude Code sends first;
 * - the OpenAI Responses API: `POST /v1/responses`, streamed (SSE); and Chat Completions, `POST /v1/chat/completions`;
 * - Azure OpenAI, as Copilot CLI's provider of type azure calls it: the versionless v1 routes
 *   (`/openai/v1/responses`, `/openai/v1/chat/completions`) and the versioned ones (`/openai/responses`,
 *   `/openai/deployments/<deployment>/chat/completions`, which need `?api-version=`, else 404 as Azure answers);
 *   the key in the `api-key` header (or `Authorization: Bearer`), else Azure's 401;
 * - the Gemini API: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (SSE), `:generateContent` (JSON)
 *   and `:countTokens`; a request that offers no tools (Gemini CLI's side calls) answers JSON without a turn.
 * Each model call takes the next turn of the script; when it runs out, `whenDone` answers (default: a 500 error
 * saying so). A Messages request that offers no tools (Claude Code's side request for a session title, with
 * JSON-schema output) is answered with JSON that fits its schema and does not use up a turn. Every request is
 * recorded with its parsed body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync, inflateSync } from 'node:zlib';
import { anthropicError, anthropicMessage, anthropicStream } from './model/anthropic.js';
import { chatCompletion, chatStream } from './model/chat.js';
import { geminiError, geminiResponse, geminiStream } from './model/gemini.js';
import { openaiError, openaiStream } from './model/openai.js';
import { serveResponsesWebSocket } from './model/openai-ws.js';
import { type ScriptedTurn, type ScriptedUsage, turnUsage } from './model/script.js';

export type { ScriptedError, ScriptedToolCall, ScriptedTurn, ScriptedUsage } from './model/script.js';

export interface ModelServerOptions {
  script: ScriptedTurn[];
  /** The answer once the script is used up (default: a 500 error naming the call). */
  whenDone?: ScriptedTurn;
  /** The loopback address it listens on (default 127.0.0.1; the egress tests use 127.0.0.2, a host a graph allows). */
  host?: string;
  /** Whether `GET /v1/responses` may be upgraded to a WebSocket (Codex's first choice; default true). */
  websocket?: boolean;
}

export type ModelApi = 'anthropic' | 'openai' | 'gemini' | 'azure' | 'other';

export interface RecordedRequest {
  api: ModelApi;
  method: string;
  /** The path without its query. */
  path: string;
  query: string;
  headers: IncomingMessage['headers'];
  /** The JSON body, or undefined when there was none or it was not JSON. */
  body: Record<string, unknown> | undefined;
  /** A request answered without a scripted turn (a side request, a probe, a token count). */
  side: boolean;
  /** Which scripted turn answered it (0-based), when one did. */
  turn?: number;
  /** The usage its answer billed (a model call answered without an error). */
  billed?: Required<ScriptedUsage>;
  /** A `response.create` message of a WebSocket (its `method` is the upgrade's, GET). */
  websocket?: true;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT`: Claude Code's `ANTHROPIC_BASE_URL`; Codex's `base_url` is this plus `/v1`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The model calls that took a turn of the script (side requests excluded). */
  readonly calls: RecordedRequest[];
  /** How many turns of the script are left. */
  remaining(): number;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function parseBody(raw: Buffer, encoding: string | undefined): Record<string, unknown> | undefined {
  if (raw.length === 0) return undefined;
  const bytes = encoding === 'gzip' ? gunzipSync(raw) : encoding === 'deflate' ? inflateSync(raw) : raw;
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A value of the JSON schema's type: enough for a side request's structured output. */
function fitSchema(schema: unknown): unknown {
  const s = (schema ?? {}) as { type?: string; properties?: Record<string, unknown>; enum?: unknown[] };
  if (s.enum?.length) return s.enum[0];
  if (s.type === 'object' || s.properties)
    return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fitSchema(v)]));
  if (s.type === 'array') return [];
  if (s.type === 'boolean') return false;
  if (s.type === 'number' || s.type === 'integer') return 0;
  return 'Scripted task';
}

function sideAnswer(body: Record<string, unknown>): ScriptedTurn {
  const format = (body.output_format ?? (body.output_config as { format?: unknown } | undefined)?.format) as
    | { schema?: unknown }
    | undefined;
  // Gemini's structured output: `generationConfig.responseJsonSchema` (or the older `responseSchema`).
  const gen = (body.generationConfig ?? {}) as { responseJsonSchema?: unknown; responseSchema?: unknown };
  const schema = format?.schema ?? gen.responseJsonSchema ?? gen.responseSchema;
  return {
    text: JSON.stringify(fitSchema(schema ?? { properties: { title: {} } })),
    usage: { output_tokens: 5 },
  };
}

/** A Gemini API model call: `/v1beta/models/<model>:<method>`. */
const GEMINI_CALL =
  /^\/v1beta\/models\/([A-Za-z0-9._-]+):(streamGenerateContent|generateContent|countTokens)$/;

/** Azure OpenAI's routes: the versionless v1 ones, and the versioned ones (which need `api-version`). */
const AZURE_V1 = new Set(['/openai/v1/responses', '/openai/v1/chat/completions']);
const AZURE_VERSIONED = /^\/openai\/(responses|deployments\/([A-Za-z0-9._-]+)\/chat\/completions)$/;

function apiOf(path: string): ModelApi {
  if (path === '/v1/messages' || path === '/v1/messages/count_tokens') return 'anthropic';
  if (path === '/v1/responses' || path === '/v1/chat/completions') return 'openai';
  if (AZURE_V1.has(path) || AZURE_VERSIONED.test(path)) return 'azure';
  if (GEMINI_CALL.test(path)) return 'gemini';
  return 'other';
}

/** Azure OpenAI's answer to a call without a key, or to a versioned route without `api-version`; else false. */
function azureRefusal(req: IncomingMessage, url: URL, res: ServerResponse): boolean {
  const refuse = (status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: String(status), message } }));
    return true;
  };
  if (!req.headers['api-key'] && !/^Bearer \S+$/.test(req.headers.authorization ?? ''))
    return refuse(
      401,
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    );
  if (AZURE_VERSIONED.test(url.pathname) && !url.searchParams.get('api-version'))
    return refuse(404, 'Resource not found');
  return false;
}

export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const script = [...options.script];
  let next = 0;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const take = (): { turn: ScriptedTurn; index?: number } => {
    if (next < script.length) return { turn: script[next]!, index: next++ };
    return {
      turn: options.whenDone ?? {
        error: { status: 500, message: `the model script has ${script.length} turns, all used` },
      },
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = parseBody(await readBody(req), req.headers['content-encoding']);
    const rec: RecordedRequest = {
      api: apiOf(url.pathname),
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      headers: req.headers,
      body,
      side: true,
    };
    requests.push(rec);
    if (req.method === 'HEAD' || req.method === 'GET') {
      res.writeHead(url.pathname === '/' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(req.method === 'HEAD' || url.pathname === '/' ? undefined : '{"error":"not found"}');
      return;
    }
    if (rec.api === 'other' || req.method !== 'POST' || !body) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no such route: ${req.method} ${url.pathname}` } }));
      return;
    }
    if (rec.api === 'azure' && azureRefusal(req, url, res)) return;
    const tokens = Math.ceil(JSON.stringify(body).length / 4);
    if (url.pathname === '/v1/messages/count_tokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: tokens }));
      return;
    }
    const gemini = GEMINI_CALL.exec(url.pathname);
    if (gemini?.[2] === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: tokens }));
      return;
    }
    const model = gemini?.[1] ?? (typeof body.model === 'string' ? body.model : 'scripted-model');
    const tools = body.tools;
    // Gemini CLI's side calls (a next-speaker check, a summary) offer no tools and ask for JSON: no turn.
    const isSide =
      (rec.api === 'anthropic' || rec.api === 'gemini') && (!Array.isArray(tools) || tools.length === 0);
    const { turn, index } = isSide ? { turn: sideAnswer(body), index: undefined } : take();
    if (index !== undefined) {
      rec.side = false;
      rec.turn = index;
    } else if (!isSide) rec.side = false;
    if (turn.delayMs) await sleep(turn.delayMs);
    if (!turn.error) rec.billed = turnUsage(turn);
    if (rec.api === 'gemini') {
      if (turn.error) geminiError(res, turn.error);
      else if (gemini?.[2] === 'streamGenerateContent') geminiStream(res, turn, model);
      else {
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(JSON.stringify(geminiResponse(turn, model)));
      }
    } else if (rec.api === 'anthropic') {
      if (turn.error) anthropicError(res, turn.error);
      else if (body.stream === true) anthropicStream(res, turn, model);
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(anthropicMessage(turn, model)));
      }
    } else if (turn.error) openaiError(res, turn.error);
    else if (url.pathname.endsWith('/chat/completions')) {
      const options = (body.stream_options ?? {}) as { include_usage?: unknown };
      const azure = rec.api === 'azure';
      if (body.stream === true)
        chatStream(res, turn, model, { includeUsage: options.include_usage === true, azure });
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(chatCompletion(turn, model)));
      }
    } else openaiStream(res, turn, model);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `model server: ${(e as Error).message}` } }));
    });
  });
  // Codex's Responses API over WebSocket: each `response.create` takes a turn as a POST would.
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (options.websocket === false || url.pathname !== '/v1/responses') {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serveResponsesWebSocket(req, socket, async (call) => {
      // Codex's prewarm (`generate: false`): an empty response that bills nothing and uses up no turn.
      const prewarm = call.body.generate === false;
      const { turn, index } = prewarm
        ? { turn: { usage: { input_tokens: 0, output_tokens: 0 } }, index: undefined }
        : take();
      requests.push({
        api: 'openai',
        method: 'GET',
        path: url.pathname,
        query: url.search,
        headers: req.headers,
        body: call.body,
        side: prewarm,
        websocket: true,
        ...(index === undefined ? {} : { turn: index }),
        ...(turn.error ? {} : { billed: turnUsage(turn) }),
      });
      if (turn.delayMs) await sleep(turn.delayMs);
      call.answer(turn, typeof call.body.model === 'string' ? call.body.model : 'scripted-model');
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    requests,
    get calls() {
      return requests.filter((r) => r.api !== 'other' && !r.side);
    },
    remaining: () => Math.max(0, script.length - next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
