/**
 * A script of model turns, the same for both APIs: each turn the agent asks for is the next one in the list.
 * A turn is what the model says (text), the tools it calls, what it reports it used, or an API error.
 */

/** One tool call: the tool's name as the agent offered it, and its input (arguments). */
export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** The usage a turn reports. `input_tokens` excludes cached tokens on both APIs here; each API adds them its own way. */
export interface ScriptedUsage {
  input_tokens?: number;
  output_tokens?: number;
  /** Anthropic: `cache_read_input_tokens`; OpenAI: `input_tokens_details.cached_tokens` (and counted in `input_tokens`). */
  cached_input_tokens?: number;
}

/** An API error instead of an answer: an HTTP status with the API's error body. */
export interface ScriptedError {
  status: number;
  message: string;
  /** Anthropic's `error.type` (default from the status, e.g. `invalid_request_error`); OpenAI's `error.code`. */
  type?: string;
}

export interface ScriptedTurn {
  /** The assistant's text, given before any tool call. */
  text?: string;
  tools?: ScriptedToolCall[];
  usage?: ScriptedUsage;
  error?: ScriptedError;
  /** Milliseconds to wait before answering (a slow model). */
  delayMs?: number;
}

export const DEFAULT_USAGE: Required<ScriptedUsage> = {
  input_tokens: 100,
  output_tokens: 20,
  cached_input_tokens: 0,
};

/** The usage a turn reports, defaults filled in. */
export function turnUsage(turn: ScriptedTurn): Required<ScriptedUsage> {
  return { ...DEFAULT_USAGE, ...turn.usage };
}

let counter = 0;
/** An id the APIs would give (`msg_…`, `toolu_…`, `resp_…`, `call_…`): unique in this process, deterministic in order. */
export function scriptId(prefix: string): string {
  counter += 1;
  return `${prefix}_${String(counter).padStart(8, '0')}`;
}
