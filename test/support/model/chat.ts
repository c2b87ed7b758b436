/**
 * OpenAI Chat Completions answers (`POST …/chat/completions`), as OpenAI and Azure OpenAI publish them.
 *
 * Streamed (`stream: true`): server-sent events, each a `chat.completion.chunk` whose `choices[0].delta` carries the
 * role, then the text, then each tool call (`tool_calls[{index, id, type: "function", function: {name,
 * arguments}}]`), a last choice with its `finish_reason` (`stop` or `tool_calls`), then, when the request asked
 * `stream_options.include_usage`, one chunk with no choices and the `usage` (`prompt_tokens`, which count
 * `prompt_tokens_details.cached_tokens`, and `completion_tokens`), and `data: [DONE]`. Azure OpenAI sends first a
 * chunk with no choices and an empty id and model that carries only `prompt_filter_results`, and each choice carries
 * its `content_filter_results`. Not streamed: one `chat.completion` with `message` and `usage`.
 */
import type { ServerResponse } from 'node:http';
import { type ScriptedTurn, scriptId, turnUsage } from './script.js';

function usageOf(turn: ScriptedTurn) {
  const u = turnUsage(turn);
  const prompt = u.input_tokens + u.cached_input_tokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output_tokens,
    total_tokens: prompt + u.output_tokens,
    prompt_tokens_details: { cached_tokens: u.cached_input_tokens },
  };
}

const FILTERS = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

function toolCalls(turn: ScriptedTurn) {
  return (turn.tools ?? []).map((t, index) => ({
    index,
    id: scriptId('call'),
    type: 'function' as const,
    function: { name: t.name, arguments: JSON.stringify(t.input) },
  }));
}

/** The turn as one `chat.completion`. */
export function chatCompletion(turn: ScriptedTurn, model: string) {
  const calls = toolCalls(turn).map(({ index: _, ...c }) => c);
  return {
    id: scriptId('chatcmpl'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: usageOf(turn),
  };
}

/** The turn streamed as `chat.completion.chunk` events; `azure` adds Azure OpenAI's content filter results. */
export function chatStream(
  res: ServerResponse,
  turn: ScriptedTurn,
  model: string,
  opts: { includeUsage: boolean; azure: boolean },
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  if (opts.azure)
    send({
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTERS }],
    });
  const created = Math.floor(Date.now() / 1000);
  const base = { id: scriptId('chatcmpl'), object: 'chat.completion.chunk', created, model };
  const filters = opts.azure ? { content_filter_results: FILTERS } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    send({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null, ...filters }] });
  chunk({ role: 'assistant', content: '' });
  if (turn.text !== undefined) chunk({ content: turn.text });
  const calls = toolCalls(turn);
  for (const c of calls) chunk({ tool_calls: [c] });
  chunk({}, calls.length ? 'tool_calls' : 'stop');
  if (opts.includeUsage) send({ ...base, choices: [], usage: usageOf(turn) });
  res.write('data: [DONE]\n\n');
  res.end();
}
