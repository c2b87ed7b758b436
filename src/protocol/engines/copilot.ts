/**
 * GitHub Copilot CLI's output (`--output-format json`): one JSON event a line, `{type, data, ...}`. Each
 * `assistant.message` is one model call (`data.messageId`, `data.content`, `data.toolRequests`); its tools run as
 * `tool.execution_start` / `tool.execution_complete`; a failed call is `model.call_failure` (`statusCode`,
 * `errorMessage`: the provider's error body) and the run's end `session.error`; the last event, `result`, holds
 * `sessionId` (kept by `--resume <id>`) and `exitCode`, and premium requests, not tokens. Tokens are in the file
 * `--usage-output-file` writes (`modelMetrics.<model>.usage.inputTokens`, cached ones included, and
 * `outputTokens`; cumulative over a resumed session, so what earlier attempts counted is subtracted by the
 * caller), which interlock's command prints after Copilot ends as one `interlock.usage_file` line. Pure.
 */
import type { EngineReading } from './engine.js';
import { jsonLines, oneLine, sessionId } from './text.js';

/** The line interlock's command prints with the usage file's JSON (see `engineCommand`). */
export const USAGE_FILE_EVENT = 'interlock.usage_file';

const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined);

/** The provider's error message inside Copilot's `errorMessage` (a JSON body, Anthropic's or OpenAI's). */
function providerMessage(v: unknown): string {
  const raw = typeof v === 'string' ? v : '';
  try {
    const body = JSON.parse(raw) as { message?: unknown; error?: { message?: unknown } };
    const m = body.error?.message ?? body.message;
    if (typeof m === 'string') return oneLine(m);
  } catch {
    // not JSON: the text as it is
  }
  return oneLine(raw) || 'no message';
}

/** Input and output tokens summed over the usage file's models. */
function fileTokens(usage: unknown): { input_tokens: number; output_tokens: number } | undefined {
  const models = (usage as { modelMetrics?: unknown } | undefined)?.modelMetrics;
  if (!models || typeof models !== 'object') return undefined;
  let input = 0;
  let output = 0;
  for (const m of Object.values(models as Record<string, { usage?: Record<string, unknown> }>)) {
    input += count(m?.usage?.inputTokens) ?? 0;
    output += count(m?.usage?.outputTokens) ?? 0;
  }
  return { input_tokens: input, output_tokens: output };
}

export function readCopilot(stdout: string): EngineReading {
  let result: Record<string, unknown> | undefined;
  let tokens: { input_tokens: number; output_tokens: number } | undefined;
  let finalMessage: string | undefined;
  let apiError: string | undefined;
  let sessionError: string | undefined;
  const calls = new Set<unknown>();
  for (const e of jsonLines(stdout)) {
    const d = (e.data ?? {}) as Record<string, unknown>;
    if (e.type === 'assistant.message') {
      calls.add(d.messageId ?? calls.size);
      if (typeof d.content === 'string' && d.content.trim()) finalMessage = d.content;
    } else if (e.type === 'model.call_failure')
      apiError = `${count(d.statusCode) ?? '?'}: ${providerMessage(d.errorMessage)}`;
    else if (e.type === 'session.error') sessionError = oneLine(d.message) || 'no message';
    else if (e.type === 'result') result = e;
    else if (e.type === USAGE_FILE_EVENT) tokens = fileTokens(e.usage) ?? tokens;
  }
  const reading: EngineReading['usage'] = { usage: {}, warnings: [] };
  if (tokens) Object.assign(reading.usage, tokens);
  if (calls.size) reading.usage.turns = calls.size;
  if (!result) reading.warnings.push('Copilot CLI printed no result event: its session is unknown');
  else if (!tokens) reading.warnings.push('Copilot CLI wrote no usage file: its tokens are unknown');
  const id = sessionId(result?.sessionId);
  const failed = (result && result.exitCode !== 0) || sessionError !== undefined;
  let failure: EngineReading['failure'];
  if (failed && apiError) failure = { check: 'agent', message: `the model API answered ${apiError}` };
  else if (failed && sessionError)
    failure = { check: 'agent', message: `the agent ended with an error: ${sessionError}` };
  return {
    usage: reading,
    ...(id ? { session_id: id } : {}),
    ...(finalMessage !== undefined ? { final_message: finalMessage } : {}),
    ...(failure ? { failure } : {}),
  };
}
