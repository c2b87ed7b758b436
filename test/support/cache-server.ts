/**
 * A local stand-in for the GitHub Actions cache service, v2 (what `@actions/cache` talks to when the runner sets
 * `ACTIONS_CACHE_SERVICE_V2` and `ACTIONS_RESULTS_URL`): node built-ins only, like the local GitHub.
 *
 * - Twirp, JSON: `POST /twirp/github.actions.results.api.v1.CacheService/{CreateCacheEntry,
 *   FinalizeCacheEntryUpload, GetCacheEntryDownloadURL}` with `Authorization: Bearer <ACTIONS_RUNTIME_TOKEN>`;
 *   fields by their proto names (`key`, `version`, `restore_keys`, `size_bytes`; `ok`, `signed_upload_url`,
 *   `entry_id`, `signed_download_url`, `matched_key`); errors as Twirp's `{ code, msg }` with its HTTP status.
 * - The blob store the signed URLs point at: `PUT` of a block blob (`x-ms-blob-type: BlockBlob`, the Azure
 *   SDK's single-shot upload), then `GET`; a URL whose signature is not the one handed out is refused (403).
 *
 * An entry is its key and version; it can be downloaded once finalized. A lookup matches the key exactly, then
 * each restore key as a prefix (the newest entry first). Every request is recorded.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const SERVICE = '/twirp/github.actions.results.api.v1.CacheService/';

export interface CacheEntry {
  id: number;
  key: string;
  version: string;
  sig: string;
  body?: Buffer;
  finalized: boolean;
}

export interface CacheRequest {
  method: string;
  path: string;
  /** The Twirp method, for service calls. */
  rpc?: string;
  body?: Record<string, unknown>;
  status: number;
}

export interface CacheServer {
  /** The runner's `ACTIONS_RESULTS_URL` (with its trailing slash, as the runner gives it). */
  readonly url: string;
  readonly token: string;
  readonly entries: CacheEntry[];
  readonly requests: CacheRequest[];
  /** The environment a runner gives a step for this service. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

function read(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

const STATUS: Record<string, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
};

export async function startCacheServer(): Promise<CacheServer> {
  const token = `cache-token-${randomBytes(6).toString('hex')}`;
  const entries: CacheEntry[] = [];
  const requests: CacheRequest[] = [];
  let base = '';
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
    return status;
  };
  const twirpError = (res: ServerResponse, code: string, msg: string) =>
    json(res, STATUS[code] ?? 500, { code, msg });
  const blobUrl = (e: CacheEntry) => `${base}devstoreaccount1/actions-cache/${e.id}?sig=${e.sig}`;

  function rpc(method: string, b: Record<string, unknown>, res: ServerResponse): number {
    const key = typeof b.key === 'string' ? b.key : '';
    const version = typeof b.version === 'string' ? b.version : '';
    if (!key || !version) return twirpError(res, 'invalid_argument', 'key and version are required');
    if (method === 'CreateCacheEntry') {
      if (entries.some((e) => e.key === key && e.version === version))
        return twirpError(res, 'already_exists', 'cache entry with the same key and version already exists');
      const e = {
        id: entries.length + 1,
        key,
        version,
        sig: randomBytes(8).toString('hex'),
        finalized: false,
      };
      entries.push(e);
      return json(res, 200, { ok: true, signed_upload_url: blobUrl(e) });
    }
    if (method === 'FinalizeCacheEntryUpload') {
      const e = entries.find((x) => x.key === key && x.version === version && !x.finalized);
      if (!e?.body) return twirpError(res, 'not_found', 'no uploaded entry to finalize');
      if (String(e.body.length) !== String(b.size_bytes))
        return twirpError(
          res,
          'invalid_argument',
          `size_bytes ${String(b.size_bytes)} is not ${e.body.length}`,
        );
      e.finalized = true;
      return json(res, 200, { ok: true, entry_id: String(e.id) });
    }
    if (method === 'GetCacheEntryDownloadURL') {
      const done = entries.filter((e) => e.finalized && e.version === version).reverse();
      const prefixes = Array.isArray(b.restore_keys) ? (b.restore_keys as string[]) : [];
      const hit =
        done.find((e) => e.key === key) ??
        prefixes.map((p) => done.find((e) => e.key.startsWith(p))).find(Boolean);
      if (!hit) return json(res, 200, { ok: false });
      return json(res, 200, { ok: true, signed_download_url: blobUrl(hit), matched_key: hit.key });
    }
    return twirpError(res, 'not_found', `no method ${method}`);
  }

  async function blob(req: IncomingMessage, res: ServerResponse, url: URL): Promise<number> {
    const e = entries.find((x) => url.pathname === `/devstoreaccount1/actions-cache/${x.id}`);
    if (!e || url.searchParams.get('sig') !== e.sig) {
      res.writeHead(403).end('signature mismatch');
      return 403;
    }
    if (req.method === 'PUT') {
      if (req.headers['x-ms-blob-type'] !== 'BlockBlob' || e.finalized) {
        res.writeHead(400).end('a block blob, once');
        return 400;
      }
      e.body = await read(req);
      res.writeHead(201, {
        etag: `"0x${e.id}"`,
        'last-modified': new Date().toUTCString(),
        'x-ms-request-id': `${e.id}`,
      });
      res.end();
      return 201;
    }
    if (req.method === 'GET' && e.finalized && e.body) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': e.body.length });
      res.end(e.body);
      return 200;
    }
    res.writeHead(404).end();
    return 404;
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const rec: CacheRequest = { method: req.method ?? '', path: url.pathname, status: 0 };
      requests.push(rec);
      if (url.pathname.startsWith('/devstoreaccount1/')) {
        rec.status = await blob(req, res, url);
        return;
      }
      const raw = await read(req);
      if (req.method !== 'POST' || !url.pathname.startsWith(SERVICE)) {
        rec.status = twirpError(res, 'not_found', `${req.method} ${url.pathname}`);
        return;
      }
      rec.rpc = url.pathname.slice(SERVICE.length);
      if (req.headers.authorization !== `Bearer ${token}`) {
        rec.status = twirpError(res, 'unauthenticated', 'a bearer token is required');
        return;
      }
      try {
        rec.body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        rec.status = twirpError(res, 'invalid_argument', 'the body is not JSON');
        return;
      }
      rec.status = rpc(rec.rpc, rec.body, res);
    })().catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url: base,
    token,
    entries,
    requests,
    env: () => ({
      ACTIONS_RESULTS_URL: base,
      ACTIONS_RUNTIME_TOKEN: token,
      ACTIONS_CACHE_SERVICE_V2: 'True',
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
