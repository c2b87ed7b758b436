/**
 * What the key proxy decides, as pure functions of data: which model keys of the step's env it serves, which
 * request it forwards (and where), which it refuses and why, the headers it sends on, and the environment a node
 * gets in place of the keys. The server that carries these out is `src/os/proxies/key-proxy.ts`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ROUTES, type Route } from './key-proxy-routes.js';

/** The model APIs the engines call (`azure`: Azure OpenAI, as Copilot CLI's provider of type azure calls it). */
export type ModelApi = 'anthropic' | 'openai' | 'gemini' | 'azure';

/** The model keys the proxy can serve, and the API each is for. */
export const MODEL_KEYS: Record<string, ModelApi> = {
  ANTHROPIC_API_KEY: 'anthropic',
  OPENAI_API_KEY: 'openai',
  // Codex 0.171's `codex exec` reads its key from CODEX_API_KEY, not OPENAI_API_KEY.
  CODEX_API_KEY: 'openai',
  // Gemini CLI sends it as `x-goog-api-key` to GOOGLE_GEMINI_BASE_URL.
  GEMINI_API_KEY: 'gemini',
  // Copilot CLI's provider of the user's own: its API is COPILOT_PROVIDER_TYPE's (`keyApi`).
  COPILOT_PROVIDER_API_KEY: 'openai',
};

/**
 * The API a key of the step's env is for. Copilot CLI's provider key is the API of `COPILOT_PROVIDER_TYPE`:
 * `anthropic`, `azure`, or `openai` (its default type).
 */
export function keyApi(name: string, env: Record<string, string | undefined>): ModelApi {
  if (name !== 'COPILOT_PROVIDER_API_KEY') return MODEL_KEYS[name]!;
  const type = env.COPILOT_PROVIDER_TYPE?.trim() || 'openai';
  if (type === 'anthropic' || type === 'openai' || type === 'azure') return type;
  throw new Error(
    `COPILOT_PROVIDER_TYPE in the step's env is "${type}": Copilot CLI's provider types are anthropic, openai and azure; give one of them, or remove COPILOT_PROVIDER_API_KEY from agent-credentials to pass it on as it is`,
  );
}

/** The variable of a key's base URL: its API's, or Copilot CLI's provider's own. */
const baseVarOf = (k: { name: string; api: ModelApi }) =>
  k.name === 'COPILOT_PROVIDER_API_KEY' ? 'COPILOT_PROVIDER_BASE_URL' : APIS[k.api].baseVar;

/** The Action's default (`agent-credentials`); each is served only when the step's env holds it. */
export const DEFAULT_AGENT_CREDENTIALS =
  'ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY COPILOT_PROVIDER_API_KEY';

interface ApiShape {
  /** The step env's variable that names another upstream (a gateway, a local server). */
  baseVar: string;
  /** The API's own address, when it has one (an Azure resource's is the user's own: its base URL is required). */
  official: string | undefined;
  /** The node's base URL is the proxy plus this (Anthropic's clients append `/v1/...` themselves). */
  nodeSuffix: string;
}

const APIS: Record<ModelApi, ApiShape> = {
  anthropic: { baseVar: 'ANTHROPIC_BASE_URL', official: 'https://api.anthropic.com', nodeSuffix: '' },
  openai: { baseVar: 'OPENAI_BASE_URL', official: 'https://api.openai.com/v1', nodeSuffix: '/v1' },
  // Gemini CLI appends `/v1beta/models/...` itself.
  gemini: {
    baseVar: 'GOOGLE_GEMINI_BASE_URL',
    official: 'https://generativelanguage.googleapis.com',
    nodeSuffix: '',
  },
  // Copilot CLI appends `/openai/v1/...` (or `/openai/deployments/...` with an API version) to its base URL.
  azure: { baseVar: 'COPILOT_PROVIDER_BASE_URL', official: undefined, nodeSuffix: '' },
};

/** One key the proxy serves: the variable, its API, the real value and the placeholder nodes get instead. */
export interface ModelKey {
  name: string;
  api: ModelApi;
  real: string;
  placeholder: string;
}

