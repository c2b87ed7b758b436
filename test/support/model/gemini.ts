/**
 * Gemini API answers (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, and `:generateContent`): each
 * server-sent event is `data: <GenerateContentResponse>` with no event name and no end marker (the stream ending is
 * the end). A response holds `candidates[0].content` (`role: "model"`, `parts`: `{text}` or
 * `{functionCall: {name, args}}`), its `finishReason` on the last chunk, `usageMetadata` (`promptTokenCount`, which
 * includes `cachedContentTokenCount`, `candidatesTokenCount`, `totalTokenCount`), `modelVersion` and `responseId`.
 * Errors are Google's `{"error":{"code","message","status"}}` with their HTTP status.
 */
import type { ServerResponse } from 'node:http';
import { type ScriptedError, type ScriptedTurn, scriptId, turnUsage } from './script.js';

/** Google's canonical status for an HTTP status (google.rpc.Code names). */
const STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

type Part = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

function parts(turn: ScriptedTurn): Part[] {
  const out: Part[] = [];
  if (turn.text !== undefined) out.push({ text: turn.text });
  for (const t of turn.tools ?? []) out.push({ functionCall: { name: t.name, args: t.input } });
  return out;
}

function usageOf(turn: ScriptedTurn) {
  const u = turnUsage(turn);
  const prompt = u.input_tokens + u.cached_input_tokens;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: u.output_tokens,
    totalTokenCount: prompt + u.output_tokens,
    ...(u.cached_input_tokens ? { cachedContentTokenCount: u.cached_input_tokens } : {}),
  };
}

/** The whole response, as `generateContent` gives it. */
export function geminiResponse(turn: ScriptedTurn, model: string) {
  return {
    candidates: [{ content: { role: 'model', parts: parts(turn) }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usageOf(turn),
    modelVersion: model,
    responseId: scriptId('gemini'),
  };
}

export function geminiError(res: ServerResponse, error: ScriptedError): void {
  const status = error.type ?? STATUSES[error.status] ?? 'UNKNOWN';
  res.writeHead(error.status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify({ error: { code: error.status, message: error.message, status } }));
}

/**
 * The turn streamed: its text in a few chunks, then each function call, the last chunk with `finishReason` and
 * the usage (earlier chunks carry the prompt's count only, as the API does).
 */
export function geminiStream(res: ServerResponse, turn: ScriptedTurn, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const whole = geminiResponse(turn, model);
  const id = whole.responseId;
  const chunk = (ps: Part[], last: boolean) => {
    const candidate = {
      content: { role: 'model', parts: ps },
      index: 0,
      ...(last ? { finishReason: 'STOP' } : {}),
    };
    const usage = last
      ? whole.usageMetadata
      : {
          promptTokenCount: whole.usageMetadata.promptTokenCount,
          totalTokenCount: whole.usageMetadata.promptTokenCount,
        };
    const data = { candidates: [candidate], usageMetadata: usage, modelVersion: model, responseId: id };
    res.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
  };
  const all = parts(turn);
  const text = all.filter((p): p is { text: string } => 'text' in p).map((p) => p.text)[0];
  const calls = all.filter((p) => 'functionCall' in p);
  const pieces: string[] = [];
  for (let i = 0; text !== undefined && i < text.length; i += 40) pieces.push(text.slice(i, i + 40));
  if (text === '') pieces.push('');
  if (!calls.length && !pieces.length) pieces.push('');
  for (const [i, t] of pieces.entries()) chunk([{ text: t }], !calls.length && i === pieces.length - 1);
  if (calls.length) chunk(calls, true);
  res.end();
}
