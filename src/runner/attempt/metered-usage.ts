/**
 * An attempt's usage once the key proxy metered its model calls: the metered figures are the ones that count
 * (tokens, cost, model), the agent's own report is kept beside them (`reported`), and a difference beyond
 * rounding is said (`difference`). An attempt that made no call through the proxy keeps its usage as it was.
 * Pure.
 */
import type { Usage } from '../../journal/events/fields.js';
import type { TabTotals } from '../../os/proxies/key-proxy-tab.js';

const words = (n: number) => n.toLocaleString('en-US');
const dollars = (n: number) => `$${n.toFixed(2)}`;

/** Whether two amounts differ beyond rounding: a token, or a cent (and one percent either way). */
function differs(reported: number, metered: number, unit: number): boolean {
  const gap = Math.abs(reported - metered);
  return gap > unit && gap > Math.max(reported, metered) * 0.01;
}

/** The attempt's usage with the metered figures counting; `warnings` for the attempt's log. */
export function meteredUsage(u: Usage, m: Readonly<TabTotals>): { usage: Usage; warnings: string[] } {
  if (m.calls === 0) return { usage: u, warnings: [] };
  const input = m.input_tokens + m.cache_creation_input_tokens + m.cache_read_input_tokens;
  const cost = m.cost_micro_usd / 1e6;
  const reported: Record<string, number> = {};
  if (u.input_tokens !== undefined) reported.input_tokens = u.input_tokens;
  if (u.output_tokens !== undefined) reported.output_tokens = u.output_tokens;
  if (u.cost_usd !== undefined) reported.cost_usd = u.cost_usd;
  const gaps: string[] = [];
  // Only what the agent did report is compared (Codex reports no cost: that is no difference).
  if (u.input_tokens !== undefined && differs(u.input_tokens, input, 1))
    gaps.push(`${words(u.input_tokens)} input tokens reported, ${words(input)} metered`);
  if (u.output_tokens !== undefined && differs(u.output_tokens, m.output_tokens, 1))
    gaps.push(`${words(u.output_tokens)} output tokens reported, ${words(m.output_tokens)} metered`);
  if (u.cost_usd !== undefined && !m.unpriced.length && differs(u.cost_usd, cost, 0.01))
    gaps.push(`${dollars(u.cost_usd)} reported, ${dollars(cost)} metered`);
  const warnings: string[] = [];
  const difference = gaps.length
    ? `the agent's report differs from what the key proxy metered (which counts): ${gaps.join('; ')}`
    : undefined;
  if (difference) warnings.push(`interlock: usage: ${difference}`);
  if (m.unpriced.length)
    warnings.push(
      `interlock: usage: no price for ${m.unpriced.join(', ')}: its tokens count, its cost does not (add it to model_prices in .github/interlock.yml)`,
    );
  if (m.unread)
    warnings.push(
      `interlock: usage: ${m.unread} of ${m.calls} model call${m.calls === 1 ? '' : 's'} carried no usage the key proxy could read`,
    );
  const metered = {
    calls: m.calls,
    input_tokens: m.input_tokens,
    cache_creation_input_tokens: m.cache_creation_input_tokens,
    cache_read_input_tokens: m.cache_read_input_tokens,
    output_tokens: m.output_tokens,
    cost_usd: cost,
    ...(m.unpriced.length ? { unpriced_models: [...m.unpriced] } : {}),
    ...(m.unread ? { unread_calls: m.unread } : {}),
  };
  const usage: Usage = {
    ...u,
    input_tokens: input,
    output_tokens: m.output_tokens,
    cost_usd: cost,
    ...(m.models.length ? { model: m.models.join(', ').slice(0, 200) } : {}),
    metered,
    ...(Object.keys(reported).length ? { reported } : {}),
    ...(difference ? { difference } : {}),
  };
  return { usage, warnings };
}
