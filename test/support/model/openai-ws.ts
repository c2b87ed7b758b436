/**
 * The Responses API over WebSocket, as Codex calls it (`GET /v1/responses` upgraded): each `response.create` text
 * message (the `POST /v1/responses` body, `type` added, `stream` implied) takes the next turn, answered as the
 * streamed events of the HTTPS path, one text message each; a scripted error is an `error` event carrying its
 * `status`. Ping is answered with pong, close with close. Uses the project's own frame codec.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { acceptKey, closePayload, encodeFrame, FrameReader, OP } from '../../../src/os/proxies/ws-frames.js';
import { openaiEvents } from './openai.js';
import type { ScriptedTurn } from './script.js';

export interface WsCall {
  /** The message's body: the `response.create` less its `type`. */
  body: Record<string, unknown>;
  /** Answers it with a turn (events, or an error event). */
  answer(turn: ScriptedTurn, model: string): void;
}

/** Completes the handshake on `socket` and hands each `response.create` to `onCall`. */
export function serveResponsesWebSocket(
  req: IncomingMessage,
  socket: Socket,
  onCall: (call: WsCall) => void,
): void {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string') {
    socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    return;
  }
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${acceptKey(key)}\r\n\r\n`,
  );
  const send = (o: unknown) => socket.write(encodeFrame(OP.text, JSON.stringify(o)));
  const reader = new FrameReader(true);
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    let messages: ReturnType<FrameReader['push']>;
    try {
      messages = reader.push(chunk);
    } catch {
      socket.destroy();
      return;
    }
    for (const m of messages) {
      if (m.opcode === OP.ping) socket.write(encodeFrame(OP.pong, m.data));
      else if (m.opcode === OP.close) socket.end(encodeFrame(OP.close, closePayload(1000)));
      else if (m.opcode === OP.text) {
        const { type, ...body } = JSON.parse(m.data.toString('utf8')) as Record<string, unknown>;
        if (type !== 'response.create') continue;
        onCall({
          body,
          answer: (turn, model) => {
            if (turn.error) {
              const e = turn.error;
              const kind = e.status >= 500 ? 'server_error' : 'invalid_request_error';
              send({
                type: 'error',
                status: e.status,
                error: { type: kind, code: e.type ?? null, message: e.message },
              });
            } else for (const e of openaiEvents(turn, model)) send(e);
          },
        });
      }
    }
  });
}
