/**
 * OpenAI Responses API answers (`POST /v1/responses` with `stream: true`): server-sent events, each with a
 * `sequence_number`, in the documented order: `response.created`, `response.in_progress`; per output item
 * `response.output_item.added`, its deltas (`response.output_text.delta` inside a content part, or
 * `response.function_call_arguments.delta`), their `.done` events and `response.output_item.done`; then
 * `response.completed` with the whole Response and its `usage` (`input_tokens` counts the cached ones, given again
 * in `input_tokens_details.cached_tokens`). An error before the stream is `{"error":{"message","type","code"}}`.
 */
import type { ServerResponse } from 'node:http';
import { type ScriptedError, type ScriptedTurn, scriptId, turnUsage } from './script.js';

type Item =
  | {
      id: string;
      type: 'message';
      status: 'completed';
      role: 'assistant';
      content: { type: 'output_text'; text: string; annotations: [] }[];
    }
  | {
      id: string;
      type: 'function_call';
      status: 'completed';
      call_id: string;
      name: string;
      arguments: string;
    };

function items(turn: ScriptedTurn): Item[] {
  const out: Item[] = [];
  if (turn.text !== undefined)
    out.push({
      id: scriptId('msg'),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  for (const t of turn.tools ?? [])
    out.push({
      id: scriptId('fc'),
      type: 'function_call',
      status: 'completed',
      call_id: scriptId('call'),
      name: t.name,
      arguments: JSON.stringify(t.input),
    });
  return out;
}

function usageOf(turn: ScriptedTurn) {
  const u = turnUsage(turn);
  const input = u.input_tokens + u.cached_input_tokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cached_input_tokens },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + u.output_tokens,
  };
}

export function openaiError(res: ServerResponse, error: ScriptedError): void {
  const type = error.status >= 500 ? 'server_error' : 'invalid_request_error';
  res.writeHead(error.status, { 'content-type': 'application/json', 'x-request-id': scriptId('req') });
  res.end(JSON.stringify({ error: { message: error.message, type, param: null, code: error.type ?? null } }));
}

/** The turn streamed as Responses events. */
export function openaiStream(res: ServerResponse, turn: ScriptedTurn, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of openaiEvents(turn, model)) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

/** The turn's Responses events, in order (over WebSocket, each is one text message). */
export function openaiEvents(
  turn: ScriptedTurn,
  model: string,
): Array<{ type: string } & Record<string, unknown>> {
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const sse = (type: string, data: Record<string, unknown>) => {
    events.push({ type, sequence_number: events.length, ...data });
  };
  const response = {
    id: scriptId('resp'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    model,
    output: [] as Item[],
    usage: null as ReturnType<typeof usageOf> | null,
  };
  sse('response.created', { response });
  sse('response.in_progress', { response });
  const out = items(turn);
  out.forEach((item, output_index) => {
    if (item.type === 'message') {
      sse('response.output_item.added', {
        output_index,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const part = { type: 'output_text', text: '', annotations: [] };
      const ids = { item_id: item.id, output_index, content_index: 0 };
      sse('response.content_part.added', { ...ids, part });
      const text = item.content[0]!.text;
      sse('response.output_text.delta', { ...ids, delta: text });
      sse('response.output_text.done', { ...ids, text });
      sse('response.content_part.done', { ...ids, part: item.content[0] });
    } else {
      sse('response.output_item.added', {
        output_index,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      const ids = { item_id: item.id, output_index };
      sse('response.function_call_arguments.delta', { ...ids, delta: item.arguments });
      sse('response.function_call_arguments.done', { ...ids, arguments: item.arguments });
    }
    sse('response.output_item.done', { output_index, item });
  });
  sse('response.completed', {
    response: { ...response, status: 'completed', output: out, usage: usageOf(turn) },
  });
  return events;
}
