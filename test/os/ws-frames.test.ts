// The WebSocket frame codec of the key proxy and the replay proxy (issue 48): frames written and read back,
// fragments joined, split chunks waited for, and every bound and protocol rule a hostile peer could break.
import { describe, expect, it } from 'vitest';
import {
  acceptKey,
  closePayload,
  encodeFrame,
  FrameReader,
  OP,
  type WsError,
} from '../../src/os/proxies/ws-frames.js';

const thrown = (f: () => unknown): WsError => {
  try {
    f();
  } catch (e) {
    return e as WsError;
  }
  throw new Error('did not throw');
};

describe('WebSocket frames', () => {
  it("computes RFC 6455's own example accept key", () => {
    expect(acceptKey('dGhlIHNhbXBsZSBub25jZQ==')).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  });

  it('reads back what it writes, masked and not, at each length encoding', () => {
    for (const len of [0, 5, 125, 126, 65_535, 65_536, 200_000]) {
      const text = 'x'.repeat(len);
      for (const mask of [true, false]) {
        const bytes = encodeFrame(OP.text, text, mask);
        const got = new FrameReader(mask).push(bytes);
        expect(got).toHaveLength(1);
        expect(got[0]!.opcode).toBe(OP.text);
        expect(got[0]!.data.toString('utf8')).toBe(text);
        expect(Buffer.concat(got[0]!.raw).equals(bytes)).toBe(true);
      }
    }
  });

  it('waits for a frame split across chunks, and gives several frames of one chunk in order', () => {
    const r = new FrameReader(true);
    const a = encodeFrame(OP.text, '{"type":"response.create"}', true);
    const ping = encodeFrame(OP.ping, 'p', true);
    const both = Buffer.concat([a, ping]);
    const out = [];
    for (let i = 0; i < both.length; i++) out.push(...r.push(both.subarray(i, i + 1)));
    expect(out.map((m) => [m.opcode, m.data.toString()])).toEqual([
      [OP.text, '{"type":"response.create"}'],
      [OP.ping, 'p'],
    ]);
  });

  it('joins a fragmented message, with a control frame between its fragments', () => {
    const r = new FrameReader(false);
    const got = r.push(
      Buffer.concat([
        encodeFrame(OP.text, 'hel', false, false),
        encodeFrame(OP.pong, '', false),
        encodeFrame(OP.continuation, 'lo', false, true),
      ]),
    );
    expect(got.map((m) => [m.opcode, m.data.toString(), m.raw.length])).toEqual([
      [OP.pong, '', 1],
      [OP.text, 'hello', 2],
    ]);
  });

  it('refuses a message over its bound, as a frame header says or as fragments add up', () => {
    const big = new FrameReader(true, 1000);
    // Only the header of a huge frame has come: refused before any of its bytes are held.
    const head = encodeFrame(OP.text, 'x'.repeat(70_000), true).subarray(0, 14);
    expect(thrown(() => big.push(head)).code).toBe(1009);
    const r = new FrameReader(false, 1000);
    r.push(encodeFrame(OP.text, 'x'.repeat(600), false, false));
    expect(thrown(() => r.push(encodeFrame(OP.continuation, 'x'.repeat(600), false, false))).code).toBe(1009);
  });

  it('refuses what breaks the protocol: a wrong mask, a reserved bit, a long control frame, a stray continuation', () => {
    expect(thrown(() => new FrameReader(true).push(encodeFrame(OP.text, 'a', false))).message).toMatch(
      /not masked/,
    );
    expect(thrown(() => new FrameReader(false).push(encodeFrame(OP.text, 'a', true))).message).toMatch(
      /is masked/,
    );
    const deflated = encodeFrame(OP.text, 'a');
    deflated[0]! |= 0x40;
    expect(thrown(() => new FrameReader(false).push(deflated)).message).toMatch(/reserved bit/);
    expect(thrown(() => new FrameReader(false).push(encodeFrame(OP.ping, 'x'.repeat(126)))).code).toBe(1002);
    expect(thrown(() => new FrameReader(false).push(encodeFrame(OP.continuation, 'a'))).code).toBe(1002);
    expect(thrown(() => new FrameReader(false).push(encodeFrame(3, 'a'))).message).toMatch(/not defined/);
  });

  it("writes a close frame's code and a reason cut to fit", () => {
    const p = closePayload(1009, 'y'.repeat(300));
    expect(p.readUInt16BE(0)).toBe(1009);
    expect(p.length).toBeLessThanOrEqual(125);
  });
});
