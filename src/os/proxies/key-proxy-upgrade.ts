/**
 * The key proxy's WebSocket upgrades (Codex's Responses API over WebSocket), and the types the proxy's two halves
 * share. The server itself is key-proxy.ts.
 */
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import {
  decideRequest,
  downstreamHeaders,
  refusalBody,
  upstreamHeaders,
  upstreamUrl,
} from './key-proxy-rules.js';
import type { ServedKeys } from './proxy-serve.js';

export type Send = (target: URL, opts: RequestOptions) => ClientRequest;

/** The keys served now (the step's and every open tab's), and the tab a key belongs to. */
type Keys = Pick<ServedKeys, 'all' | 'tabOf'>;

function rawResponse(
  status: number,
  reason: string,
  headers: Record<string, string | string[]>,
  body = '',
): string {
  const lines = Object.entries(headers).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((x) => `${k}: ${x}`),
  );
  return `HTTP/1.1 ${status} ${reason}\r\n${lines.join('\r\n')}${lines.length ? '\r\n' : ''}\r\n${body}`;
}

interface UpgradeDeps {
  keys: Keys;
  bases: Map<string, URL>;
  send: Send;
  track: <T extends { destroy(): void; once(e: 'close', f: () => void): unknown }>(s: T) => T;
}

/**
 * A WebSocket upgrade (Codex's Responses API over WebSocket): checked like any request, then, once the upstream
 * switched protocols, the two sockets are joined byte for byte. An upstream that answers without switching has its
 * answer passed back as it is (Codex then falls back to HTTPS).
 */
export function relayUpgrade(req: IncomingMessage, socket: Socket, head: Buffer, deps: UpgradeDeps): void {
  const url = req.url ?? '/';
  const d = decideRequest(
    { method: req.method ?? 'GET', url, headers: req.headers, upgrade: true },
    deps.keys.all(),
  );
  // An attempt's calls go over HTTPS, where their usage is read (the engine falls back to it).
  const metered = d.kind === 'forward' && deps.keys.tabOf(d.modelKey) !== undefined;
  if (d.kind !== 'forward' || metered) {
    const message = metered
      ? 'interlock key proxy: an attempt calls the Responses API over HTTPS here, where its usage is metered, not over WebSocket'
      : d.kind === 'refuse'
        ? d.message
        : '';
    const body = message ? refusalBody(url, message) : '';
    const status = metered ? 404 : d.kind === 'refuse' ? d.status : 400;
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    socket.end(rawResponse(status, 'Refused', headers, body));
    return;
  }
  socket.on('error', () => socket.destroy());
  const target = upstreamUrl(deps.bases.get(d.modelKey.name)!, d.route.upstreamPath, d.query);
  const up = deps.send(target, { method: 'GET', headers: upstreamHeaders(req.headers, d.modelKey, true) });
  up.on('upgrade', (answer, upSocket, upHead) => {
    deps.track(upSocket);
    socket.write(
      rawResponse(101, 'Switching Protocols', {
        ...downstreamHeaders(answer.headers),
        connection: 'Upgrade',
        upgrade: String(answer.headers.upgrade ?? 'websocket'),
      }),
    );
    if (upHead.length) socket.write(upHead);
    if (head.length) upSocket.write(head);
    upSocket.pipe(socket).on('error', () => upSocket.destroy());
    socket.pipe(upSocket);
    upSocket.on('error', () => socket.destroy());
    socket.on('close', () => upSocket.destroy());
    upSocket.on('close', () => socket.destroy());
  });
  up.on('response', (answer) => {
    socket.write(
      rawResponse(answer.statusCode ?? 502, answer.statusMessage ?? '', {
        ...downstreamHeaders(answer.headers),
        connection: 'close',
      }),
    );
    answer.pipe(socket);
  });
  up.on('error', (e) => {
    const body = refusalBody(url, `interlock key proxy: the upstream ${target.host} failed: ${e.message}`);
    socket.end(
      rawResponse(
        502,
        'Bad Gateway',
        {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          connection: 'close',
        },
        body,
      ),
    );
  });
  up.end();
}
