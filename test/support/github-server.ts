/**
 * A local stand-in for GitHub's REST API, for tests and benchmarks of the Action and the app.
 *
 * `startGitHubServer(options)` listens on 127.0.0.1 (ephemeral port) and returns
 * `{ url, state, requests, faults, close() }`: point an Octokit at `url`, seed and inspect the world
 * through `state`, count calls through `requests`, and break things on purpose through `faults`.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { servingAt, stoppedAt } from './clock.js';
import { ARTIFACT_SERVICE, BLOB_PREFIX } from './github/artifacts.js';
import { type AuthOptions, authenticate } from './github/auth.js';
import { createContext, type Urls } from './github/context.js';
import { breakConnection, faultReply } from './github/fault-effects.js';
import {
  type Decision,
  FaultInjector,
  type FaultRule,
  SECONDARY_RATE_LIMIT_MESSAGE,
} from './github/faults.js';
import { decodePath, parseJson, readBody, writeReply } from './github/http.js';
import { HttpError } from './github/http-error.js';
import { type LikeGitHubOptions, LoadModel, resolveModel } from './github/load-model.js';
import { CONVERSION_PATH, CONVERSION_TEMPLATE, ManifestConversions } from './github/manifest.js';
import { OAuthFlow } from './github/oauth.js';
import { RateLimiter } from './github/rate-limit.js';
import type { Actor } from './github/records.js';
import { type LoggedRequest, RequestLog } from './github/request-log.js';
import { matchRoute, type Reply, type RouteMatch } from './github/router.js';
import { writeBranch } from './github/routes/contents.js';
import { routes } from './github/routes/index.js';
import { SecondaryLimiter, type SecondaryLimitOptions } from './github/secondary-limit.js';
import { GitHubState, type StateOptions } from './github/state.js';

export type { Fault, FaultHandle, FaultRule, FiredFault } from './github/faults.js';
export { DEFAULT_SEED, LIKE_GITHUB, type LikeGitHubOptions, type LoadStats } from './github/load-model.js';
export type { RepoState } from './github/repo-state.js';
export type { LoggedRequest, RequestFilter, RequestStats } from './github/request-log.js';
export { CHECK_OUTPUT_LIMIT } from './github/routes/checks.js';
export { BODY_LIMIT } from './github/routes/issues.js';
export type * from './github/specs.js';
export { GitHubState } from './github/state.js';

export interface GitHubServerOptions extends StateOptions, AuthOptions {
  /** Requests per hour for each actor before 403 "API rate limit exceeded" (default 5000). */
  readonly rateLimit?: number;
  /**
   * The like-GitHub model (`github/load-model.ts`, test/support/README.md): slow contents writes that race on
   * their branch, stale reads by branch name, secondary limits. On by default, seeded; `false` turns it off for
   * a suite that counts exact requests (say why where you do).
   */
  readonly likeGitHub?: LikeGitHubOptions | false;
  /** The secondary limit on content-creating requests, overriding the model's (`likeGitHub.secondaryLimit`). */
  readonly secondaryLimit?: SecondaryLimitOptions;
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
  /** The like-GitHub model in force: its options (the seed among them) and what it did. */
  readonly model: LoadModel;
  /** Stops listening and drops every connection, held ones included. */
  close(): Promise<void>;
}

/** A results-service call, its JSON body read; a body that is not JSON is Twirp's `malformed`. */
function resultsCall(
  state: GitHubState,
  base: string,
  url: URL,
  raw: Buffer,
  auth: string | undefined,
): Reply {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    return { status: 400, body: { code: 'malformed', msg: 'the body is not JSON' } };
  }
  return state.artifacts.rpc(base, url.pathname.slice(ARTIFACT_SERVICE.length), body, auth);
}

/**
 * A GET's JSON answer carries an ETag of its body, and a request whose `If-None-Match` names the same answer
 * gets 304 with no body, as GitHub answers conditional requests.
 */
function conditional(req: IncomingMessage, reply: Reply): Reply {
  if (req.method !== 'GET' || reply.status !== 200 || reply.body === undefined) return reply;
  const etag = `"${createHash('sha1').update(JSON.stringify(reply.body)).digest('hex')}"`;
  if (req.headers['if-none-match'] === etag) return { status: 304, headers: { ...reply.headers, etag } };
  return { ...reply, headers: { ...reply.headers, etag } };
}

