/**
 * A local stand-in for GitHub's REST API, for tests and benchmarks of the Action and the app.
 *
 * `startGitHubServer(options)` listens on 127.0.0.1 (ephemeral port) and returns
 * `{ url, state, requests, faults, close() }`: point an Octokit at `url`, seed and inspect the world
 * through `state`, count calls through `requests`, and break things on purpose through `faults`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AuthOptions, authenticate } from './github/auth.js';
import { createContext, type Urls } from './github/context.js';
import {
  type Decision,
  FaultInjector,
  type FaultRule,
  SECONDARY_RATE_LIMIT_MESSAGE,
} from './github/faults.js';
import { HttpError } from './github/http-error.js';
import { RateLimiter } from './github/rate-limit.js';
import type { Actor } from './github/records.js';
import { type LoggedRequest, RequestLog } from './github/request-log.js';
import { matchRoute, type Reply } from './github/router.js';
import { routes } from './github/routes/index.js';
import { GitHubState, type StateOptions } from './github/state.js';

export type { Fault, FaultHandle, FaultRule, FiredFault } from './github/faults.js';
export type { RepoState } from './github/repo-state.js';
export type { LoggedRequest, RequestFilter, RequestStats } from './github/request-log.js';
export { CHECK_OUTPUT_LIMIT } from './github/routes/checks.js';
export { BODY_LIMIT } from './github/routes/issues.js';
export type * from './github/specs.js';
export { GitHubState } from './github/state.js';

export interface GitHubServerOptions extends StateOptions, AuthOptions {
  /** Requests per hour for each actor before 403 "API rate limit exceeded" (default 5000). */
  readonly rateLimit?: number;
  /** Delay before each request is handled, in ms (default 0). */
  readonly latencyMs?: number | ((request: { method: string; path: string }) => number);
  /** Where `html_url`s point (default `https://github.com`). */
  readonly webUrl?: string;
  /** Fault rules in force from the start. */
  readonly faults?: readonly FaultRule[];
}

export interface GitHubServer {
  /** API root for `new Octokit({ baseUrl })` or `GITHUB_API_URL`, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly state: GitHubState;
  readonly requests: RequestLog;
  readonly faults: FaultInjector;
  /** Stops listening and drops every connection, held ones included. */
  close(): Promise<void>;
}

const API_VERSION = '2022-11-28';

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'Problems parsing JSON');
  }
}

function faultReply(decision: Decision, limiter: RateLimiter, who: string): Reply | undefined {
  const fault = decision.fault;
  switch (fault.kind) {
    case 'status':
      return {
        status: fault.status,
        body: new HttpError(fault.status, fault.message ?? defaultMessage(fault.status)).body(),
      };
    case 'too-many-requests':
      return {
        status: 429,
        body: new HttpError(429, SECONDARY_RATE_LIMIT_MESSAGE).body(),
        headers: { 'retry-after': String(fault.retryAfter ?? 1) },
      };
    case 'secondary-rate-limit':
      return {
        status: 403,
        body: new HttpError(403, SECONDARY_RATE_LIMIT_MESSAGE).body(),
        headers: { 'retry-after': String(fault.retryAfter ?? 1) },
      };
    case 'primary-rate-limit': {
      const window = limiter.peek(who);
      return {
        status: 403,
        body: new HttpError(403, `API rate limit exceeded for ${who}.`).body(),
        headers: {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-used': String(window.limit),
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + (fault.resetInSeconds ?? 1)),
        },
      };
    }
    default:
      return undefined;
  }
}

function defaultMessage(status: number): string {
  if (status === 500) return 'Internal Server Error';
  if (status === 502) return 'Server Error';
  if (status === 503) return 'Service Unavailable';
  if (status === 409) return 'Conflict';
  return `Error ${status}`;
}

