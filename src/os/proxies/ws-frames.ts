/**
 * WebSocket frames (RFC 6455), as far as the key proxy and the replay proxy read and write them: text and binary
 * messages (fragmented or not), ping, pong and close. Node has no WebSocket server of its own; this is the least
 * of one. Pure: bytes in, frames and messages out. Every size is bounded, so a hostile node (or upstream) cannot
 * make the proxy hold more than one message of WS_MESSAGE_BYTES: past it the reader throws.
 */
import { createHash } from 'node:crypto';

/** The most one message (all its fragments together) may hold. */
const WS_MESSAGE_BYTES = 16_000_000;

export const OP = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** One frame as it came: its header's fields, its payload unmasked, and its bytes as they were (to pass on). */
interface WsFrame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
  raw: Buffer;
}

/** A whole message: its opcode (text or binary), its payload, and the bytes of every frame it came in. */
export interface WsMessage {
  opcode: number;
  data: Buffer;
  raw: Buffer[];
}

/** A violation of the protocol, with the close code (RFC 6455 7.4.1) the other side is told. */
export class WsError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** The `Sec-WebSocket-Accept` answer to a `Sec-WebSocket-Key`. */
export function acceptKey(nonce: string): string {
  return createHash('sha1').update(`${nonce}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
}

/** A frame's bytes: a client's are masked (`mask` true), a server's are not. */
export function encodeFrame(opcode: number, payload: Buffer | string, mask = false, fin = true): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const len = data.length;
  const size = len < 126 ? 2 : len < 65_536 ? 4 : 10;
  const head = Buffer.alloc(size + (mask ? 4 : 0));
  head[0] = (fin ? 0x80 : 0) | opcode;
  if (len < 126) head[1] = len;
  else if (len < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  if (!mask) return Buffer.concat([head, data]);
  head[1]! |= 0x80;
  const masking = head.subarray(size, size + 4);
  for (let i = 0; i < 4; i++) masking[i] = Math.floor(Math.random() * 256);
  const body = Buffer.from(data);
  for (let i = 0; i < body.length; i++) body[i]! ^= masking[i % 4]!;
  return Buffer.concat([head, body]);
}

/** A close frame's payload: its code, and a reason cut to fit a control frame. */
export function closePayload(code: number, reason = ''): Buffer {
  const text = Buffer.from(reason, 'utf8').subarray(0, 120);
  const out = Buffer.alloc(2 + text.length);
  out.writeUInt16BE(code, 0);
  text.copy(out, 2);
  return out;
}

/**
 * Reads the frames of one direction of a connection: `masked` says whether they must be masked (a client's) or
 * must not be (a server's). Frames are given whole; a message's fragments are joined (`messages`), control frames
 * come between them as they are.
 */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  private fragments: WsFrame[] = [];
  private fragmentBytes = 0;

  constructor(
    private readonly masked: boolean,
    private readonly max = WS_MESSAGE_BYTES,
  ) {}

  /** The frames and whole messages the chunk completed, in order (a control frame as a message of its own). */
  push(chunk: Buffer): Array<WsMessage> {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: WsMessage[] = [];
    for (;;) {
      const frame = this.frame();
      if (!frame) break;
      const m = this.join(frame);
      if (m) out.push(m);
    }
    return out;
  }

  /** The next whole frame of `pending`, or undefined when it has not all come. */
  private frame(): WsFrame | undefined {
    const b = this.pending;
    if (b.length < 2) return undefined;
    const fin = (b[0]! & 0x80) !== 0;
    if (b[0]! & 0x70) throw new WsError('a frame sets a reserved bit (no extension was agreed)', 1002);
    const opcode = b[0]! & 0x0f;
    const masked = (b[1]! & 0x80) !== 0;
    if (masked !== this.masked)
      throw new WsError(this.masked ? "a client's frame is not masked" : "a server's frame is masked", 1002);
    let len = b[1]! & 0x7f;
    let at = 2;
    if (len === 126) {
      if (b.length < 4) return undefined;
      len = b.readUInt16BE(2);
      at = 4;
    } else if (len === 127) {
      if (b.length < 10) return undefined;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.max)) throw new WsError(`a frame is over ${this.max} bytes`, 1009);
      len = Number(big);
      at = 10;
    }
    if (opcode >= 8 && (len > 125 || !fin))
      throw new WsError('a control frame is fragmented or over 125 bytes', 1002);
    if (len > this.max) throw new WsError(`a frame is over ${this.max} bytes`, 1009);
    const start = at + (masked ? 4 : 0);
    if (b.length < start + len) return undefined;
    const raw = b.subarray(0, start + len);
    const payload = Buffer.from(b.subarray(start, start + len));
    if (masked) {
      const masking = b.subarray(at, at + 4);
      for (let i = 0; i < payload.length; i++) payload[i]! ^= masking[i % 4]!;
    }
    this.pending = b.subarray(start + len);
    return { fin, opcode, payload, raw: Buffer.from(raw) };
  }

  /** A frame joined to the message it belongs to: the message once it is whole. */
  private join(f: WsFrame): WsMessage | undefined {
    if (f.opcode >= 8) {
      if (![OP.close, OP.ping, OP.pong].includes(f.opcode as 8))
        throw new WsError(`opcode ${f.opcode} is not defined`, 1002);
      return { opcode: f.opcode, data: f.payload, raw: [f.raw] };
    }
    if (f.opcode === OP.continuation) {
      if (!this.fragments.length) throw new WsError('a continuation frame begins no message', 1002);
    } else if (f.opcode !== OP.text && f.opcode !== OP.binary) {
      throw new WsError(`opcode ${f.opcode} is not defined`, 1002);
    } else if (this.fragments.length) throw new WsError('a message begins inside another', 1002);
    this.fragmentBytes += f.payload.length;
    if (this.fragmentBytes > this.max) throw new WsError(`a message is over ${this.max} bytes`, 1009);
    this.fragments.push(f);
    if (!f.fin) return undefined;
    const frames = this.fragments;
    this.fragments = [];
    this.fragmentBytes = 0;
    return {
      opcode: frames[0]!.opcode,
      data: Buffer.concat(frames.map((x) => x.payload)),
      raw: frames.map((x) => x.raw),
    };
  }
}
