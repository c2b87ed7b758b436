/**
 * The key proxy's WebSocket upgrades (Codex's Responses API over WebSocket), and the types the proxy's two halves
 * share. The server itself is key-proxy.ts.
 */
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import {
  decideRequest,
  downstreamHeaders,
  limitAnswer,
  refusalBody,
  upstreamHeaders,
  upstreamUrl,
} from './key-proxy-rules.js';
import { meterWebSocket } from './key-proxy-ws.js';
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
 * A WebSocket upgrade (Codex's Responses API over WebSocket): checked like any request (an attempt past its limit
 * is answered with the API's error), then, once the upstream switched protocols, the two sockets are joined: an
 * attempt's frame by frame, metered and recorded (key-proxy-ws.ts), the step's own byte for byte. An upstream that
 * answers without switching has its answer passed back as it is (Codex then falls back to HTTPS).
 */
export function relayUpgrade(req: IncomingMessage, socket: Socket, head: Buffer, deps: UpgradeDeps): void {
  const url = req.url ?? '/';
  const d = decideRequest(
    { method: req.method ?? 'GET', url, headers: req.headers, upgrade: true },
    deps.keys.all(),
  );
  const tab = d.kind === 'forward' ? deps.keys.tabOf(d.modelKey) : undefined;
  const over = tab?.refusal();
  if (d.kind !== 'forward' || over) {
    const limit =
      over && d.kind === 'forward' ? limitAnswer(d.route.api, `interlock key proxy: ${over}`) : undefined;
    const body = limit ? limit.body : d.kind === 'refuse' ? refusalBody(url, d.message) : '';
    const status = limit ? limit.status : d.kind === 'refuse' ? d.status : 400;
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
  const headers = upstreamHeaders(req.headers, d.modelKey, true);
  // An attempt's frames are read to meter them: no compression is offered, so none is agreed.
  if (tab) delete headers['sec-websocket-extensions'];
  const up = deps.send(target, { method: 'GET', headers });
  up.on('upgrade', (answer, upSocket, upHead) => {
    deps.track(upSocket);
    if (tab && answer.headers['sec-websocket-extensions']) {
      upSocket.destroy();
      socket.end(rawResponse(502, 'Bad Gateway', { 'content-length': '0', connection: 'close' }));
      return;
    }
    socket.write(
      rawResponse(101, 'Switching Protocols', {
        ...downstreamHeaders(answer.headers),
        connection: 'Upgrade',
        upgrade: String(answer.headers.upgrade ?? 'websocket'),
      }),
    );
    if (tab) {
      meterWebSocket({ node: socket, up: upSocket, head, upHead }, tab, { api: d.route.api, path: url });
      return;
    }
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
