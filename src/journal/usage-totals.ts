/**
 * Usage totals: adding up what attempts used (wall time, tokens, cost, turns) for a node and for a run. Pure.
 * Costs are added in whole millionths of a dollar, so a total is the same whatever order it is summed in.
 */
import type { Usage } from './events/fields.js';

/** What one node, or the whole run, used over its attempts. */
export interface UsageTotals {
  wall_ms: number;
  input_tokens: number;
  output_tokens: number;
  /** Millionths of a dollar (integer), so sums are exact. */
  cost_micro_usd: number;
  turns: number;
  /** Whether any attempt reported agent usage (tokens, cost or turns), beyond wall time. */
  reported: boolean;
}

/** The totals before any attempt. */
export function noUsage(): UsageTotals {
  return { wall_ms: 0, input_tokens: 0, output_tokens: 0, cost_micro_usd: 0, turns: 0, reported: false };
}

/** A dollar amount in whole millionths. */
export function microUsd(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** Whether a usage record carries anything beyond wall time. */
function reportsAgentUsage(u: Usage): boolean {
  return (
    u.input_tokens !== undefined ||
    u.output_tokens !== undefined ||
    u.cost_usd !== undefined ||
    u.turns !== undefined
  );
}

/** Adds one attempt's usage to the totals, in place. */
export function addUsage(t: UsageTotals, u: Usage): void {
  t.wall_ms += u.wall_ms;
  t.input_tokens += u.input_tokens ?? 0;
  t.output_tokens += u.output_tokens ?? 0;
  t.cost_micro_usd += microUsd(u.cost_usd ?? 0);
  t.turns += u.turns ?? 0;
  if (reportsAgentUsage(u)) t.reported = true;
}

/** The sum of several totals (a run's, from its nodes'). */
export function sumTotals(all: Iterable<UsageTotals>): UsageTotals {
  const out = noUsage();
  for (const t of all) {
    out.wall_ms += t.wall_ms;
    out.input_tokens += t.input_tokens;
    out.output_tokens += t.output_tokens;
    out.cost_micro_usd += t.cost_micro_usd;
    out.turns += t.turns;
    if (t.reported) out.reported = true;
  }
  return out;
}

/** `a - b`, field by field: what was used since `b` was taken. */
export function usageSince(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    wall_ms: a.wall_ms - b.wall_ms,
    input_tokens: a.input_tokens - b.input_tokens,
    output_tokens: a.output_tokens - b.output_tokens,
    cost_micro_usd: a.cost_micro_usd - b.cost_micro_usd,
    turns: a.turns - b.turns,
    reported: a.reported,
  };
}

/** The agent totals as the checkpoint shows them: tokens, dollars and turns. */
export interface AgentTotals {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  turns: number;
}

export function agentTotals(t: UsageTotals): AgentTotals {
  return {
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    cost_usd: t.cost_micro_usd / 1_000_000,
    turns: t.turns,
  };
}
