// The scripted model server speaks each API as its documentation says: the streamed events in their order, the
// JSON forms, errors with their statuses; side requests and probes never use up a scripted turn.
import { afterEach, describe, expect, it } from 'vitest';
import { type ModelServer, startModelServer } from './model-server.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (path: string, body: unknown) =>
  fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The `event:` names and parsed `data:` of a server-sent event stream. */
function events(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((b) => b.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)![1]!;
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown>;
      return { event, data };
    });
}

const tools = [{ name: 'Bash', input_schema: { type: 'object' } }];

describe('scripted model server: Anthropic Messages', () => {
  it('streams a text block and a tool call in the documented event order, each event naming its type', async () => {
    server = await startModelServer({
      script: [
        {
          text: 'Looking.',
          tools: [{ name: 'Bash', input: { command: 'ls' } }],
          usage: { output_tokens: 7 },
        },
      ],
    });
    const res = await post('/v1/messages?beta=true', { model: 'm', stream: true, tools, messages: [] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const evs = events(await res.text());
    expect(evs.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of evs) expect(e.data.type).toBe(e.event);
    expect((evs[0]!.data.message as { content: unknown[] }).content).toEqual([]);
    expect(evs[5]!.data.content_block).toMatchObject({ type: 'tool_use', name: 'Bash', input: {} });
    expect(evs[6]!.data.delta).toEqual({ type: 'input_json_delta', partial_json: '{"command":"ls"}' });
    expect(evs[8]!.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } });
    expect(server.calls.map((c) => c.turn)).toEqual([0]);
  });

  it('answers a request without stream as one Message, ending its turn when it calls no tool', async () => {
    server = await startModelServer({
      script: [{ text: 'Done.', usage: { input_tokens: 9, cached_input_tokens: 4 } }],
    });
    const msg = (await (await post('/v1/messages', { model: 'm', tools, messages: [] })).json()) as Record<
      string,
      unknown
    >;
    expect(msg).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Done.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 9, cache_read_input_tokens: 4 },
    });
  });

  it("answers HEAD / and a request with no tools (Claude Code's title request) without using a turn", async () => {
    server = await startModelServer({ script: [{ text: 'the one turn' }] });
    expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
    const side = (await (
      await post('/v1/messages', {
        model: 'm',
        tools: [],
        messages: [],
        output_format: {
          type: 'json_schema',
          schema: { type: 'object', properties: { title: { type: 'string' } } },
        },
      })
    ).json()) as { content: { text: string }[] };
    expect(JSON.parse(side.content[0]!.text)).toEqual({ title: 'Scripted task' });
    expect(server.remaining()).toBe(1);
    expect(server.calls).toEqual([]);
  });

  it('answers a scripted error with its status and the error body, and says when the script is used up', async () => {
    server = await startModelServer({ script: [{ error: { status: 400, message: 'prompt is too long' } }] });
    const res = await post('/v1/messages', { model: 'm', stream: true, tools, messages: [] });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long' },
    });
    const after = await post('/v1/messages', { model: 'm', tools, messages: [] });
    expect(after.status).toBe(500);
    expect(JSON.stringify(await after.json())).toContain('1 turns, all used');
    expect(server.calls).toHaveLength(2);
  });
});

describe('scripted model server: OpenAI Responses', () => {
  it('streams a message and a function call with sequence numbers, ending in response.completed with usage', async () => {
    server = await startModelServer({
      script: [
        {
          text: 'Running it.',
          tools: [{ name: 'exec_command', input: { cmd: 'ls' } }],
          usage: { input_tokens: 50, cached_input_tokens: 30, output_tokens: 5 },
        },
      ],
    });
    const evs = events(await (await post('/v1/responses', { model: 'm', stream: true, input: [] })).text());
    expect(evs.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(evs.map((e) => e.data.sequence_number)).toEqual(evs.map((_, i) => i));
    expect(evs[11]!.data.item).toMatchObject({
      type: 'function_call',
      name: 'exec_command',
      arguments: '{"cmd":"ls"}',
    });
    const done = evs.at(-1)!.data.response as Record<string, unknown>;
    expect(done.status).toBe('completed');
    // OpenAI counts cached tokens inside input_tokens.
    expect(done.usage).toMatchObject({
      input_tokens: 80,
      input_tokens_details: { cached_tokens: 30 },
      output_tokens: 5,
    });
  });

  it('answers a scripted error with an OpenAI error body', async () => {
    server = await startModelServer({ script: [{ error: { status: 401, message: 'bad key' } }] });
    const res = await post('/v1/responses', { model: 'm', stream: true, input: [] });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { message: 'bad key', type: 'invalid_request_error' } });
  });
});
