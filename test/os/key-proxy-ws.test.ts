// Codex's WebSocket to the Responses API through the key proxy (issue 48), against the scripted model server's
// WebSocket endpoint: an attempt's `response.create` calls are metered from `response.completed`'s usage, kept on
// its recording one call each, refused past the attempt's limit before anything goes upstream, and a node's frame
// over the bound closes the connection.
import { afterEach, describe, expect, it } from 'vitest';
import { type KeyProxy, startKeyProxy } from '../../src/os/proxies/key-proxy.js';
import { encodeFrame, OP } from '../../src/os/proxies/ws-frames.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';
import { type WsClient, wsConnect } from '../support/ws-client.js';

const proxies: KeyProxy[] = [];
const servers: ModelServer[] = [];
const clients: WsClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const p of proxies.splice(0)) await p.stop();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(script: ScriptedTurn[]) {
  const model = await startModelServer({ script });
  servers.push(model);
  const proxy = (await startKeyProxy(['OPENAI_API_KEY'], {
    OPENAI_API_KEY: 'sk-real',
    OPENAI_BASE_URL: `${model.url}/v1`,
  }))!;
  proxies.push(proxy);
  return { model, proxy };
}

async function open(proxy: KeyProxy, key: string): Promise<WsClient> {
  const c = await wsConnect(proxy.port, '/v1/responses', { authorization: `Bearer ${key}` });
  clients.push(c);
  return c;
}

const create = (input: string) => ({ type: 'response.create', model: 'gpt-5.1-codex', input, tools: [] });

describe("an attempt's WebSocket to the Responses API", () => {
  it('meters each response.create from its response.completed, and records it as one call', async () => {
    const { model, proxy } = await setup([
      { text: 'a', usage: { input_tokens: 1000, output_tokens: 300, cached_input_tokens: 5000 } },
      { text: 'b', usage: { input_tokens: 2000, output_tokens: 700 } },
    ]);
    const tab = proxy.openTab([], true);
    const ws = await open(proxy, tab.env().OPENAI_API_KEY!);
    expect(ws.head).toMatch(/^HTTP\/1\.1 101 /);
    ws.send(create('one'));
    const first = await ws.until('response.completed');
    expect(first.map((e) => e.type)).toContain('response.output_text.delta');
    ws.send(create('two'));
    await ws.until('response.completed');
    // The upstream got the real key, never the placeholder, and no compression was offered.
    expect(model.calls.map((c) => [c.websocket, c.headers.authorization])).toEqual([
      [true, 'Bearer sk-real'],
      [true, 'Bearer sk-real'],
    ]);
    expect(model.calls[0]!.headers['sec-websocket-extensions']).toBeUndefined();
    expect(tab.totals).toMatchObject({
      calls: 2,
      input_tokens: 3000,
      cache_read_input_tokens: 5000,
      output_tokens: 1000,
      models: ['gpt-5.1-codex'],
    });
    const lines = tab.recording!.lines.map(
      (l) => JSON.parse(l) as { call: number; method: string; request: string; answer: string },
    );
    expect(lines.map((l) => [l.call, l.method, JSON.parse(l.request).input])).toEqual([
      [1, 'GET', 'one'],
      [2, 'GET', 'two'],
    ]);
    expect(lines[0]!.answer.split('\n').map((t) => JSON.parse(t).type)).toEqual(first.map((e) => e.type));
  });

  it('refuses a response.create past the limit with the API error event; nothing goes upstream', async () => {
    const { model, proxy } = await setup([
      { text: 'a', usage: { input_tokens: 900, output_tokens: 200 } },
      { text: 'b', usage: { input_tokens: 1, output_tokens: 1 } },
    ]);
    const tab = proxy.openTab([{ what: 'tokens', max: 1000, names: 'the budget of 1,000 tokens' }]);
    const stops: string[] = [];
    tab.onStop = (why) => stops.push(why);
    const ws = await open(proxy, tab.env().OPENAI_API_KEY!);
    ws.send(create('one'));
    await ws.until('response.completed');
    ws.send(create('two'));
    const [refused] = await ws.until('error');
    expect(refused).toMatchObject({ type: 'error', status: 429, error: { code: 'insufficient_quota' } });
    expect(JSON.stringify(refused)).toContain(
      '1,100 tokens (metered by the key proxy), at or over the budget',
    );
    // Any other message past the limit is refused too (one that steers a response could make the model work).
    ws.send({ type: 'response.steer', input: 'more' });
    expect((await ws.until('error'))[0]).toMatchObject({ status: 429 });
    expect(model.calls).toHaveLength(1);
    expect(stops).toHaveLength(1);
    // A new connection past the limit is refused at the handshake, with the same error.
    const again = await open(proxy, tab.env().OPENAI_API_KEY!);
    expect(again.head).toMatch(/^HTTP\/1\.1 429 /);
  });

  it("closes a node's connection whose frame is over the bound, or unmasked; the step placeholder is relayed as it is", async () => {
    const { model, proxy } = await setup([{ text: 'a' }]);
    const tab = proxy.openTab([]);
    const ws = await open(proxy, tab.env().OPENAI_API_KEY!);
    // Only a header announcing 2^40 bytes: refused at once, nothing held.
    const huge = Buffer.from([0x81, 0xff, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
    ws.write(huge);
    const close = await ws.next();
    expect([close.opcode, close.data.readUInt16BE(0)]).toEqual([OP.close, 1009]);
    await ws.closed;
    const bare = await open(proxy, tab.env().OPENAI_API_KEY!);
    bare.write(encodeFrame(OP.text, JSON.stringify(create('x')), false));
    expect((await bare.next()).data.readUInt16BE(0)).toBe(1002);
    expect(model.calls).toHaveLength(0);
    // The step's own placeholder: no tab, relayed byte for byte (and so still answered).
    const step = await open(proxy, proxy.env.OPENAI_API_KEY!);
    step.send(create('y'));
    await step.until('response.completed');
    expect(model.calls).toHaveLength(1);
  });
});
