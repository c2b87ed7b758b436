/**
 * Codex's output (`codex exec --json`): one JSON event a line. `thread.started.thread_id` is the session;
 * `turn.completed.usage` what the thread used (`input_tokens` include `cached_input_tokens`; on `exec resume`
 * it counts the whole thread, so what earlier attempts counted is subtracted by the caller); the last
 * `agent_message` item its final message; `turn.failed` or an `error` event an API error. Codex reports no count
 * of model calls: `turns` is one per tool call it started plus one per completed turn (the answer after them). Pure.
 */
import type { EngineReading } from './engine.js';
import { jsonLines, oneLine, sessionId } from './text.js';

const TOOL_ITEMS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search']);

/** The error message an event carries; Codex wraps the API's error body as JSON text. */
function errorMessage(v: unknown): string {
  const raw = typeof v === 'string' ? v : '';
  try {
    const body = JSON.parse(raw) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return oneLine(body.error.message);
  } catch {
    // not JSON: the message as it is
  }
  return oneLine(raw) || 'no message';
}

export function readCodex(stdout: string): EngineReading {
  let session: string | undefined;
  let usage: Record<string, unknown> | undefined;
  let finalMessage: string | undefined;
  let error: string | undefined;
  let turns = 0;
  const tools = new Set<unknown>();
  for (const e of jsonLines(stdout)) {
    const item = e.item as { id?: unknown; type?: unknown; text?: unknown } | undefined;
    if ((e.type === 'item.started' || e.type === 'item.completed') && TOOL_ITEMS.has(item?.type as string))
      tools.add(item?.id ?? tools.size);
    if (e.type === 'thread.started') session = sessionId(e.thread_id) ?? session;
    else if (e.type === 'turn.completed') {
      turns += 1;
      // An `error` event before the turn completed was one Codex got over ("Reconnecting... 2/5", the WebSocket
      // it falls back from): the turn that completed is the answer.
      error = undefined;
      if (e.usage && typeof e.usage === 'object') usage = e.usage as Record<string, unknown>;
    } else if (e.type === 'turn.failed')
      error = errorMessage((e.error as { message?: unknown } | undefined)?.message);
    else if (e.type === 'error') error ??= errorMessage(e.message);
    else if (e.type === 'item.completed' && typeof item?.type === 'string') {
      if (item.type === 'agent_message' && typeof item.text === 'string') finalMessage = item.text;
    }
  }
  const counts = (k: string) => (Number.isSafeInteger(usage?.[k]) ? (usage![k] as number) : undefined);
  const reading: EngineReading['usage'] = { usage: {}, warnings: [] };
  if (counts('input_tokens') !== undefined) reading.usage.input_tokens = counts('input_tokens')!;
  if (counts('output_tokens') !== undefined) reading.usage.output_tokens = counts('output_tokens')!;
  turns += tools.size;
  if (turns > 0) reading.usage.turns = turns;
  if (!usage && !error) reading.warnings.push('Codex printed no turn.completed event: its usage is unknown');
  return {
    usage: reading,
    ...(session ? { session_id: session } : {}),
    ...(finalMessage !== undefined ? { final_message: finalMessage } : {}),
    ...(error ? { failure: { check: 'agent', message: `the model API failed: ${error}` } } : {}),
  };
}
