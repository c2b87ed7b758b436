/**
 * An attempt's WebSocket to the Responses API (Codex's first choice), metered and recorded as its HTTPS calls are.
 * The two sockets are joined frame by frame: what the upstream sends is passed on as it comes and read beside;
 * what the node sends is read whole before it goes on, so that a `response.create` past the attempt's limit is
 * answered with the API's error event and never reaches the upstream. Each `response.create` is one call: metered
 * from its `response.completed` (or `.incomplete`, `.failed`) event's `response.usage`, kept on the recording with
 * `method` GET (the upgrade's), its `request` the message, its `answer` the server's messages one per line. The
 * node's frames are bounded (ws-frames.ts): one that breaks the protocol or the bound closes both sides.
 */
import type { Socket } from 'node:net';
import { AnswerReader } from './answer-usage.js';
import { limitAnswer, type ModelApi } from './key-proxy-rules.js';
import { type ProxyTab, RECORDING_BYTES } from './key-proxy-tab.js';
import { closePayload, encodeFrame, FrameReader, OP, WsError, type WsMessage } from './ws-frames.js';

/** The events that end a response (its usage is in the Response they carry). */
const ENDS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** A call under way: its message, what came back for it so far, and its usage as read. */
interface OpenCall {
  request: string;
  answer: string[];
  bytes: number;
  reader: AnswerReader;
}

/** The type of a JSON text message, or undefined when it is not an object with one. */
export function messageType(text: string): string | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const o = JSON.parse(text) as { type?: unknown };
    return typeof o.type === 'string' ? o.type : undefined;
  } catch {
    return undefined;
  }
}

/** The API's error, as a WebSocket `error` event (its HTTP status inside, as the API sends it). */
export function wsErrorEvent(api: ModelApi, message: string): string {
  const a = limitAnswer(api, message);
  return JSON.stringify({ type: 'error', status: a.status, ...(JSON.parse(a.body) as object) });
}

/**
 * Relays the upgraded `node` and `up` sockets for `tab`; `head` and `upHead` are the bytes each sent after the
 * handshake.
 */
export function meterWebSocket(
  a: { node: Socket; up: Socket; head: Buffer; upHead: Buffer },
  tab: ProxyTab,
  call: { api: ModelApi; path: string },
): void {
  const m = new WebSocketMeter(a.node, a.up, tab, call);
  a.node.on('data', (c: Buffer) => m.fromNode(c));
  a.up.on('data', (c: Buffer) => m.fromUpstream(c));
  if (a.upHead.length) m.fromUpstream(a.upHead);
  if (a.head.length) m.fromNode(a.head);
  const end = () => m.end();
  for (const s of [a.node, a.up]) s.on('error', end).on('close', end);
}

/** One relayed WebSocket of an attempt: the calls under way on it, and what each side sent. */
class WebSocketMeter {
  private readonly nodeFrames = new FrameReader(true);
  private readonly upFrames = new FrameReader(false);
  private readonly open: OpenCall[] = [];
  /** Once the upstream's frames cannot be read, its calls are counted without usage (they still pass on). */
  private upUnread = false;
  private ended = false;

  constructor(
    private readonly node: Socket,
    private readonly up: Socket,
    private readonly tab: ProxyTab,
    private readonly call: { api: ModelApi; path: string },
  ) {}

  /** The node's bytes: each message read whole, and past the limit answered with the error, not sent on. */
  fromNode(chunk: Buffer): void {
    let messages: WsMessage[];
    try {
      messages = this.nodeFrames.push(chunk);
    } catch (e) {
      const err = e instanceof WsError ? e : new WsError(String(e), 1002);
      this.node.end(encodeFrame(OP.close, closePayload(err.code, `interlock key proxy: ${err.message}`)));
      this.up.destroy();
      return;
    }
    for (const m of messages) {
      if (m.opcode === OP.text || m.opcode === OP.binary) {
        // Past a limit, no message goes on (a `response.create`, or any other that could make the model work).
        const over = this.tab.refusal();
        if (over) {
          this.node.write(encodeFrame(OP.text, wsErrorEvent(this.call.api, `interlock key proxy: ${over}`)));
          continue;
        }
        const text = m.data.toString('utf8');
        if (m.opcode === OP.text && messageType(text) === 'response.create') this.opened(text);
      }
      for (const r of m.raw) this.up.write(r);
    }
  }

  /** The upstream's bytes: passed on as they come, and read for the open call's events. */
  fromUpstream(chunk: Buffer): void {
    this.node.write(chunk);
    if (this.upUnread) return;
    let messages: WsMessage[];
    try {
      messages = this.upFrames.push(chunk);
    } catch {
      this.upUnread = true;
      for (const c of this.open) c.reader.unreadable = 'the upstream broke the WebSocket protocol';
      return;
    }
    for (const m of messages) {
      if (m.opcode !== OP.text) continue;
      const text = m.data.toString('utf8');
      // A response no `response.create` of this socket asked for is metered all the same, as a call of its own.
      const type = messageType(text);
      const c = this.open[0] ?? (type === 'response.created' ? this.opened('') : undefined);
      if (!c) continue;
      c.bytes += text.length + 1;
      if (c.bytes <= RECORDING_BYTES) c.answer.push(text);
      c.reader.push(`data: ${text}\n`);
      // An error event ends the call unanswered: neither metered nor kept, as an HTTPS call's error answer.
      if (type === 'error') this.open.shift();
      else if (type && ENDS.has(type)) this.finish(c);
    }
  }

  /** Either side closed: a call cut off is counted as a cut HTTPS stream is (what was read of it, if anything). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const c of [...this.open]) this.finish(c);
    this.node.destroy();
    this.up.destroy();
  }

  /** A call under way, from its `response.create` message. */
  private opened(request: string): OpenCall {
    const c = {
      request: request.length <= RECORDING_BYTES ? request : '',
      answer: [],
      bytes: 0,
      reader: new AnswerReader(this.call.api, true),
    };
    this.open.push(c);
    return c;
  }

  private finish(c: OpenCall): void {
    this.open.splice(this.open.indexOf(c), 1);
    this.tab.record(c.reader.end());
    const { path } = this.call;
    this.tab.keep({ method: 'GET', path, request: c.request, status: 200, answer: c.answer.join('\n') });
  }
}
