/**
 * The budget rules. After an attempt: an attempt that ends over its node's budget fails, saying which limit it
 * passed. Before a dispatch: a run whose spending (since a person last raised its budget) is at or over the
 * graph's budget escalates the node instead of dispatching it. Pure.
 */

import { type Graph, type GraphNode, nodeById } from '../graph/model.js';
import type { Budget } from '../graph/schema/budget.js';
import { runSpent, spentOf, usageSinceRaise } from '../journal/checkpoint-usage.js';
import type { NewEvent } from '../journal/events/events.js';
import type { Failure, Usage } from '../journal/events/fields.js';
import type { RunState, Spent } from '../journal/state.js';
import { addUsage, noUsage, sumTotals, usageSince } from '../journal/usage-totals.js';

const LIMITS = ['cost_usd', 'tokens', 'turns', 'wall_minutes'] as const;
type Limit = (typeof LIMITS)[number];

/** An amount in a limit's unit, for people: `$1.84`, `12,000 tokens`, `7 turns`, `3.5 minutes`. */
export function amount(limit: Limit, n: number): string {
  if (limit === 'cost_usd') return `$${n.toFixed(2)}`;
  if (limit === 'tokens') return `${n.toLocaleString('en-US')} tokens`;
  if (limit === 'turns') return `${n} turn${n === 1 ? '' : 's'}`;
  return `${Number(n.toFixed(1))} minutes`;
}

/** The limits of `budget` that `spent` is at or over (`over`: strictly over). */
function passed(budget: Budget, spent: Spent, strictly: boolean): Limit[] {
  return LIMITS.filter((k) => {
    const max = budget[k];
    return max !== undefined && (strictly ? spent[k] > max : spent[k] >= max);
  });
}

/** Rule: an attempt that ended over its node's budget fails; one failure per limit it passed. */
export function nodeBudgetFailures(node: GraphNode, usage: Usage): Failure[] {
  if (!node.budget) return [];
  const t = noUsage();
  addUsage(t, usage);
  const spent = spentOf(t);
  return passed(node.budget, spent, true).map((k) => ({
    check: 'budget',
    message: `the attempt used ${amount(k, spent[k])}, over the node's budget of ${amount(k, node.budget![k]!)} (budget.${k})`,
  }));
}

/** "$1.84 of $5.00 spent", one part per limit the run's budget sets; empty without a budget. */
export function budgetWords(graph: Pick<Graph, 'budget'>, state: RunState): string {
  const b = state.checkpoint.usage.budget;
  if (!graph.budget || !b) return '';
  return LIMITS.filter((k) => graph.budget![k] !== undefined)
    .map((k) => `${amount(k, b.spent[k])} of ${amount(k, graph.budget![k]!)}`)
    .join(', ')
    .concat(' spent');
}

/** What a node's escalation at a budget says: what was spent of what, by which nodes, and what a person may do. */
interface AtBudget {
  node: string;
  /** Whose budget: `The run`, or `The sub-graph "review" (review.yml)`. */
  whose: string;
  budget: Budget;
  spent: Spent;
  byNode: Record<string, Spent>;
  after: string;
}

/** A node escalated at a budget instead of dispatched; undefined while no limit of the budget is reached. */
function escalatedAtBudget({ node, whose, budget, spent, byNode, after }: AtBudget): NewEvent | undefined {
  const reached = passed(budget, spent, false);
  if (!reached.length) return undefined;
  const what = reached.map((k) => `${amount(k, spent[k])} of ${amount(k, budget[k]!)}`).join(', ');
  return {
    type: 'NodeEscalated',
    node,
    report: {
      attempted: [],
      failed: [],
      approaches_tried: [],
      needed: `${whose} is at its budget (${what} spent), so "${node}" was not dispatched. A person decides: raise the budget by approving a rerun of "${node}" (${after}), or fail the run.`,
      budget: { limit: { ...budget } as Record<string, number>, spent, by_node: byNode },
    },
  };
}

/**
 * Rule: before a node is dispatched, the run's spending is checked against the graph's budget; at or over any
 * limit, the node is escalated with a report of what was spent, by which nodes, and what a person may do.
 */
export function runBudgetEscalation(graph: Graph, state: RunState, node: string): NewEvent | undefined {
  const byNode: Record<string, Spent> = {};
  for (const [id, t] of usageSinceRaise(graph, state.nodes)) {
    if (t.wall_ms > 0 || t.reported) byNode[id] = spentOf(t);
  }
  const run =
    graph.budget &&
    escalatedAtBudget({
      node,
      whose: 'The run',
      budget: graph.budget,
      spent: runSpent(graph, state.nodes),
      byNode,
      after: 'the run may then spend its budget again, counted from that approval',
    });
  return run || subgraphBudgetEscalation(graph, state, node);
}

/**
 * Rule: a sub-graph's own `budget:` applies within it. Before a node of a sub-graph is dispatched, what the nodes
 * under each enclosing sub-graph node spent (since a person last raised a budget) is checked against that
 * sub-graph's budget; at or over a limit, the node is escalated as at the run's budget.
 */
function subgraphBudgetEscalation(graph: Graph, state: RunState, node: string): NewEvent | undefined {
  for (let s = nodeById(graph, node)?.scope?.of; s !== undefined; s = nodeById(graph, s)?.scope?.of) {
    const sub = nodeById(graph, s)!.subgraph!;
    if (!sub.graph.budget) continue;
    const byNode: Record<string, Spent> = {};
    const used = [...state.nodes]
      .filter(([id]) => id.startsWith(`${s}/`))
      .map(([id, p]) => {
        const t = usageSince(p.usage, p.usage_at_raise);
        if (t.wall_ms > 0 || t.reported) byNode[id] = spentOf(t);
        return t;
      });
    const escalated = escalatedAtBudget({
      node,
      whose: `The sub-graph "${s}" (${sub.path})`,
      budget: sub.graph.budget,
      spent: spentOf(sumTotals(used)),
      byNode,
      after: 'budgets then count again from that approval',
    });
    if (escalated) return escalated;
  }
  return undefined;
}
