// The key proxy as the meter (issue 48), against the scripted model server: an attempt's tab counts what the
// model API's own answers billed (Anthropic Messages streamed and not, OpenAI Responses streamed), prices it with
// the table, and once its use is at or over a limit answers the next call with the API's own error instead of
// sending it on. The step's own placeholder is served as before and counted to no tab.
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerReader } from '../../src/os/proxies/answer-usage.js';
import { type KeyProxy, startKeyProxy } from '../../src/os/proxies/key-proxy.js';
import { ROUTES } from '../../src/os/proxies/key-proxy-routes.js';
import { tabTokens } from '../../src/os/proxies/key-proxy-tab.js';
import { DEFAULT_MODEL_PRICES, priceOf } from '../../src/os/proxies/model-prices.js';
import { postJson as post } from '../support/http-post.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';

const proxies: KeyProxy[] = [];
const servers: ModelServer[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.stop();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(script: ScriptedTurn[]) {
  const model = await startModelServer({ script });
  servers.push(model);
  const proxy = (await startKeyProxy(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'], {
    ANTHROPIC_API_KEY: 'sk-ant-real',
    OPENAI_API_KEY: 'sk-real',
    ANTHROPIC_BASE_URL: model.url,
    OPENAI_BASE_URL: `${model.url}/v1`,
  }))!;
  proxies.push(proxy);
  return { model, proxy };
}

const tool = [{ name: 'Bash', description: 'run', input_schema: { type: 'object' } }];
const messages = (key: string, port: number, stream: boolean, model = 'claude-sonnet-4-5-20250929') =>
  post(port, '/v1/messages', { 'x-api-key': key }, { model, stream, tools: tool, messages: [] });
const responses = (key: string, port: number) =>
  post(port, '/v1/responses', { authorization: `Bearer ${key}` }, { model: 'gpt-5.1-codex', stream: true });