/** Names separated by spaces, commas or lines; `none` or nothing turns the proxy off. */
export function parseAgentCredentials(text: string, where = 'agent-credentials'): string[] {
  const names = text.split(/[\s,]+/).filter(Boolean);
  if (names.length === 1 && names[0] === 'none') return [];
  for (const n of names) {
    if (!(n in MODEL_KEYS))
      throw new Error(
        `${where}: "${n}" is not a model key interlock can serve through its proxy (it serves ${Object.keys(MODEL_KEYS).join(', ')}); give such names, or "none" to turn the proxy off`,
      );
  }
  return [...new Set(names)];
}

/** A listed name that `node-credentials` also grants: one secret cannot be both withheld and given. */
export function credentialConflicts(names: string[], granted: Iterable<string>): string | undefined {
  const both = [...granted].filter((g) => names.includes(g));
  if (!both.length) return undefined;
  return `${both.join(', ')} ${both.length > 1 ? 'are' : 'is'} in both agent-credentials (served through the key proxy, withheld from every node) and node-credentials (given to nodes): remove ${both.length > 1 ? 'them' : 'it'} from one of the two`;
}

/** The upstream base URL of each key served (by its name): the step env's own, or the official API. */
export function upstreams(keys: ModelKey[], env: Record<string, string | undefined>): Map<string, URL> {
  const out = new Map<string, URL>();
  for (const k of keys) {
    const shape = { ...APIS[k.api], baseVar: baseVarOf(k) };
    const given = env[shape.baseVar]?.trim();
    if (!given && !shape.official)
      throw new Error(
        `${shape.baseVar} is not in the step's env: an ${k.api} provider has no address of its own; give the resource's URL (https://<resource>.openai.azure.com, or a project URL ending in /api/projects/<project>)`,
      );
    let url: URL;
    try {
      url = new URL((given || shape.official)!);
    } catch {
      throw new Error(
        `${shape.baseVar} in the step's env ("${given}") is not a URL: give an http(s) URL or unset it`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`${shape.baseVar} in the step's env ("${given}") is not an http(s) URL`);
    out.set(k.name, url);
  }
  return out;
}

/** The upstream URL of a forwarded request: the base, its path without a trailing slash, the route's path. */
export function upstreamUrl(base: URL, upstreamPath: string, query: string): URL {
  const u = new URL(base.href);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}${upstreamPath}`;
  u.search = query;
  return u;
}

/** The variables a node gets in place of the keys: each key's placeholder, and the proxy as each API's base URL. */
export function nodeEnvFor(keys: ModelKey[], port: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of keys) env[k.name] = k.placeholder;
  for (const k of keys) env[baseVarOf(k)] = `http://127.0.0.1:${port}${APIS[k.api].nodeSuffix}`;
  // Copilot CLI with a provider of its own never asks GitHub for a token.
  if (keys.some((k) => k.name === 'COPILOT_PROVIDER_API_KEY')) env.COPILOT_OFFLINE = 'true';
  const openai = keys.find((k) => k.name === 'OPENAI_API_KEY');
  // Codex's own provider reads CODEX_API_KEY: it gets the OpenAI placeholder unless it is a key of its own.
  if (openai && !keys.some((k) => k.name === 'CODEX_API_KEY')) env.CODEX_API_KEY = openai.placeholder;
  return env;
}

/** NO_PROXY with the loopback names added, so a node's HTTP proxy never carries its calls to the key proxy. */
export function withLoopbackNoProxy(value: string | undefined): string {
  const have = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const h of ['127.0.0.1', 'localhost']) if (!have.includes(h)) have.push(h);
  return have.join(',');
}

type ProxyDecision =
  /** Answered by the proxy itself (Claude Code's `HEAD /` probe): nothing goes upstream. */
  | { kind: 'answer'; status: 200 }
  | { kind: 'forward'; modelKey: ModelKey; route: Route; query: string }
  | { kind: 'refuse'; status: 400 | 401 | 404 | 405; message: string };

const served = (keys: ModelKey[]) =>
  ROUTES.filter((r) => keys.some((k) => k.api === r.api))
    .map((r) => `${r.method} ${r.path}${r.upgrade ? ' (WebSocket)' : ''}`)
    .join(', ');

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The key a request carries: Anthropic's `x-api-key`, Google's `x-goog-api-key` or `key` query parameter, Azure
 * OpenAI's `api-key`, or `Authorization: Bearer` (OpenAI's, and Anthropic's too).
 */
