/** Usage and budgets in words, for the status table, the job summary, the progress comment and reports. */
import type { Graph } from '../../graph/model.js';
import type { BudgetReport } from '../../journal/events/fields.js';
import type { NodeUsage, RunState } from '../../journal/state.js';
import { amount, budgetWords } from '../../protocol/budget.js';

/** `$0.18 · 7 turns · 117,680 tokens`; empty when the node reported no agent usage. */
export function usageCell(u: NodeUsage | undefined): string {
  if (!u || (u.cost_usd === 0 && u.turns === 0 && u.input_tokens + u.output_tokens === 0)) return '';
  return [
    amount('cost_usd', u.cost_usd),
    amount('turns', u.turns),
    amount('tokens', u.input_tokens + u.output_tokens),
  ].join(' · ');
}

/** Whether the status table has a usage column: some attempt reported agent usage. */
export function showsUsage(state: RunState): boolean {
  return state.checkpoint.usage.by_node !== undefined;
}

/** The run's usage and budget in one line, e.g. `usage: $1.84 · 23 turns · 410,200 tokens · $1.84 of $5.00 spent`. */
export function usageLine(graph: Pick<Graph, 'budget'>, state: RunState): string {
  const u = state.checkpoint.usage;
  const parts: string[] = [];
  if (u.cost_usd !== undefined) {
    parts.push(
      usageCell({
        wall_ms: u.wall_ms,
        cost_usd: u.cost_usd,
        turns: u.turns ?? 0,
        input_tokens: u.input_tokens ?? 0,
        output_tokens: u.output_tokens ?? 0,
      }),
    );
  }
  const budget = budgetWords(graph, state);
  if (budget) parts.push(budget);
  return parts.filter(Boolean).length ? `usage: ${parts.filter(Boolean).join(' · ')}` : '';
}

/** The report of a node escalated at the run's budget, in Markdown: what was spent, by which nodes. */
export function budgetReportMarkdown(b: BudgetReport): string[] {
  const rows = Object.entries(b.by_node).map(
    ([id, s]) =>
      `| ${id} | ${amount('cost_usd', s.cost_usd)} | ${amount('tokens', s.tokens)} | ${amount('turns', s.turns)} | ${amount('wall_minutes', s.wall_minutes)} |`,
  );
  const limits = Object.entries(b.limit)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const daily = b.limit.daily_usd;
  return [
    daily !== undefined
      ? `**Daily cost cap:** ${amount('cost_usd', daily)} a day, ${amount('cost_usd', b.spent.cost_usd)} spent today. This run's spend today:`
      : `**Budget:** ${limits}. Spent since the budget was last raised:`,
    '',
    '| node | cost | tokens | turns | time |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ];
}
