/**
 * Gemini CLI's output (`--output-format stream-json`): one JSON event a line. `init.session_id` is the session (a
 * resumed session keeps its id: `--resume <id>` continues it in place); `message` events with `role: "assistant"`
 * and `delta: true` are the agent's text in pieces (the pieces between two tool calls make one message, the last
 * such message is the final one); `tool_use` and `tool_result` its tools; the last `result` says how it ended
 * (`status` `success` or `error`, an `error.message`) and what this run used (`stats.input_tokens`, which hold the
 * cached ones, and `stats.output_tokens`; per run, not cumulative over a resumed session). Gemini CLI reports no
 * count of model calls: `turns` is one per tool call plus one for the answer that ended the run. Pure.
 */
import type { EngineReading } from './engine.js';
import { jsonLines, oneLine, sessionId } from './text.js';

/** The message a Gemini CLI error carries; an API error is `[API Error: <the API's JSON error body>]`. */
function geminiError(v: unknown): string {
  const raw = oneLine((v as { message?: unknown } | undefined)?.message, 2000);
  const body = /^\[API Error: (\{.*\})\]$/.exec(raw)?.[1];
  if (body) {
    try {
      const e = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
      if (typeof e?.message === 'string')
        return `${typeof e.code === 'number' ? `${e.code} ` : ''}${oneLine(e.message)}`;
    } catch {
      // not JSON after all: the message as it is
    }
  }
  return oneLine(raw) || 'no message';
}

export function readGemini(stdout: string): EngineReading {
  let session: string | undefined;
  let result: Record<string, unknown> | undefined;
  let text: string[] = [];
  let finalMessage: string | undefined;
  let lastError: string | undefined;
  let tools = 0;
  for (const e of jsonLines(stdout)) {
    if (e.type === 'init') session = sessionId(e.session_id) ?? session;
    else if (e.type === 'message' && e.role === 'assistant' && typeof e.content === 'string') {
      text.push(e.content);
      finalMessage = text.join('');
    } else if (e.type === 'tool_use') {
      tools += 1;
      text = [];
    } else if (e.type === 'error' && e.severity === 'error') lastError = oneLine(e.message);
    else if (e.type === 'result') result = e;
  }
  const stats = (result?.stats ?? {}) as Record<string, unknown>;
  const count = (k: string) => (Number.isSafeInteger(stats[k]) ? (stats[k] as number) : undefined);
  const reading: EngineReading['usage'] = { usage: {}, warnings: [] };
  if (count('input_tokens') !== undefined) reading.usage.input_tokens = count('input_tokens')!;
  if (count('output_tokens') !== undefined) reading.usage.output_tokens = count('output_tokens')!;
  const turns = tools + (result?.status === 'success' ? 1 : 0);
  if (turns > 0) reading.usage.turns = turns;
  if (!result) reading.warnings.push('Gemini CLI printed no result event: its usage is unknown');
  let failure: EngineReading['failure'];
  if (result?.status === 'error') {
    const why = result.error ? geminiError(result.error) : (lastError ?? 'no message');
    const api = /^\[API Error/.test(oneLine((result.error as { message?: unknown } | undefined)?.message));
    failure = {
      check: 'agent',
      message: api ? `the model API failed: ${why}` : `the agent ended with an error: ${why}`,
    };
  }
  return {
    usage: reading,
    ...(session ? { session_id: session } : {}),
    ...(finalMessage !== undefined ? { final_message: finalMessage } : {}),
    ...(failure ? { failure } : {}),
  };
}
