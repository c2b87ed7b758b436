/**
 * The least of a WebSocket client, for tests: the handshake on a raw socket, masked text frames out, whole
 * messages in (the project's own frame codec, src/os/proxies/ws-frames.ts).
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { encodeFrame, FrameReader, OP, type WsMessage } from '../../src/os/proxies/ws-frames.js';

export interface WsClient {
  /** The handshake's answer: its status line and headers. */
  head: string;
  send(message: unknown): void;
  /** Raw bytes, as a hostile node would send them. */
  write(bytes: Buffer): void;
  /** The next message (a control frame included); rejects when the connection ends first. */
  next(): Promise<WsMessage>;
  /** Messages until one whose JSON `type` is one of `types` (it included). */
  until(...types: string[]): Promise<Array<Record<string, unknown>>>;
  closed: Promise<void>;
  destroy(): void;
}

export function wsConnect(port: number, path: string, headers: Record<string, string>): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    const reader = new FrameReader(false);
    const queue: WsMessage[] = [];
    const waiting: Array<{ ok: (m: WsMessage) => void; fail: (e: Error) => void }> = [];
    let buf = Buffer.alloc(0);
    let head: string | undefined;
    let ended = false;
    const closed = new Promise<void>((r) => s.once('close', () => r()));
    const give = () => {
      while (queue.length && waiting.length) waiting.shift()!.ok(queue.shift()!);
      if (ended) for (const w of waiting.splice(0)) w.fail(new Error('the connection ended'));
    };
    s.on('close', () => {
      ended = true;
      if (head === undefined) reject(new Error('closed before the handshake'));
      give();
    });
    s.on('error', () => {});
    const client: WsClient = {
      head: '',
      send: (m) => s.write(encodeFrame(OP.text, JSON.stringify(m), true)),
      write: (b) => s.write(b),
      next: () =>
        new Promise((ok, fail) => {
          waiting.push({ ok, fail });
          give();
        }),
      until: async (...types) => {
        const out: Array<Record<string, unknown>> = [];
        for (;;) {
          const m = await client.next();
          if (m.opcode !== OP.text) continue;
          const o = JSON.parse(m.data.toString('utf8')) as Record<string, unknown>;
          out.push(o);
          if (types.includes(String(o.type))) return out;
        }
      },
      closed,
      destroy: () => s.destroy(),
    };
    s.on('data', (c: Buffer) => {
      if (head === undefined) {
        buf = Buffer.concat([buf, c]);
        const at = buf.indexOf('\r\n\r\n');
        if (at < 0) return;
        head = buf.subarray(0, at).toString('latin1');
        client.head = head;
        const rest = buf.subarray(at + 4);
        if (!/^HTTP\/1\.1 101 /.test(head)) {
          client.head = `${head}\r\n\r\n${rest.toString('utf8')}`;
          return resolve(client);
        }
        resolve(client);
        if (rest.length) queue.push(...reader.push(rest));
      } else queue.push(...reader.push(c));
      give();
    });
    const lines = Object.entries({
      host: `127.0.0.1:${port}`,
      upgrade: 'websocket',
      connection: 'Upgrade',
      'sec-websocket-version': '13',
      'sec-websocket-key': randomBytes(16).toString('base64'),
      ...headers,
    }).map(([k, v]) => `${k}: ${v}`);
    s.write(`GET ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
  });
}