describe("an attempt's tab", () => {
  it('counts what each answer billed, by kind, and prices it; the step placeholder counts to no tab', async () => {
    const { model, proxy } = await setup([
      { text: 'a', usage: { input_tokens: 1000, output_tokens: 300, cached_input_tokens: 5000 } },
      { text: 'b', usage: { input_tokens: 2000, output_tokens: 700 } },
      { text: 'c', usage: { input_tokens: 4000, output_tokens: 900, cached_input_tokens: 1000 } },
      { text: 'd', usage: { input_tokens: 1, output_tokens: 1 } },
    ]);
    const tab = proxy.openTab([]);
    const [a, o] = [tab.env().ANTHROPIC_API_KEY!, tab.env().OPENAI_API_KEY!];
    expect(a).toMatch(/^sk-ant-interlock-placeholder-[A-Za-z0-9_-]{32}$/);
    expect(a).not.toBe(proxy.env.ANTHROPIC_API_KEY);
    expect(tab.env().CODEX_API_KEY).toBe(o);
    expect((await messages(a, proxy.port, true)).status).toBe(200);
    expect((await messages(a, proxy.port, false)).status).toBe(200);
    expect((await responses(o, proxy.port)).status).toBe(200);
    // The step's own placeholder still works, and is nobody's attempt.
    expect((await messages(proxy.env.ANTHROPIC_API_KEY!, proxy.port, true)).status).toBe(200);
    expect(model.calls).toHaveLength(4);
    const t = tab.totals;
    expect(t).toEqual({
      calls: 3,
      // OpenAI's input_tokens include the cached ones: the tab keeps them apart, as Anthropic does.
      input_tokens: 1000 + 2000 + 4000,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 5000 + 1000,
      // The stream's message_start says 1 output token; the last message_delta has the count (300).
      output_tokens: 300 + 700 + 900,
      cost_micro_usd: expect.any(Number),
      models: ['claude-sonnet-4-5-20250929', 'gpt-5.1-codex'],
      unpriced: [],
      unread: 0,
    });
    // Sonnet: $3 in, $15 out, $0.30 cache reads per million; gpt-5: $1.25, $10, $0.125.
    const sonnet = 1000 * 3 + 5000 * 0.3 + 300 * 15 + 2000 * 3 + 700 * 15;
    const gpt = 4000 * 1.25 + 1000 * 0.125 + 900 * 10;
    expect(t.cost_micro_usd).toBe(Math.round(sonnet) + Math.round(gpt));
  });

  it("counts Azure OpenAI's answers (chat completions streamed and not, Responses) and OpenAI's chat completions", async () => {
    const model = await startModelServer({
      script: [
        { text: 'a', usage: { input_tokens: 1000, output_tokens: 300, cached_input_tokens: 5000 } },
        { text: 'b', tools: [{ name: 'bash', input: { command: 'ls' } }], usage: { input_tokens: 2000 } },
        { text: 'c', usage: { input_tokens: 4000, output_tokens: 900, cached_input_tokens: 1000 } },
        { text: 'd', usage: { input_tokens: 10, output_tokens: 7 } },
        { text: 'e', usage: { input_tokens: 99, output_tokens: 99 } },
      ],
    });
    servers.push(model);
    const proxy = (await startKeyProxy(['COPILOT_PROVIDER_API_KEY', 'OPENAI_API_KEY'], {
      COPILOT_PROVIDER_API_KEY: 'real-azure',
      COPILOT_PROVIDER_TYPE: 'azure',
      COPILOT_PROVIDER_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-real',
      OPENAI_BASE_URL: `${model.url}/v1`,
    }))!;
    proxies.push(proxy);
    const tab = proxy.openTab([]);
    const az = { 'api-key': tab.env().COPILOT_PROVIDER_API_KEY! };
    const chat = { model: 'gpt-5.1', stream: true, stream_options: { include_usage: true }, messages: [] };
    const sent = [
      await post(proxy.port, '/openai/v1/chat/completions', az, chat),
      await post(proxy.port, '/openai/deployments/team/chat/completions?api-version=2024-10-21', az, {
        ...chat,
        stream: false,
      }),
      await post(proxy.port, '/openai/v1/responses', az, { model: 'gpt-5.1', stream: true }),
      await post(
        proxy.port,
        '/v1/chat/completions',
        { authorization: `Bearer ${tab.env().OPENAI_API_KEY}` },
        chat,
      ),
      // A stream that did not ask for its usage carries none: counted as a call whose usage was not read.
      await post(proxy.port, '/openai/v1/chat/completions', az, { ...chat, stream_options: undefined }),
    ];
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // Azure's first chunk carries only its prompt filter results, with an empty model.
    expect(sent[0]!.body).toContain('prompt_filter_results');
    expect(model.calls.map((c) => c.headers['api-key'] ?? c.headers.authorization)).toEqual([
      'real-azure',
      'real-azure',
      'real-azure',
      'Bearer sk-real',
      'real-azure',
    ]);
    expect(tab.totals).toEqual({
      calls: 5,
      input_tokens: 1000 + 2000 + 4000 + 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 5000 + 1000,
      output_tokens: 300 + 20 + 900 + 7,
      cost_micro_usd: expect.any(Number),
      models: ['gpt-5.1'],
      unpriced: [],
      unread: 1,
    });
  });

  it('an unknown model is counted in tokens, its cost not, and named', async () => {
    const { proxy } = await setup([{ text: 'a', usage: { input_tokens: 10, output_tokens: 5 } }]);
    const tab = proxy.openTab([]);
    await messages(tab.env().ANTHROPIC_API_KEY!, proxy.port, true, 'house-model-7');
    expect(tabTokens(tab.totals)).toBe(15);
    expect(tab.totals.cost_micro_usd).toBe(0);
    expect(tab.totals.unpriced).toEqual(['house-model-7']);
  });

  it('past its limit, the next call gets the API error naming the limit, and never reaches the model', async () => {
    const turn = { text: 'again', usage: { input_tokens: 100, output_tokens: 20 } };
    const { model, proxy } = await setup(Array.from({ length: 10 }, () => turn));
    const stops: string[] = [];
    const tab = proxy.openTab([
      { what: 'tokens', max: 200, names: "the node's budget of 200 tokens (budget.tokens)" },
    ]);
    tab.onStop = (why) => stops.push(why);
    const key = tab.env().ANTHROPIC_API_KEY!;
    expect((await messages(key, proxy.port, true)).status).toBe(200); // 120 used
    expect((await messages(key, proxy.port, true)).status).toBe(200); // 240: the one call past the limit
    const refused = await messages(key, proxy.port, true);
    expect(refused.status).toBe(402);
    const body = JSON.parse(refused.body) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('billing_error');
    expect(body.error.message).toContain(
      "240 tokens (metered by the key proxy), at or over the node's budget of 200",
    );
    expect((await messages(key, proxy.port, false)).status).toBe(402);
    expect(model.calls).toHaveLength(2);
    expect(stops).toHaveLength(1);
    expect(tab.stopped).toBe(stops[0]);

    const o = await responses(tab.env().OPENAI_API_KEY!, proxy.port);
    expect(o.status).toBe(429);
    expect(JSON.parse(o.body).error).toMatchObject({
      type: 'insufficient_quota',
      code: 'insufficient_quota',
    });
    expect(model.calls).toHaveLength(2);
  });

  it('keeps a token count in the recording after the call it came with, and does not meter it', async () => {
    const { model, proxy } = await setup([{ text: 'a', usage: { input_tokens: 700, output_tokens: 5 } }]);
    const tab = proxy.openTab([], true);
    const key = { 'x-api-key': tab.env().ANTHROPIC_API_KEY! };
    const body = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'count me' }] };
    const counted = await post(proxy.port, '/v1/messages/count_tokens', key, body);
    expect(counted.status).toBe(200);
    expect((await messages(tab.env().ANTHROPIC_API_KEY!, proxy.port, false)).status).toBe(200);
    expect(model.requests.map((q) => q.path)).toEqual(['/v1/messages/count_tokens', '/v1/messages']);
    // Billed nothing: one metered call, the model's.
    expect(tab.totals).toMatchObject({ calls: 1, input_tokens: 700, output_tokens: 5, unread: 0 });
    const kept = tab.recording!.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(kept.map((l) => [l.call, l.path, l.status])).toEqual([
      [1, '/v1/messages/count_tokens', 200],
      [2, '/v1/messages', 200],
    ]);
    expect(JSON.parse(String(kept[0]!.request))).toEqual(body);
    expect(kept[0]!.answer).toBe(counted.body);
  });

  it('a closed tab is refused like any unknown key', async () => {
    const { model, proxy } = await setup([{ text: 'a' }]);
    const tab = proxy.openTab([]);
    proxy.closeTab(tab);
    expect((await messages(tab.env().ANTHROPIC_API_KEY!, proxy.port, true)).status).toBe(401);
    expect(model.requests).toHaveLength(0);
  });
});

