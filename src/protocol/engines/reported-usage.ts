/**
 * Reading what an attempt reported it used: the JSON a node writes to `$INTERLOCK_USAGE`, and the result
 * object Claude Code prints with `--output-format json` (or the last `"type":"result"` line of `stream-json`).
 * Pure: text in, usage fields and warnings out. Unknown or malformed usage is dropped with a warning; it never
 * fails the attempt.
 *
 * The Claude Code result's shape is the Agent SDK's `SDKResultMessage` (docs: Claude Code "Run Claude Code
 * programmatically" / headless mode, and the Agent SDK TypeScript reference and "Tracking costs and usage"
 * pages): `type: "result"`, `subtype`, `is_error`, `duration_ms`, `num_turns`, `result`, `session_id`,
 * `total_cost_usd`, `usage: { input_tokens, output_tokens, cache_creation_input_tokens,
 * cache_read_input_tokens, ... }` and `modelUsage: { <model>: { inputTokens, outputTokens, costUSD, ... } }`.
 */
import type { Usage } from '../../journal/events/fields.js';

/** The usage fields an attempt may report (wall time is measured by interlock, never reported). */
type ReportedUsage = Partial<Omit<Usage, 'wall_ms'>>;

/** What was read, and what was dropped and why. */
export interface UsageReading {
  usage: ReportedUsage;
  warnings: string[];
}

const FIELDS = ['input_tokens', 'output_tokens', 'cost_usd', 'turns', 'model'] as const;
type Field = (typeof FIELDS)[number];
const MAX_MODEL = 200;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isDollars = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 1e9;

/** Why a field's value cannot be kept, or null when it can. */
function fieldProblem(field: Field, v: unknown): string | null {
  if (field === 'cost_usd') return isDollars(v) ? null : 'a number of dollars, 0 or more';
  if (field === 'model') {
    return typeof v === 'string' && v.length > 0 && v.length <= MAX_MODEL && !/[\p{Cc}]/u.test(v)
      ? null
      : `a model name (text of 1 to ${MAX_MODEL} characters, one line)`;
  }
  return isCount(v) ? null : 'a whole number, 0 or more';
}

/** Keeps the fields whose values are valid; warns about the rest, naming `where`. */
function checked(where: string, values: Partial<Record<Field, unknown>>): UsageReading {
  const usage: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const field of FIELDS) {
    const v = values[field];
    if (v === undefined) continue;
    const problem = fieldProblem(field, v);
    if (problem)
      warnings.push(`${where}: ${field} ${JSON.stringify(v)?.slice(0, 60)} ignored: expected ${problem}`);
    else usage[field] = v;
  }
  return { usage: usage as ReportedUsage, warnings };
}

/** The JSON a node wrote to `$INTERLOCK_USAGE` (`where` names the file in warnings); empty text reports nothing. */
export function usageFromFile(text: string, where: string): UsageReading {
  if (!text.trim()) return { usage: {}, warnings: [] };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { usage: {}, warnings: [`${where}: not JSON (${(e as Error).message}); its usage was ignored`] };
  }
  if (!isObject(data)) {
    return {
      usage: {},
      warnings: [
        `${where}: expected a JSON object such as {"cost_usd": 0.42, "turns": 7}; its usage was ignored`,
      ],
    };
  }
  const unknown = Object.keys(data).filter((k) => !(FIELDS as readonly string[]).includes(k));
  const r = checked(where, data);
  if (unknown.length) {
    r.warnings.push(
      `${where}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')} ignored (known: ${FIELDS.join(', ')})`,
    );
  }
  return r;
}

/** The Claude Code result object in an agent's stdout: the whole text (json), or its last result line (stream-json). */
export function claudeResultIn(stdout: string): Record<string, unknown> | undefined {
  const whole = parseObject(stdout.trim());
  if (whole?.type === 'result') return whole;
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{') || !line.includes('"result"')) continue;
    const o = parseObject(line);
    if (o?.type === 'result') return o;
  }
  return undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Input tokens, cached ones included: `input_tokens` plus both `cache_*_input_tokens`. */
function inputTokens(u: Record<string, unknown>): unknown {
  const parts = [u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens];
  if (parts.every((p) => p === undefined || p === null)) return undefined;
  if (!parts.every((p) => p === undefined || p === null || isCount(p))) return parts.find((p) => !isCount(p));
  return parts.reduce<number>((sum, p) => sum + ((p as number | undefined) ?? 0), 0);
}

/** Usage from a Claude Code result in an agent's stdout; nothing (and no warning) when there is none. */
export function usageFromClaudeResult(stdout: string, where = 'the agent result'): UsageReading {
  const r = claudeResultIn(stdout);
  if (!r) return { usage: {}, warnings: [] };
  const u = isObject(r.usage) ? r.usage : {};
  const models = isObject(r.modelUsage) ? Object.keys(r.modelUsage) : [];
  return checked(where, {
    input_tokens: inputTokens(u),
    output_tokens: u.output_tokens ?? undefined,
    cost_usd: r.total_cost_usd ?? undefined,
    turns: r.num_turns ?? undefined,
    model: models.length ? models.join(', ') : undefined,
  });
}

/** The attempt's usage: measured wall time, then the readings in order (a later one's fields win). */
export function attemptUsage(wallMs: number, ...readings: UsageReading[]): Usage {
  return Object.assign({ wall_ms: wallMs }, ...readings.map((r) => r.usage)) as Usage;
}
