/**
 * The usage a model API's answer carries, read as the key proxy passes the answer on. Pure: chunks in, usage out.
 *
 * - Anthropic Messages, JSON: the Message's `model` and `usage` (`input_tokens`, `cache_creation_input_tokens`,
 *   `cache_read_input_tokens`, `output_tokens`).
 * - Anthropic Messages, SSE: `message_start` carries the Message (its `usage` with the input and cache tokens and
 *   an output placeholder); each `message_delta`'s `usage` is cumulative, so the last one's fields win (the final
 *   `output_tokens` arrives there).
 * - OpenAI Responses, JSON: the Response's `model` and `usage` (`input_tokens`, which include
 *   `input_tokens_details.cached_tokens`, and `output_tokens`); SSE: the same Response in the `response.completed`
 *   event (or `response.incomplete` / `response.failed`, which end a stream too).
 * - OpenAI Chat Completions (and Azure OpenAI's, read as OpenAI's), JSON: the completion's `model` and `usage`
 *   (`prompt_tokens`, which include `prompt_tokens_details.cached_tokens`, and `completion_tokens`); SSE: the
 *   chunk that carries `usage` (the last one, sent when the request asked `stream_options.include_usage`).
 * - Gemini `generateContent`, JSON: the GenerateContentResponse's `modelVersion` and `usageMetadata`
 *   (`promptTokenCount`, which includes `cachedContentTokenCount`, and `toolUsePromptTokenCount`; the output is
 *   `candidatesTokenCount` and `thoughtsTokenCount`); `streamGenerateContent`: each SSE event is a whole
 *   GenerateContentResponse whose `usageMetadata` counts the call so far, so the last one's wins (without
 *   `alt=sse`, a JSON array of them: the last that carries one).
 */
import { StringDecoder } from 'node:string_decoder';
import type { ModelApi } from './key-proxy-rules.js';
import type { CallTokens } from './model-prices.js';

/** What one answer said it used. */
export interface AnswerUsage {
  model: string | undefined;
  tokens: CallTokens;
}

/** The most of an answer kept to read it: a JSON body, or one SSE line. Past it, the usage is not read. */
const ANSWER_READ_BYTES = 8_000_000;

const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : 0);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads one answer of `api`, streamed (`text/event-stream`) or JSON, chunk by chunk. */
export class AnswerReader {
  private buffered: string[] = [];
  private size = 0;
  private pending = '';
  private readonly decoder = new StringDecoder('utf8');
  private model: string | undefined;
  private tokens: CallTokens | undefined;
  /** Why the usage could not be read, once it could not. */
  unreadable: string | undefined;

  private readonly api: 'anthropic' | 'openai' | 'gemini';

  constructor(
    api: ModelApi,
    private readonly streamed: boolean,
  ) {
    // Azure OpenAI answers in OpenAI's shapes.
    this.api = api === 'azure' ? 'openai' : api;
  }

  push(chunk: Buffer | string): void {
    if (this.unreadable) return;
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (!this.streamed) {
      this.size += text.length;
      if (this.size > ANSWER_READ_BYTES) {
        this.unreadable = `the answer is over ${ANSWER_READ_BYTES} bytes`;
        this.buffered = [];
      } else this.buffered.push(text);
      return;
    }
    this.pending += text;
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    if (this.pending.length > ANSWER_READ_BYTES) {
      this.unreadable = `an event of the stream is over ${ANSWER_READ_BYTES} bytes`;
      return;
    }
    for (const line of lines) this.line(line);
  }

  /** The usage the answer carried, once it ended; undefined when it carried none. */
  end(): AnswerUsage | undefined {
    if (!this.streamed && !this.unreadable) {
      const text = this.buffered.join('');
      this.buffered = [];
      const body = parse(text);
      if (body) this.fromObject(body);
      else if (this.api === 'gemini') for (const o of parseArray(text)) this.fromObject(o);
    } else if (this.pending) this.line(this.pending);
    this.pending = '';
    return this.tokens ? { model: this.model, tokens: { ...this.tokens } } : undefined;
  }

  private line(raw: string): void {
    const line = raw.replace(/\r$/, '');
    if (!line.startsWith('data:')) return;
    const e = parse(line.slice(5).trim());
    if (!e) return;
    if (this.api === 'gemini') this.fromObject(e);
    else if (this.api === 'anthropic') {
      if (e.type === 'message_start' && isObject(e.message)) this.fromObject(e.message);
      else if (e.type === 'message_delta' && isObject(e.usage)) this.anthropicUsage(e.usage, true);
    } else if (
      (e.type === 'response.completed' || e.type === 'response.incomplete' || e.type === 'response.failed') &&
      isObject(e.response)
    )
      this.fromObject(e.response);
    else if (e.object === 'chat.completion.chunk' && isObject(e.usage)) this.fromObject(e);
  }

  /** A Message (Anthropic), a Response (OpenAI) or a GenerateContentResponse (Gemini): its model and usage. */
  private fromObject(o: Record<string, unknown>): void {
    if (this.api === 'gemini') {
      this.geminiResponse(o);
      return;
    }
    if (typeof o.model === 'string' && o.model.length <= 200) this.model = o.model;
    if (!isObject(o.usage)) return;
    if (this.api === 'anthropic') this.anthropicUsage(o.usage, false);
    else {
      const u = o.usage;
      // A Response's usage, or a chat completion's (`prompt_tokens`, `completion_tokens`).
      const chat = u.input_tokens === undefined && u.prompt_tokens !== undefined;
      const details = chat ? u.prompt_tokens_details : u.input_tokens_details;
      const cached = isObject(details) ? count(details.cached_tokens) : 0;
      const input = count(chat ? u.prompt_tokens : u.input_tokens);
      this.tokens = {
        input_tokens: Math.max(0, input - cached),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: Math.min(cached, input),
        output_tokens: count(chat ? u.completion_tokens : u.output_tokens),
      };
    }
  }

  /** Gemini's `usageMetadata`: the whole call so far (a later event's replaces an earlier one's). */
  private geminiResponse(o: Record<string, unknown>): void {
    if (typeof o.modelVersion === 'string' && o.modelVersion.length <= 200) this.model = o.modelVersion;
    const u = o.usageMetadata;
    if (!isObject(u)) return;
    const prompt = count(u.promptTokenCount) + count(u.toolUsePromptTokenCount);
    const cached = Math.min(count(u.cachedContentTokenCount), prompt);
    this.tokens = {
      input_tokens: prompt - cached,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
      output_tokens: count(u.candidatesTokenCount) + count(u.thoughtsTokenCount),
    };
  }

  /** Anthropic's usage object; a `message_delta`'s fields replace the ones it carries (they are cumulative). */
  private anthropicUsage(u: Record<string, unknown>, delta: boolean): void {
    const before = this.tokens ?? {
      input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
    };
    const pick = (k: keyof CallTokens) => (delta && u[k] === undefined ? before[k] : count(u[k]));
    this.tokens = {
      input_tokens: pick('input_tokens'),
      cache_creation_input_tokens: pick('cache_creation_input_tokens'),
      cache_read_input_tokens: pick('cache_read_input_tokens'),
      output_tokens: pick('output_tokens'),
    };
  }
}

function parse(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The objects of a JSON array (Gemini's stream without `alt=sse`); none when it is not one. */
function parseArray(text: string): Record<string, unknown>[] {
  if (!text.trimStart().startsWith('[')) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter(isObject) : [];
  } catch {
    return [];
  }
}