export async function startGitHubServer(options: GitHubServerOptions = {}): Promise<GitHubServer> {
  const state = new GitHubState(options);
  const requests = new RequestLog();
  const faults = new FaultInjector();
  for (const rule of options.faults ?? []) faults.inject(rule);
  const limiter = new RateLimiter(options.rateLimit ?? 5000);
  const held = new Set<ServerResponse>();
  // `api` is known once the server listens, before any request arrives.
  const urls: { -readonly [K in keyof Urls]: Urls[K] } = {
    api: '',
    web: options.webUrl ?? 'https://github.com',
  };

  const send = (res: ServerResponse, reply: Reply, who: string, entry: LoggedRequest): void => {
    const headers: Record<string, string> = {
      'x-github-api-version-selected': API_VERSION,
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': `${randomUUID().slice(0, 8).toUpperCase()}:${entry.seq}`,
      ...limiter.headers(who),
      ...reply.headers,
    };
    let payload: Buffer | undefined;
    if (reply.raw) {
      payload = reply.raw;
      headers['content-type'] = reply.contentType ?? 'application/octet-stream';
    } else if (reply.body !== undefined && reply.status !== 204 && reply.status !== 304) {
      payload = Buffer.from(JSON.stringify(reply.body));
      headers['content-type'] = 'application/json; charset=utf-8';
    }
    if (payload) headers['content-length'] = String(payload.length);
    entry.status = reply.status;
    entry.durationMs = Date.now() - entry.at;
    res.writeHead(reply.status, headers);
    res.end(payload);
  };

  /** Applies a held or dropped connection; returns false for faults that are ordinary replies. */
  const breakConnection = (decision: Decision, res: ServerResponse, entry: LoggedRequest): boolean => {
    const fault = decision.fault;
    if (fault.kind === 'drop') {
      entry.fault = 'drop';
      entry.durationMs = Date.now() - entry.at;
      res.socket?.destroy();
      return true;
    }
    if (fault.kind === 'timeout') {
      entry.fault = 'timeout';
      held.add(res);
      res.on('close', () => held.delete(res));
      if (fault.holdMs !== undefined) {
        setTimeout(() => {
          entry.durationMs = Date.now() - entry.at;
          res.socket?.destroy();
        }, fault.holdMs).unref();
      }
      return true;
    }
    return false;
  };

  /** The route's answer, or the error GitHub would give instead. Runs synchronously to the end. */
  const answer = (
    method: string,
    url: URL,
    req: IncomingMessage,
    parsed: { body?: unknown; error?: HttpError },
    auth: { actor?: Actor; error?: HttpError },
  ): Reply => {
    try {
      if (auth.error) throw auth.error;
      const actor = auth.actor!;
      const match = matchRoute(routes, method, url.pathname);
      if (!match) throw new HttpError(404, 'Not Found');
      const routeOptions = match.route.options;
      if (routeOptions.auth === 'jwt' && !actor.asApp) {
        throw new HttpError(401, 'A JSON web token could not be decoded');
      }
      if (routeOptions.auth !== 'jwt' && actor.asApp)
        throw new HttpError(403, 'Resource not accessible by integration');
      if (routeOptions.counted !== false && !limiter.spend(actor.login)) {
        const user = state.user(actor.login);
        throw new HttpError(403, `API rate limit exceeded for user ID ${user.id}.`);
      }
      if (parsed.error) throw parsed.error;
      const ctx = createContext({
        method,
        url,
        params: match.params,
        body: parsed.body,
        headers: req.headers,
        actor,
        state,
        urls,
        rate: limiter.peek(actor.login),
      });
      return match.route.handler(ctx as never);
    } catch (error) {
      if (error instanceof HttpError)
        return { status: error.status, body: error.body(), headers: error.headers };
      const message = error instanceof Error ? error.message : String(error);
      return { status: 500, body: new HttpError(500, `local GitHub server error: ${message}`).body() };
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', urls.api);
    const raw = await readBody(req);
    const latency =
      typeof options.latencyMs === 'function'
        ? options.latencyMs({ method, path: url.pathname })
        : (options.latencyMs ?? 0);
    if (latency > 0) await sleep(latency);

    const auth: { actor?: Actor; error?: HttpError } = {};
    try {
      auth.actor = authenticate(req.headers.authorization, state, options);
    } catch (error) {
      auth.error = error as HttpError;
    }
    const who = auth.actor?.login ?? 'anonymous';
    const match = matchRoute(routes, method, url.pathname);
    const parsed: { body?: unknown; error?: HttpError } = {};
    try {
      parsed.body = parseJson(raw);
    } catch (error) {
      parsed.error = error as HttpError;
    }
    const path = safeDecode(url.pathname);
    const entry = requests.open({
      method,
      path,
      query: url.search,
      kind: match?.route.kind ?? `${method} ${url.pathname}`,
      actor: auth.actor?.login,
      body: parsed.body,
      at,
    });

    const decision = faults.decide(method, path, match?.route.template);
    if (decision?.when === 'before') {
      if (breakConnection(decision, res, entry)) return;
      entry.fault = decision.fault.kind;
      send(res, faultReply(decision, limiter, who)!, who, entry);
      return;
    }
    const reply = answer(method, url, req, parsed, auth);
    if (decision) {
      if (breakConnection(decision, res, entry)) return;
      entry.fault = decision.fault.kind;
      send(res, faultReply(decision, limiter, who)!, who, entry);
      return;
    }
    send(res, reply, who, entry);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ message: `local GitHub server error: ${String(error)}` }));
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  urls.api = `http://127.0.0.1:${port}`;

  return {
    url: urls.api,
    state,
    requests,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.socket?.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