export async function startGitHubServer(options: GitHubServerOptions = {}): Promise<GitHubServer> {
  const resolved = resolveModel(options.likeGitHub);
  const model = new LoadModel(
    options.secondaryLimit ? { ...resolved, secondaryLimit: options.secondaryLimit } : resolved,
  );
  const state = new GitHubState({ ...options, refHorizonMs: model.options.staleMs });
  const requests = new RequestLog();
  const oauth = new OAuthFlow(state);
  const faults = new FaultInjector();
  for (const rule of options.faults ?? []) faults.inject(rule);
  const limiter = new RateLimiter(options.rateLimit ?? 5000);
  const limits = model.options.secondaryLimit;
  const secondary = limits ? new SecondaryLimiter(limits) : undefined;
  const held = new Set<ServerResponse>();
  // `api` is known once the server listens, before any request arrives.
  const urls: { -readonly [K in keyof Urls]: Urls[K] } = {
    api: '',
    web: options.webUrl ?? 'https://github.com',
  };
  const conversions = new ManifestConversions(state, urls);

  const send = (res: ServerResponse, reply: Reply, who: string, entry: LoggedRequest): void => {
    entry.status = reply.status;
    entry.durationMs = Date.now() - entry.at;
    writeReply(res, reply, entry.seq, limiter.headers(who));
  };

  /** Answers with the fault, or holds or drops the connection. */
  const applyFault = (decision: Decision, res: ServerResponse, who: string, entry: LoggedRequest): void => {
    entry.fault = decision.fault.kind;
    if (breakConnection(decision.fault, res, held)) {
      entry.durationMs = Date.now() - entry.at;
      return;
    }
    const subject = `user ID ${state.user(who).id}`;
    send(res, faultReply(decision.fault, limiter.peek(who), subject)!, who, entry);
  };

  /** The error GitHub gives before it carries a request out (auth, no route, limits, a bad body), if any. */
  const admit = (
    match: RouteMatch | undefined,
    parsed: { error?: HttpError },
    auth: { actor?: Actor; error?: HttpError },
  ): void => {
    if (auth.error) throw auth.error;
    const actor = auth.actor!;
    if (!match) throw new HttpError(404, 'Not Found');
    const { auth: needs = 'token', counted = true } = match.route.options;
    if (needs === 'basic' && !actor.client) throw new HttpError(404, 'Not Found');
    if (needs !== 'basic' && actor.client) throw new HttpError(401, 'Bad credentials');
    if (needs === 'jwt' && !actor.asApp) throw new HttpError(401, 'A JSON web token could not be decoded');
    if (needs === 'token' && actor.asApp) throw new HttpError(403, 'Resource not accessible by integration');
    if (counted && !limiter.spend(actor.login)) {
      throw new HttpError(403, `API rate limit exceeded for user ID ${state.user(actor.login).id}.`);
    }
    if (counted) secondary?.spend(actor.login, match.route.method.toUpperCase());
    if (parsed.error) throw parsed.error;
  };

  /** Under the model a contents write takes time, and commits on the head its branch had when it began. */
  const begin = async (
    match: RouteMatch,
    body: unknown,
  ): Promise<{ head: string | undefined } | undefined> => {
    if (!match.route.options.slowWrite || model.options.contentsWriteMs <= 0) return undefined;
    const repo = state.findRepo(match.params.owner ?? '', match.params.repo ?? '');
    if (!repo) return undefined;
    const head = repo.branchSha(writeBranch(repo, (body as { branch?: unknown } | undefined)?.branch));
    await sleep(model.options.contentsWriteMs);
    return { head };
  };

  /**
   * The route's answer, or the error GitHub would give instead. The handler runs synchronously from start to
   * end, so its read-check-write cannot interleave with another request's; a read by name the model chose to
   * answer stale sees the refs as they stood `staleMs` before.
   */
  const answer = async (
    req: IncomingMessage,
    url: URL,
    match: RouteMatch | undefined,
    parsed: { body?: unknown; error?: HttpError },
    auth: { actor?: Actor; error?: HttpError },
  ): Promise<Reply> => {
    try {
      admit(match, parsed, auth);
      const route = match!.route;
      const began = await begin(match!, parsed.body);
      const ctx = createContext({
        method: route.method,
        url,
        params: match!.params,
        body: parsed.body,
        headers: req.headers,
        actor: auth.actor!,
        state,
        urls,
        rate: limiter.peek(auth.actor!.login),
        ...(began ? { began } : {}),
      });
      const staleAt = route.options.byName ? model.staleAt(Date.now()) : undefined;
      const value = state.refClock.serve(
        staleAt,
        () => route.handler(ctx as never),
        () => model.stats.staleAnswers++,
      );
      if (!route.options.byName || value.status !== 200) return value;
      return { ...value, headers: { ...value.headers, 'cache-control': 'public, max-age=60' } };
    } catch (error) {
      if (error instanceof HttpError) {
        if (error.message === SECONDARY_RATE_LIMIT_MESSAGE) model.stats.limited++;
        if (error.status === 409 && error.message.startsWith('is at ')) model.stats.racedWrites++;
        return { status: error.status, body: error.body(), headers: error.headers };
      }
      const message = error instanceof Error ? error.message : String(error);
      return { status: 500, body: new HttpError(500, `local GitHub server error: ${message}`).body() };
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', urls.api);
    const path = decodePath(url.pathname);
    const raw = await readBody(req);
    const latency =
      typeof options.latencyMs === 'function'
        ? options.latencyMs({ method, path })
        : (options.latencyMs ?? 0);
    if (latency > 0) await sleep(latency);

    // github.com's web flow (the authorize page and the token exchange) and the App-manifest conversion take no
    // credentials; faults strike them as any other request (before it is carried out, or after: answer lost).
    const webTemplate = CONVERSION_PATH.test(url.pathname)
      ? CONVERSION_TEMPLATE
      : url.pathname.startsWith('/login/oauth/')
        ? url.pathname
        : undefined;
    if (webTemplate) {
      const entry = requests.open({
        method,
        path,
        query: url.search,
        kind: `${method} ${webTemplate}`,
        actor: undefined,
        body: undefined,
        at,
      });
      const decision = faults.decide(method, path, webTemplate);
      if (decision?.when === 'before') return applyFault(decision, res, 'anonymous', entry);
      const web = conversions.answer(method, url) ??
        oauth.answer(method, url, raw, req.headers['content-type']) ?? {
          status: 404,
          body: { message: 'Not Found' },
        };
      if (decision) return applyFault(decision, res, 'anonymous', entry);
      return send(res, web, 'anonymous', entry);
    }
    // The results service and its blob store (workflow artifacts) take the runtime token or a signed URL.
    if (url.pathname.startsWith(ARTIFACT_SERVICE) || url.pathname.startsWith(BLOB_PREFIX)) {
      const blob = url.pathname.startsWith(BLOB_PREFIX);
      const entry = requests.open({
        method,
        path,
        query: blob ? '' : url.search,
        kind: blob ? `${method} ${BLOB_PREFIX}{id}` : `POST ${url.pathname}`,
        actor: undefined,
        body: undefined,
        at,
      });
      const decision = faults.decide(method, path, entry.kind.slice(method.length + 1));
      if (decision?.when === 'before') return applyFault(decision, res, 'anonymous', entry);
      const reply = blob
        ? state.artifacts.blob(method, url, req.headers, raw)
        : method !== 'POST'
          ? { status: 405, body: { code: 'bad_route', msg: `${method} is not served` } }
          : resultsCall(state, urls.api, url, raw, req.headers.authorization);
      if (decision) return applyFault(decision, res, 'anonymous', entry);
      return send(res, reply, 'anonymous', entry);
    }
    const auth: { actor?: Actor; error?: HttpError } = {};
    try {
      auth.actor = authenticate(req.headers.authorization, state, options);
    } catch (error) {
      auth.error = error as HttpError;
    }
    const parsed: { body?: unknown; error?: HttpError } = {};
    try {
      parsed.body = parseJson(raw);
    } catch (error) {
      parsed.error = error as HttpError;
    }
    const who = auth.actor?.login ?? 'anonymous';
    const match = matchRoute(routes, method, url.pathname);
    const entry = requests.open({
      method,
      path,
      query: url.search,
      kind: match?.route.kind ?? `${method} ${path}`,
      actor: auth.actor?.login,
      body: parsed.body,
      at,
    });

    const decision = faults.decide(method, path, match?.route.template);
    if (decision?.when === 'before') return applyFault(decision, res, who, entry);
    if (!model.enter()) {
      model.stats.limited++;
      const refused = new HttpError(429, SECONDARY_RATE_LIMIT_MESSAGE, undefined, { 'retry-after': '60' });
      return send(res, { status: 429, body: refused.body(), headers: refused.headers }, who, entry);
    }
    try {
      const reply = conditional(req, await answer(req, url, match, parsed, auth));
      if (decision) return applyFault(decision, res, who, entry);
      send(res, reply, who, entry);
    } finally {
      model.leave();
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return;
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ message: `local GitHub server error: ${String(error)}` }));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  urls.api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The steps and Apps this process starts against it are told its clock (clock.ts).
  servingAt(urls.api, model.options);

  return {
    url: urls.api,
    state,
    requests,
    faults,
    model,
    close: () =>
      new Promise<void>((resolve) => {
        stoppedAt(urls.api);
        for (const res of held) res.socket?.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
