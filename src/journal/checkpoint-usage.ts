/**
 * The checkpoint's `usage`: wall time per node and for the run, the agent totals (tokens, cost, turns) once any
 * attempt reported them, and what the run spent against the graph's budget since a person last raised it.
 */
import type { Budget } from '../graph/schema/budget.js';
import type { CheckpointUsage, GraphShape, NodeProgress, NodeUsage, Spent } from './state.js';
import { agentTotals, sumTotals, type UsageTotals, usageSince } from './usage-totals.js';

/** Totals in the budget's units: dollars, input plus output tokens, turns, minutes. */
export function spentOf(t: UsageTotals): Spent {
  return {
    cost_usd: t.cost_micro_usd / 1_000_000,
    tokens: t.input_tokens + t.output_tokens,
    turns: t.turns,
    wall_minutes: t.wall_ms / 60_000,
  };
}

/** What each node used since the run's budget was last raised (or since the run started). */
export function usageSinceRaise(
  graph: GraphShape,
  nodes: Map<string, NodeProgress>,
): Map<string, UsageTotals> {
  const out = new Map<string, UsageTotals>();
  for (const n of graph.nodes) {
    const p = nodes.get(n.id)!;
    out.set(n.id, usageSince(p.usage, p.usage_at_raise));
  }
  // A for_each node's instances and a sub-graph's nodes (issue 28) spend against the run's budget too.
  for (const [id, p] of nodes) if (!out.has(id)) out.set(id, usageSince(p.usage, p.usage_at_raise));
  return out;
}

/** The run's spending against its budget: the whole run's usage since the last raise. */
export function runSpent(graph: GraphShape, nodes: Map<string, NodeProgress>): Spent {
  return spentOf(sumTotals(usageSinceRaise(graph, nodes).values()));
}

/** The budget's limits as a plain record (the checkpoint's JSON). */
function limitOf(b: Budget): Record<string, number> {
  return { ...b } as Record<string, number>;
}

/** The checkpoint's usage; keys in a fixed order (the JSON is compared byte for byte). */
export function checkpointUsage(graph: GraphShape, nodes: Map<string, NodeProgress>): CheckpointUsage {
  const wallByNode: Record<string, number> = {};
  const byNode: Record<string, NodeUsage> = {};
  let wall = 0;
  for (const n of graph.nodes) {
    const u = nodes.get(n.id)!.usage;
    wallByNode[n.id] = u.wall_ms;
    wall += u.wall_ms;
    byNode[n.id] = { wall_ms: u.wall_ms, ...agentTotals(u) };
  }
  const out: CheckpointUsage = { wall_ms: wall, nodes: wallByNode };
  const run = sumTotals(graph.nodes.map((n) => nodes.get(n.id)!.usage));
  if (run.reported) Object.assign(out, agentTotals(run), { by_node: byNode });
  if (graph.budget) out.budget = { limit: limitOf(graph.budget), spent: runSpent(graph, nodes) };
  return out;
}
