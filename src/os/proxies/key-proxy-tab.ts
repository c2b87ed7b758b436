/**
 * An attempt's tab at the key proxy: placeholders of its own (so every call it makes is counted to it), what the
 * model API's answers said it used (tokens by kind, calls, cost from the price table), and the limits it may
 * not pass: once its metered use is at or over one, the proxy answers its next call with the API's own error
 * instead of sending it on (at most one call's overshoot: the call that crossed the limit).
 */
import { randomBytes } from 'node:crypto';
import type { AnswerUsage } from './answer-usage.js';
import type { ModelApi, ModelKey } from './key-proxy-rules.js';
import { callCostMicroUsd, type ModelPrice } from './model-prices.js';

/** One limit of a tab: what it counts, its maximum, and how the refusal names it. */
export interface TabLimit {
  what: 'tokens' | 'cost_micro_usd';
  max: number;
  /** E.g. `the node's budget of 100,000 tokens (budget.tokens)`. */
  names: string;
}

/** What a tab metered (the attempt's usage is made of it: src/runner/attempt/metered-usage.ts). */
export interface TabTotals {
  /** Model calls answered (those whose usage could not be read included, in `unread`). */
  calls: number;
  /** Input tokens billed at the full rate (cache reads and writes not included). */
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  /** The priced calls' cost, in millionths of a dollar. */
  cost_micro_usd: number;
  /** The models the answers named, in the order first seen. */
  models: string[];
  /** Models with no price in the table: their tokens are counted, their cost is not. */
  unpriced: string[];
  /** Calls whose answer carried no usage the proxy could read (an error, a cut stream, an unknown format). */
  unread: number;
}

const emptyTotals = (): TabTotals => ({
  calls: 0,
  input_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 0,
  cost_micro_usd: 0,
  models: [],
  unpriced: [],
  unread: 0,
});

/** Tokens of every kind, as a budget's `tokens` counts them (cached input included). */
export const tabTokens = (t: TabTotals) =>
  t.input_tokens + t.cache_creation_input_tokens + t.cache_read_input_tokens + t.output_tokens;

/** The most of an attempt's model exchange a tab keeps (its calls past it are left out, and that is said). */
export const RECORDING_BYTES = 64_000_000;

/** An attempt's model exchange: one JSON line per answered call, in the order the answers ended. */
interface Recording {
  lines: string[];
  bytes: number;
  /** Calls left out past RECORDING_BYTES. */
  left_out: number;
}

export class ProxyTab {
  readonly totals: TabTotals = emptyTotals();
  /** The exchange, when the tab records it. */
  readonly recording: Recording | undefined;
  /** Why the tab refused a call, once it did. */
  stopped: string | undefined;
  /** Called once, the first time a call is refused at a limit. */
  onStop: ((why: string) => void) | undefined;
  /** The placeholders of this tab, one per key the proxy serves. */
  readonly keys: ModelKey[];
  closed = false;

  constructor(
    served: readonly ModelKey[],
    private readonly limits: readonly TabLimit[],
    private readonly prices: Readonly<Record<string, ModelPrice>>,
    record = false,
  ) {
    this.keys = served.map((k) => ({ ...k, placeholder: placeholderKey(k.api) }));
    this.recording = record ? { lines: [], bytes: 0, left_out: 0 } : undefined;
  }

  /** Keeps one call's request and answer (the answer as its bytes came: SSE events included). */
  keep(call: { method: string; path: string; request: string; status: number; answer: string }): void {
    const r = this.recording;
    if (!r) return;
    const line = JSON.stringify({ call: r.lines.length + r.left_out + 1, ...call });
    if (r.bytes + line.length > RECORDING_BYTES) {
      r.left_out += 1;
      return;
    }
    r.lines.push(line);
    r.bytes += line.length + 1;
  }

  /** The variables a node of this attempt gets in place of the step's placeholders. */
  env(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const k of this.keys) env[k.name] = k.placeholder;
    const openai = this.keys.find((k) => k.name === 'OPENAI_API_KEY');
    if (openai && !this.keys.some((k) => k.name === 'CODEX_API_KEY')) env.CODEX_API_KEY = openai.placeholder;
    return env;
  }

  /** Why the next call may not go upstream (a limit reached, or the attempt over), or undefined. */
  refusal(): string | undefined {
    if (this.closed) return 'this attempt is over: its placeholder key is no longer served';
    const used = { tokens: tabTokens(this.totals), cost_micro_usd: this.totals.cost_micro_usd };
    for (const l of this.limits) {
      if (used[l.what] < l.max) continue;
      const spent =
        l.what === 'tokens'
          ? `${used.tokens.toLocaleString('en-US')} tokens`
          : `$${(used.cost_micro_usd / 1e6).toFixed(2)}`;
      const why = `the model calls of this attempt used ${spent} (metered by the key proxy), at or over ${l.names}: the call was not sent`;
      if (!this.stopped) {
        this.stopped = why;
        this.onStop?.(why);
      }
      return why;
    }
    return undefined;
  }

  /** One answered call: its usage, or undefined when the answer carried none the proxy could read. */
  record(usage: AnswerUsage | undefined): void {
    const t = this.totals;
    t.calls += 1;
    if (!usage) {
      t.unread += 1;
      return;
    }
    const u = usage.tokens;
    t.input_tokens += u.input_tokens;
    t.cache_creation_input_tokens += u.cache_creation_input_tokens;
    t.cache_read_input_tokens += u.cache_read_input_tokens;
    t.output_tokens += u.output_tokens;
    const model = usage.model ?? 'an unnamed model';
    if (!t.models.includes(model)) t.models.push(model);
    const cost = usage.model === undefined ? undefined : callCostMicroUsd(usage.model, u, this.prices);
    if (cost === undefined) {
      if (!t.unpriced.includes(model)) t.unpriced.push(model);
    } else t.cost_micro_usd += cost;
  }
}

/**
 * A placeholder key (a step's, a tab's, the replay's with `word` "replay"): shaped like the provider's keys
 * (letters, digits, `-`, `_`), random.
 */
export function placeholderKey(api: ModelApi, word = 'placeholder'): string {
  return `${api === 'anthropic' ? 'sk-ant-' : 'sk-'}interlock-${word}-${randomBytes(24).toString('base64url')}`;
}
