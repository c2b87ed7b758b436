/**
 * Anthropic Messages API answers (`POST /v1/messages`): a Message as JSON, or the same message streamed as
 * server-sent events in the documented order: `message_start` (a Message with empty `content`), then for each
 * content block `content_block_start`, one or more `content_block_delta` (`text_delta`, or `input_json_delta`
 * with `partial_json` for a tool's input) and `content_block_stop`, then `message_delta` (`stop_reason`, usage
 * `output_tokens`) and `message_stop`. Errors are `{"type":"error","error":{"type","message"}}` with their status.
 */
import type { ServerResponse } from 'node:http';
import { type ScriptedError, type ScriptedTurn, scriptId, turnUsage } from './script.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blocks(turn: ScriptedTurn): Block[] {
  const out: Block[] = [];
  if (turn.text !== undefined) out.push({ type: 'text', text: turn.text });
  for (const t of turn.tools ?? [])
    out.push({ type: 'tool_use', id: scriptId('toolu'), name: t.name, input: t.input });
  return out;
}

function usageOf(turn: ScriptedTurn) {
  const u = turnUsage(turn);
  return {
    input_tokens: u.input_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: u.cached_input_tokens,
    output_tokens: u.output_tokens,
  };
}

/** The whole Message, as a non-streamed answer gives it. */
export function anthropicMessage(turn: ScriptedTurn, model: string) {
  const content = blocks(turn);
  return {
    id: scriptId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: usageOf(turn),
  };
}

export function anthropicError(res: ServerResponse, error: ScriptedError): void {
  const body = {
    type: 'error',
    error: { type: error.type ?? ERROR_TYPES[error.status] ?? 'api_error', message: error.message },
  };
  res.writeHead(error.status, { 'content-type': 'application/json', 'request-id': scriptId('req') });
  res.end(JSON.stringify(body));
}

function sse(res: ServerResponse, event: string, data: Record<string, unknown>): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

/** Splits text in a few pieces, as a stream delivers it. */
function pieces(text: string, size = 40): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

/** The message streamed as server-sent events. */
export function anthropicStream(res: ServerResponse, turn: ScriptedTurn, model: string): void {
  const message = anthropicMessage(turn, model);
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': scriptId('req'),
  });
  const start = { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } };
  sse(res, 'message_start', { message: start });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (index === 0) sse(res, 'ping', {});
      for (const text of pieces(block.text))
        sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text } });
    } else {
      sse(res, 'content_block_start', { index, content_block: { ...block, input: {} } });
      for (const partial_json of pieces(JSON.stringify(block.input)))
        sse(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    sse(res, 'content_block_stop', { index });
  });
  sse(res, 'message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  sse(res, 'message_stop', {});
  res.end();
}