function carried(headers: IncomingHttpHeaders, api: ModelApi, query = ''): string | undefined {
  const xKey = headers['x-api-key'];
  if (api === 'anthropic' && typeof xKey === 'string') return xKey;
  if (api === 'azure') {
    const azureKey = headers['api-key'];
    return typeof azureKey === 'string' && headers.authorization === undefined ? azureKey : undefined;
  }
  if (api === 'gemini') {
    const goog = headers['x-goog-api-key'];
    const inQuery = new URLSearchParams(query.slice(1)).getAll('key');
    // One key, in one place: a second one could be what the upstream reads.
    if (typeof goog === 'string' && !inQuery.length) return goog;
    if (goog === undefined && inQuery.length === 1) return inQuery[0];
    return undefined;
  }
  const m = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
  return m?.[1];
}

/** A query without its `key` parameter (the placeholder; the real key goes upstream in a header). */
function withoutKey(query: string): string {
  const params = new URLSearchParams(query.slice(1));
  if (!params.has('key')) return query;
  params.delete('key');
  const rest = params.toString();
  return rest ? `?${rest}` : '';
}

/** Where each API's requests carry the key. */
const KEY_PLACE: Record<ModelApi, string> = {
  anthropic: 'x-api-key',
  openai: 'Authorization: Bearer',
  gemini: 'x-goog-api-key, or the key query parameter',
  azure: 'api-key',
};

const refuse = (status: 400 | 401 | 404 | 405, message: string): ProxyDecision => ({
  kind: 'refuse',
  status,
  message: `interlock key proxy: ${message}`,
});

/**
 * What to do with one request: forward it (its path is an engine's model call and it carries a placeholder of
 * that API), answer it (`HEAD /`), or refuse it, saying why. The path must be exactly a route's: no `..`, no
 * percent-encoding, no second slash, so what is checked is what goes upstream.
 */
export function decideRequest(
  req: { method: string; url: string; headers: IncomingHttpHeaders; upgrade: boolean },
  keys: ModelKey[],
): ProxyDecision {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const query = q < 0 ? '' : req.url.slice(q);
  if (req.method === 'HEAD' && path === '/' && !req.upgrade) return { kind: 'answer', status: 200 };
  if (!path.startsWith('/') || /%|\/\/|\/\.\.?(\/|$)|#/.test(path) || query.includes('#'))
    return refuse(400, `the path "${path}" is not in its plain form; it serves ${served(keys)}`);
  const serves = (r: Route) => (r.pattern ? r.pattern.test(path) : r.path === path);
  const onPath = ROUTES.filter((r) => serves(r) && keys.some((k) => k.api === r.api));
  if (!onPath.length)
    return refuse(404, `${req.method} ${path} is not a model API call it serves; it serves ${served(keys)}`);
  const found = onPath.find((r) => r.method === req.method && !!r.upgrade === req.upgrade);
  if (!found)
    return refuse(
      405,
      `${req.method} ${path}${req.upgrade ? ' (upgrade)' : ''} is not served; it serves ${served(keys)}`,
    );
  // A pattern's route goes upstream on the path it came with.
  const route = found.pattern ? { ...found, upstreamPath: path } : found;
  const given = carried(req.headers, route.api, query);
  const modelKey =
    given === undefined ? undefined : keys.find((k) => k.api === route.api && same(k.placeholder, given));
  if (!modelKey)
    return refuse(
      401,
      `the request does not carry this step's placeholder key for the ${route.api} API (${KEY_PLACE[route.api]}): only the step's nodes can use this proxy`,
    );
  return {
    kind: 'forward',
    modelKey: modelKey,
    route,
    query: route.api === 'gemini' ? withoutKey(query) : query,
  };
}

export { downstreamHeaders, refusalBody, upstreamHeaders } from './key-proxy-headers.js';

/**
 * The answer to a call refused at a limit, in the API's own error shape so that the engine prints the message and
 * does not retry: Anthropic's `billing_error` (402), OpenAI's `insufficient_quota` (429, which Codex gives up on).
 */
export function limitAnswer(api: ModelApi, message: string): { status: number; body: string } {
  if (api === 'anthropic')
    return {
      status: 402,
      body: JSON.stringify({ type: 'error', error: { type: 'billing_error', message } }),
    };
  return {
    status: 429,
    body: JSON.stringify({ error: { message, type: 'insufficient_quota', code: 'insufficient_quota' } }),
  };
}
