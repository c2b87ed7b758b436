/**
 * The replay proxy's side of Codex's WebSocket (issue 48): when the recording holds calls made over it (kept with
 * `method` GET, the upgrade's), the replay accepts the upgrade and answers each `response.create` message from
 * the recorded call it matches, one text message per recorded line, metered and kept on the attempt's tab as the
 * key proxy did. A message that matches none is the departure: answered with the API's error event, the
 * attempt's agent stopped. The node's frames are bounded as the key proxy's are (ws-frames.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { AnswerReader } from './answer-usage.js';
import { decideRequest, type ModelApi } from './key-proxy-rules.js';
import type { ProxyTab } from './key-proxy-tab.js';
import { messageType, wsErrorEvent } from './key-proxy-ws.js';
import type { ServedKeys } from './proxy-serve.js';
import type { Departure, RecordedCall } from './replay-match.js';
import {
  acceptKey,
  closePayload,
  encodeFrame,
  FrameReader,
  OP,
  WsError,
  type WsMessage,
} from './ws-frames.js';

interface ReplaySocket {
  api: ModelApi;
  tab: ProxyTab | undefined;
  /** The recorded call a message matches (taken, so that it answers once), or the replay's departure. */
  take: (message: string) => { call: RecordedCall } | { departure: Departure };
}

/**
 * A WebSocket upgrade at the replay proxy: answered from the recording when it holds calls made over one (kept
 * with the upgrade's method, GET); else refused, so that Codex calls over HTTPS, as it did when it was recorded.
 */
export function upgradeForReplay(
  req: IncomingMessage,
  socket: Socket,
  a: {
    calls: RecordedCall[];
    keys: Pick<ServedKeys, 'all' | 'tabOf'>;
    take: (method: string, url: string, body: string) => { index: number } | { departure: Departure };
  },
): void {
  const url = req.url ?? '/';
  const d = decideRequest(
    { method: req.method ?? 'GET', url, headers: req.headers, upgrade: true },
    a.keys.all(),
  );
  if (!a.calls.some((c) => c.method === 'GET') || d.kind !== 'forward') {
    socket.end('HTTP/1.1 404 Refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    return;
  }
  replayWebSocket(req, socket, {
    api: d.route.api,
    tab: a.keys.tabOf(d.modelKey),
    take: (text) => {
      const m = a.take('GET', url, text);
      return 'departure' in m ? m : { call: a.calls[m.index]! };
    },
  });
}

/** Completes the handshake on `socket` and answers its `response.create` messages from the recording. */
function replayWebSocket(req: IncomingMessage, socket: Socket, r: ReplaySocket): void {
  const nonce = req.headers['sec-websocket-key'];
  if (typeof nonce !== 'string') {
    socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    return;
  }
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${acceptKey(nonce)}\r\n\r\n`,
  );
  const path = req.url ?? '/';
  const frames = new FrameReader(true);
  const send = (text: string) => socket.write(encodeFrame(OP.text, text));
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    let messages: WsMessage[];
    try {
      messages = frames.push(chunk);
    } catch (e) {
      const err = e instanceof WsError ? e : new WsError(String(e), 1002);
      socket.end(encodeFrame(OP.close, closePayload(err.code, `interlock replay: ${err.message}`)));
      return;
    }
    for (const m of messages) {
      if (m.opcode === OP.ping) socket.write(encodeFrame(OP.pong, m.data));
      else if (m.opcode === OP.close) socket.end(encodeFrame(OP.close, closePayload(1000)));
      else if (m.opcode === OP.text) {
        const text = m.data.toString('utf8');
        if (messageType(text) === 'response.create') answer(r, path, text, send);
      }
    }
  });
}

/** One `response.create`: the recorded call's messages, or the departure's error event. */
function answer(r: ReplaySocket, path: string, text: string, send: (text: string) => void): void {
  const m = r.take(text);
  if ('departure' in m) {
    const why = `interlock replay: ${m.departure.message}`;
    const event = wsErrorEvent(r.api, why);
    r.tab?.keep({ method: 'GET', path, request: text, status: 429, answer: event });
    send(event);
    if (r.tab && !r.tab.stopped) {
      r.tab.stopped = why;
      r.tab.onStop?.(why);
    }
    return;
  }
  const lines = m.call.answer.split('\n').filter((l) => l.length);
  if (r.tab) {
    const reader = new AnswerReader(r.api, true);
    for (const l of lines) reader.push(`data: ${l}\n`);
    if (m.call.status >= 200 && m.call.status < 300) r.tab.record(reader.end());
    r.tab.keep({ method: 'GET', path, request: text, status: m.call.status, answer: m.call.answer });
  }
  for (const l of lines) send(l);
}
