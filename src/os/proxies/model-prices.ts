/**
 * What a model call cost, from the usage the model API returned and a table of prices per million tokens. The
 * default table is documented in docs/agents.md ("What a model call costs"); a model none of its names starts is
 * counted in tokens only, and said so. Pure.
 *
 * Anthropic bills `input_tokens` (uncached), `cache_creation_input_tokens` (written to the cache, 5-minute rate),
 * `cache_read_input_tokens` and `output_tokens` apart; OpenAI's Responses `input_tokens` include
 * `input_tokens_details.cached_tokens`, billed at the cached rate. A call's usage here is in Anthropic's split:
 * `input_tokens` never includes the cached ones.
 */

/** One model call's tokens, by kind. */
export interface CallTokens {
  /** Input tokens billed at the full rate (cache reads and writes not included). */
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

/** US dollars per million tokens of each kind. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Writing to the prompt cache (Anthropic's 5-minute rate); default: the input rate. */
  cache_write?: number;
  /** Reading from the prompt cache; default: the input rate. */
  cache_read?: number;
}

/**
 * The default prices (USD per million tokens), by the start of a model's name: the longest that fits wins, so
 * `claude-opus-4-5-20251101` is priced as `claude-opus-4-5`, not `claude-opus-4`. Anthropic's: its pricing page
 * (platform.claude.com/docs/en/about-claude/pricing); OpenAI's: its models' pages (developers.openai.com).
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4': { input: 15, output: 75, cache_write: 18.75, cache_read: 1.5 },
  'claude-opus-4-5': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-opus-4-6': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-opus-4-7': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-opus-4-8': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-opus-5': { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
  'claude-sonnet-4': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-3-7-sonnet': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cache_write: 1.25, cache_read: 0.1 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cache_write: 1, cache_read: 0.08 },
  'gpt-5': { input: 1.25, output: 10, cache_read: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cache_read: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cache_read: 0.005 },
};

/** The price of `model` in `table`: the entry whose name is the longest start of it; undefined for none. */
export function priceOf(model: string, table: Readonly<Record<string, ModelPrice>>): ModelPrice | undefined {
  let best: string | undefined;
  for (const name of Object.keys(table))
    if (model.startsWith(name) && (best === undefined || name.length > best.length)) best = name;
  return best === undefined ? undefined : table[best];
}

/** A call's cost in whole millionths of a dollar (so sums are exact), or undefined for a model with no price. */
export function callCostMicroUsd(
  model: string,
  t: CallTokens,
  table: Readonly<Record<string, ModelPrice>>,
): number | undefined {
  const p = priceOf(model, table);
  if (!p) return undefined;
  // Per million tokens, in millionths of a dollar: tokens times the rate.
  return Math.round(
    t.input_tokens * p.input +
      t.cache_creation_input_tokens * (p.cache_write ?? p.input) +
      t.cache_read_input_tokens * (p.cache_read ?? p.input) +
      t.output_tokens * p.output,
  );
}
