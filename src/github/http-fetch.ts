/**
 * The part of `fetch` that Octokit uses, over `node:http` and `node:https`.
 *
 * Node's own `fetch` loads its bundled HTTP client and compiles a WebAssembly HTTP parser on first use: about
 * 0.3 CPU-seconds in every process that makes a request, more than the rest of a short Action step. The Action
 * starts a new process for every step, so its client goes through this instead; the App, a server, uses it too,
 * so both faces meet GitHub through one piece of code.
 *
 * What it does, as `fetch` does it for the requests Octokit makes:
 * - a string or byte body; headers as a plain object (Octokit's) or as name/value pairs;
 * - redirects followed (at most 20): 303, and 301/302 after a POST, become a GET without the body; a redirect to
 *   another origin drops `authorization` (so a token is never sent to a host it was not meant for);
 *   `redirect: 'manual'` returns the 3xx answer, `redirect: 'error'` fails;
 * - gzip, deflate and brotli answers decoded (it asks for them);
 * - `signal`: an abort or a deadline rejects with the signal's reason (`AbortError`, `TimeoutError`);
 * - a failed connection rejects with `TypeError('fetch failed')` whose `cause` is the socket's error, the shape
 *   Octokit turns into a status-500 error;
 * - Node's global agents: connections kept alive between requests (dropped before the server's `Keep-Alive`
 *   timeout), and, with `NODE_USE_ENV_PROXY=1` on Node 24, sent through `HTTP_PROXY`/`HTTPS_PROXY` as `fetch` is.
 *
 * Unlike `fetch`, the whole body is read before the promise resolves: a body cut off midway fails the request
 * (Octokit would otherwise read a broken JSON answer as an empty one).
 */
import type { IncomingMessage } from 'node:http';
// Loaded on first use: a step talks to GitHub over one of http and https, and most answers are not compressed.
import { http, https, zlib } from '../os/lazy.js';

const MAX_REDIRECTS = 20;

type Body = string | Uint8Array | ArrayBuffer | null | undefined;

export interface HttpFetchInit {
  method?: string;
  headers?: Record<string, string> | Iterable<readonly [string, string]>;
  body?: Body;
  redirect?: 'follow' | 'manual' | 'error';
  signal?: AbortSignal | null;
}

/** The answer: what Octokit reads of a `Response`. */
interface HttpFetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly redirected: boolean;
  readonly headers: ResponseHeaders;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** Response headers, lower-case names, repeated ones joined with ", " as `fetch` joins them. */
class ResponseHeaders implements Iterable<[string, string]> {
  readonly #map = new Map<string, string>();
  constructor(raw: IncomingMessage['headers']) {
    for (const [name, value] of Object.entries(raw))
      if (value !== undefined) this.#map.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }
  [Symbol.iterator](): Iterator<[string, string]> {
    return this.#map.entries();
  }
  entries(): Iterator<[string, string]> {
    return this.#map.entries();
  }
}

function requestHeaders(h: HttpFetchInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  const pairs: Iterable<readonly [string, string]> =
    h === undefined
      ? []
      : Symbol.iterator in h
        ? (h as Iterable<readonly [string, string]>)
        : Object.entries(h);
  for (const [name, value] of pairs) out[name.toLowerCase()] = String(value);
  return out;
}

function bodyBytes(body: Body): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('httpFetch: a body must be a string or bytes (streams are not supported)');
}

function decode(encoding: string | undefined, bytes: Buffer): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib().gunzipSync(bytes);
    case 'deflate':
      return zlib().inflateSync(bytes);
    case 'br':
      return zlib().brotliDecompressSync(bytes);
    default:
      return bytes;
  }
}

const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

const failed = (cause: unknown) => Object.assign(new TypeError('fetch failed'), { cause });

interface Raw {
  status: number;
  statusText: string;
  headers: IncomingMessage['headers'];
  bytes: Buffer;
}

/** One request and its whole (decoded) answer; no redirects. */
function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal?: AbortSignal | null,
): Promise<Raw> {
  return new Promise<Raw>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const protocol = url.protocol as 'http:' | 'https:';
    const send = protocol === 'https:' ? https().request : protocol === 'http:' ? http().request : undefined;
    if (!send) return reject(failed(new Error(`unsupported protocol ${url.protocol}`)));
    let answered = false;
    const answerOnce = (f: () => void) => {
      if (answered) return;
      answered = true;
      signal?.removeEventListener('abort', onAbort);
      f();
    };
    const req = send(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => answerOnce(() => reject(failed(e))));
      const cutOff = () => answerOnce(() => reject(failed(new Error('the answer was cut off'))));
      res.on('close', () => {
        if (!res.complete) cutOff();
      });
      res.on('end', () => {
        if (!res.complete) return cutOff();
        try {
          const bytes = decode(res.headers['content-encoding'], Buffer.concat(chunks));
          answerOnce(() =>
            resolve({
              status: res.statusCode ?? 0,
              statusText: res.statusMessage ?? '',
              headers: res.headers,
              bytes,
            }),
          );
        } catch (e) {
          answerOnce(() => reject(failed(e)));
        }
      });
    });
    const onAbort = () => {
      answerOnce(() => reject(abortReason(signal!)));
      req.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e) => answerOnce(() => reject(failed(e))));
    req.end(body);
  });
}

function answer(raw: Raw, url: string, redirected: boolean): HttpFetchResponse {
  const headers = new ResponseHeaders(raw.headers);
  // A decoded body no longer has its encoded length or encoding.
  const text = async () => raw.bytes.toString('utf8');
  return {
    status: raw.status,
    statusText: raw.statusText,
    ok: raw.status >= 200 && raw.status < 300,
    url,
    redirected,
    headers,
    text,
    json: async () => JSON.parse(await text()),
    arrayBuffer: async () =>
      raw.bytes.buffer.slice(
        raw.bytes.byteOffset,
        raw.bytes.byteOffset + raw.bytes.byteLength,
      ) as ArrayBuffer,
  };
}

/** `fetch(input, init)` for Octokit's requests; see the module's comment for what it does. */
export async function httpFetch(input: string | URL, init: HttpFetchInit = {}): Promise<HttpFetchResponse> {
  let url = new URL(String(input));
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = requestHeaders(init.headers);
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  let body = bodyBytes(init.body);
  if (body) headers['content-length'] = String(body.byteLength);
  for (let hops = 0; ; hops++) {
    const raw = await once(url, method, headers, body, init.signal);
    const location = raw.headers.location;
    if (![301, 302, 303, 307, 308].includes(raw.status) || !location || init.redirect === 'manual')
      return answer(raw, url.href, hops > 0);
    if (init.redirect === 'error')
      throw failed(new Error(`redirected to ${location} with redirect: 'error'`));
    if (hops >= MAX_REDIRECTS) throw failed(new Error(`more than ${MAX_REDIRECTS} redirects`));
    const next = new URL(location, url);
    if ((raw.status === 303 && method !== 'HEAD') || ([301, 302].includes(raw.status) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      for (const h of [
        'content-length',
        'content-type',
        'content-encoding',
        'content-language',
        'content-location',
      ])
        delete headers[h];
    }
    if (next.origin !== url.origin) delete headers.authorization;
    url = next;
  }
}
