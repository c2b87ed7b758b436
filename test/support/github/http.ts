/** HTTP plumbing: reading a request body, decoding paths and JSON, writing a reply. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './http-error.js';
import type { Reply } from './router.js';

const API_VERSION = '2022-11-28';

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The path with `%2F` and friends decoded, for logs and fault rules. */
export function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The JSON body, undefined when there is none; GitHub's 400 when it does not parse. */
export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'Problems parsing JSON');
  }
}

/** Sends a reply with the headers GitHub puts on every answer. */
export function writeReply(
  res: ServerResponse,
  reply: Reply,
  seq: number,
  extra: Record<string, string>,
): void {
  const headers: Record<string, string> = {
    'x-github-api-version-selected': API_VERSION,
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': `${randomUUID().slice(0, 8).toUpperCase()}:${seq}`,
    ...extra,
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
  res.writeHead(reply.status, headers);
  res.end(payload);
}
