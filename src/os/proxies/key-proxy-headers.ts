/**
 * The headers and bodies the key proxy sends: a forwarded request's headers (the real key in place of the
 * placeholder, nothing hop-by-hop), the upstream's answer's headers, and a refusal's body in the API's own error
 * shape. Pure.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ModelKey } from './key-proxy-rules.js';

/** Headers that belong to one connection, never passed on (RFC 9110 7.6.1), and the proxy's own. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Where a request may carry a key: none of them goes upstream but the real key's. */
const KEY_HEADERS = new Set(['x-api-key', 'authorization', 'x-goog-api-key', 'api-key']);

/** The request's headers as the upstream gets them: the real key in place of the placeholder, nothing hop-by-hop. */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  modelKey: ModelKey,
  upgrade: boolean,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP.has(k) || KEY_HEADERS.has(k)) continue;
    out[k] = v;
  }
  // Google's key goes in its header even when the node put it in the query (the query's is taken out).
  if (modelKey.api === 'gemini') out['x-goog-api-key'] = modelKey.real;
  else if (modelKey.api === 'azure') out['api-key'] = modelKey.real;
  else if (modelKey.api === 'anthropic' && headers['x-api-key'] !== undefined)
    out['x-api-key'] = modelKey.real;
  else out.authorization = `Bearer ${modelKey.real}`;
  if (upgrade) {
    out.connection = 'Upgrade';
    out.upgrade = String(headers.upgrade ?? 'websocket');
  }
  return out;
}

/** The upstream's response headers as the node gets them: the same, less the hop-by-hop ones. */
export function downstreamHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

/** A refusal's body, in the error shape of the API the path belongs to (so the engine prints its message). */
export function refusalBody(path: string, message: string): string {
  if (path.startsWith('/v1/messages'))
    return JSON.stringify({ type: 'error', error: { type: 'permission_error', message } });
  if (path.startsWith('/v1beta/'))
    return JSON.stringify({ error: { code: 403, message, status: 'PERMISSION_DENIED' } });
  return JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'interlock_key_proxy' } });
}