describe('reading an answer', () => {
  it('an SSE stream split anywhere, even inside a character, reads the same', () => {
    const stream = [
      'event: message_start',
      `data: {"type":"message_start","message":{"model":"claude-x","usage":{"input_tokens":7,"cache_read_input_tokens":3,"output_tokens":1}}}`,
      '',
      'event: content_block_delta',
      'data: {"type":"content_block_delta","delta":{"type":"text_delta","text":"é"}}',
      '',
      'event: message_delta',
      'data: {"type":"message_delta","usage":{"output_tokens":42}}',
      '',
    ].join('\r\n');
    const bytes = Buffer.from(stream);
    for (const cut of [1, 7, 100, bytes.indexOf(Buffer.from('é')) + 1]) {
      const r = new AnswerReader('anthropic', true);
      r.push(bytes.subarray(0, cut));
      r.push(bytes.subarray(cut));
      expect(r.end()).toEqual({
        model: 'claude-x',
        tokens: {
          input_tokens: 7,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 3,
          output_tokens: 42,
        },
      });
    }
  });

  it("reads Gemini's usageMetadata: streamed (the last event's counts win), as JSON, and as a JSON array", () => {
    const event = (u: Record<string, number>, text = 'x') =>
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text }] } }], usageMetadata: u, modelVersion: 'gemini-2.5-pro' })}\r\n\r\n`;
    const stream = [
      event({ promptTokenCount: 900, cachedContentTokenCount: 400, candidatesTokenCount: 3 }),
      event({
        promptTokenCount: 900,
        cachedContentTokenCount: 400,
        candidatesTokenCount: 60,
        thoughtsTokenCount: 20,
        toolUsePromptTokenCount: 10,
      }),
    ].join('');
    const want = {
      model: 'gemini-2.5-pro',
      tokens: {
        input_tokens: 510,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 400,
        output_tokens: 80,
      },
    };
    const bytes = Buffer.from(stream);
    for (const cut of [1, 50, bytes.length - 3]) {
      const r = new AnswerReader('gemini', true);
      r.push(bytes.subarray(0, cut));
      r.push(bytes.subarray(cut));
      expect(r.end()).toEqual(want);
    }
    const last = {
      modelVersion: 'gemini-2.5-pro',
      usageMetadata: {
        promptTokenCount: 900,
        cachedContentTokenCount: 400,
        candidatesTokenCount: 60,
        thoughtsTokenCount: 20,
        toolUsePromptTokenCount: 10,
      },
    };
    const json = new AnswerReader('gemini', false);
    json.push(JSON.stringify(last));
    expect(json.end()).toEqual(want);
    const array = new AnswerReader('gemini', false);
    array.push(JSON.stringify([{ usageMetadata: { promptTokenCount: 1 } }, last]));
    expect(array.end()).toEqual(want);
  });

  it("routes Gemini's model calls as metered and its token count as not", () => {
    const call = ROUTES.find((r) => r.api === 'gemini' && r.metered);
    const count = ROUTES.find((r) => r.api === 'gemini' && !r.metered);
    expect(call?.pattern?.test('/v1beta/models/gemini-2.5-pro:streamGenerateContent')).toBe(true);
    expect(call?.pattern?.test('/v1beta/models/gemini-2.5-pro:countTokens')).toBe(false);
    expect(count?.pattern?.test('/v1beta/models/gemini-2.5-pro:countTokens')).toBe(true);
  });

  it('the longest name that starts a model prices it', () => {
    expect(priceOf('claude-opus-4-5-20251101', DEFAULT_MODEL_PRICES)?.input).toBe(5);
    expect(priceOf('claude-opus-4-1-20250805', DEFAULT_MODEL_PRICES)?.input).toBe(15);
    expect(priceOf('gpt-5-mini', DEFAULT_MODEL_PRICES)?.input).toBe(0.25);
    expect(priceOf('llama', DEFAULT_MODEL_PRICES)).toBeUndefined();
  });
});
