// The replay proxy (issue 48) in each engine's wire format, in process: it stands in for Copilot CLI's provider key
// as the API of COPILOT_PROVIDER_TYPE, answers Gemini's calls and token counts from the recording (the count kept,
// not metered), and compares the text that differs between two runs of one tool call (Codex's wall time, Gemini
// CLI's process ids) as one placeholder. Nothing listens behind it: an answer can only come from the recording.
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../src/os/proxies/replay-match.js';
import { type ReplayProxy, startReplayProxy } from '../../src/os/proxies/replay-proxy.js';
import { encodeFrame, OP } from '../../src/os/proxies/ws-frames.js';
import { postJson as post } from '../support/http-post.js';
import { wsConnect } from '../support/ws-client.js';

const proxies: ReplayProxy[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.stop();
});

const recorded = (calls: Array<Omit<RecordedCall, 'call' | 'method' | 'status'>>): RecordedCall[] =>
  calls.map((c, i) => ({ call: i + 1, method: 'POST', status: 200, ...c }));

async function replay(calls: RecordedCall[], env: Record<string, string> = {}) {
  const proxy = await startReplayProxy(calls, (b) => b, env);
  proxies.push(proxy);
  return { proxy, tab: proxy.openTab([], true) };
}

describe('the replay proxy', () => {
  it("stands in for Copilot CLI's provider key as the API of its type, and answers its calls", async () => {
    const chat = { model: 'gpt-5.1', stream: false, messages: [{ role: 'user', content: 'hi' }] };
    const answer = JSON.stringify({
      object: 'chat.completion',
      model: 'gpt-5.1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 900, completion_tokens: 30 },
    });
    const path = '/openai/v1/chat/completions';
    const { proxy, tab } = await replay(recorded([{ path, request: JSON.stringify(chat), answer }]), {
      COPILOT_PROVIDER_TYPE: 'azure',
    });
    expect(proxy.env.COPILOT_PROVIDER_BASE_URL).toBe(`http://127.0.0.1:${proxy.port}`);
    expect(proxy.env.COPILOT_OFFLINE).toBe('true');
    expect(proxy.env.COPILOT_PROVIDER_API_KEY).toMatch(/^sk-interlock-replay-/);
    const key = tab.env().COPILOT_PROVIDER_API_KEY!;
    expect(proxy.withheld).toContain('COPILOT_PROVIDER_API_KEY');
    const got = await post(proxy.port, path, { 'api-key': key }, chat);
    expect(got).toEqual({ status: 200, body: answer });
    expect(proxy.answered).toEqual([1]);
    expect(tab.totals).toMatchObject({ calls: 1, input_tokens: 900, output_tokens: 30 });
    // An OpenAI-style provider (the type's default) is served under /v1, as the key proxy serves it.
    const openai = await replay([], {});
    expect(openai.proxy.env.COPILOT_PROVIDER_BASE_URL).toBe(`http://127.0.0.1:${openai.proxy.port}/v1`);
  });

  it("answers Gemini's token count and streamed call from the recording; the count is kept, not metered", async () => {
    const model = 'gemini-2.5-flash';
    const count = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    const call = { ...count, tools: [{ functionDeclarations: [] }] };
    const sse = `data: ${JSON.stringify({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Hello.' }] } }],
      usageMetadata: { promptTokenCount: 1200, candidatesTokenCount: 40 },
      modelVersion: model,
    })}\r\n\r\n`;
    const { proxy, tab } = await replay(
      recorded([
        {
          path: `/v1beta/models/${model}:countTokens`,
          request: JSON.stringify(count),
          answer: '{"totalTokens":3}',
        },
        {
          path: `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
          request: JSON.stringify(call),
          answer: sse,
        },
      ]),
    );
    const key = { 'x-goog-api-key': tab.env().GEMINI_API_KEY! };
    expect(await post(proxy.port, `/v1beta/models/${model}:countTokens`, key, count)).toEqual({
      status: 200,
      body: '{"totalTokens":3}',
    });
    expect(
      await post(proxy.port, `/v1beta/models/${model}:streamGenerateContent?alt=sse`, key, call),
    ).toEqual({
      status: 200,
      body: sse,
    });
    expect(proxy.answered).toEqual([1, 2]);
    expect(proxy.departure()).toBeUndefined();
    expect(tab.totals).toMatchObject({ calls: 1, input_tokens: 1200, output_tokens: 40 });
    expect(tab.recording!.lines).toHaveLength(2);
  });

  it("compares ids, Copilot CLI's time, Codex's wall time and chunk id, Gemini CLI's process ids as one placeholder", async () => {
    const output = (secs: string, chunk: string, pgid: string) =>
      `Chunk ID: ${chunk}\nWall time: ${secs} seconds\nProcess exited with code 0\nOutput:\nProcess Group PGID: ${pgid}`;
    const body = (text: string, id: string, time: string) => ({
      model: 'gpt-5.1-codex',
      input: [
        {
          id,
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: `<current_datetime>${time}</current_datetime>` }],
          internal_chat_message_metadata_passthrough: { create_time: Date.parse(time) / 1000 },
        },
        { type: 'function_call', call_id: `run_shell_command_${Date.parse(time)}_0` },
        { type: 'function_call_output', call_id: 'call_1', output: text },
      ],
    });
    const [ID1, ID2] = [
      'msg_6a8fd47b-8b66-5729-b46a-32d8fdb4cac5',
      'msg_73bde331-7575-5e96-b998-c9feba314dce',
    ];
    const [T1, T2] = ['2026-12-07T20:19:12.545+00:00', '2026-12-07T20:19:19.728+00:00'];
    const answer =
      'data: {"type":"response.completed","response":{"model":"gpt-5.1-codex","usage":{"input_tokens":5,"output_tokens":1}}}\n\n';
    const calls = recorded([
      {
        path: '/v1/responses',
        request: JSON.stringify(body(output('0.0512', '4f2a1c', '4242'), ID1, T1)),
        answer,
      },
      { path: '/v1/responses', request: JSON.stringify(body('exit code 0', ID1, T1)), answer },
    ]);
    const { proxy, tab } = await replay(calls);
    const key = { authorization: `Bearer ${tab.env().OPENAI_API_KEY}` };
    const same = await post(proxy.port, '/v1/responses', key, body(output('1.5', 'beef01', '99'), ID2, T2));
    expect(same.status).toBe(200);
    // Other text is compared as it is: the exit code departs.
    const other = await post(proxy.port, '/v1/responses', key, body('exit code 1', ID2, T2));
    expect(other.status).toBe(429);
    expect(proxy.answered).toEqual([1]);
    expect(proxy.departure()?.message).toBe(
      'request 2 departs from recorded call 2 at input[2].output: recorded "exit code 0", now "exit code 1"',
    );
  });
});

describe("the replay proxy and Codex's WebSocket", () => {
  const create = (input: string) =>
    JSON.stringify({ type: 'response.create', model: 'gpt-5.1-codex', input });
  const events = [
    { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5.1-codex' } },
    {
      type: 'response.completed',
      response: { id: 'resp_1', model: 'gpt-5.1-codex', usage: { input_tokens: 700, output_tokens: 40 } },
    },
  ];
  const overWs: RecordedCall[] = [
    {
      call: 1,
      method: 'GET',
      path: '/v1/responses',
      status: 200,
      request: create('one'),
      answer: events.map((e) => JSON.stringify(e)).join('\n'),
    },
    {
      call: 2,
      method: 'GET',
      path: '/v1/responses',
      status: 200,
      request: create('three'),
      answer: events.map((e) => JSON.stringify(e)).join('\n'),
    },
  ];

  it('answers a recorded response.create with its messages, and departs at one that matches none', async () => {
    const { proxy, tab } = await replay(overWs);
    const stops: string[] = [];
    tab.onStop = (why) => stops.push(why);
    const ws = await wsConnect(proxy.port, '/v1/responses', {
      authorization: `Bearer ${tab.env().OPENAI_API_KEY!}`,
    });
    expect(ws.head).toMatch(/^HTTP\/1\.1 101 /);
    ws.write(Buffer.from(encodeFrame(OP.text, create('one'), true)));
    expect(await ws.until('response.completed')).toEqual(events);
    expect(proxy.answered).toEqual([1]);
    expect(tab.totals).toMatchObject({ calls: 1, input_tokens: 700, output_tokens: 40 });
    ws.write(Buffer.from(encodeFrame(OP.text, create('two'), true)));
    const [departed] = await ws.until('error');
    expect(JSON.stringify(departed)).toContain(
      'interlock replay: request 2 departs from recorded call 2 at input',
    );
    expect(proxy.departure()).toMatchObject({ call: 2, field: 'input', recorded: '"three"', now: '"two"' });
    expect(stops).toHaveLength(1);
    ws.destroy();
  });

  it('refuses the upgrade when the recording holds HTTPS calls only (Codex falls back as it did)', async () => {
    const { proxy, tab } = await replay(
      recorded([{ path: '/v1/responses', request: '{"input":"one","stream":true}', answer: '' }]),
    );
    const ws = await wsConnect(proxy.port, '/v1/responses', {
      authorization: `Bearer ${tab.env().OPENAI_API_KEY!}`,
    });
    expect(ws.head).toMatch(/^HTTP\/1\.1 404 /);
    ws.destroy();
  });
});
