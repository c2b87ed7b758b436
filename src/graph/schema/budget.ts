/** The `budget:` field of a graph (the run's limit) and of a node (each attempt's limit): its schema and type. */
import * as z from 'zod';

const limits = {
  cost_usd: z.number().positive().optional().register(z.globalRegistry, {
    description:
      "US dollars: what the key proxy metered from the model API's answers, priced with its table, when it serves the attempt's calls; else as the agent reports its cost (`total_cost_usd` for Claude Code).",
  }),
  tokens: z.number().int().positive().optional().register(z.globalRegistry, {
    description:
      "Input plus output tokens (cached input included): metered by the key proxy when it serves the attempt's calls, which then refuses the call after the one that reached the limit.",
  }),
  turns: z.number().int().positive().optional().register(z.globalRegistry, {
    description: 'Agent turns (`num_turns` for Claude Code).',
  }),
  wall_minutes: z.number().positive().optional().register(z.globalRegistry, {
    description: 'Minutes of wall time, summed over attempts (for a run: over every attempt of every node).',
  }),
};

const NO_LIMIT = 'sets no limit: give one of cost_usd, tokens, turns, wall_minutes, or remove it';

const BudgetObject = z
  .strictObject(limits)
  .refine((b) => Object.values(b).some((v) => v !== undefined), `budget ${NO_LIMIT}`);

/** A node's `budget`: an attempt that ends over it fails, saying so. */
export const NodeBudgetField = BudgetObject.optional().register(z.globalRegistry, {
  description:
    "Limits for each attempt of this node: an attempt that ends over any of them fails with a `budget` failure, and the usual retry rules apply. Usage is what the key proxy metered of the attempt's model calls when it serves them (tokens and cost stop the next call there), else what `$INTERLOCK_USAGE` or the agent's JSON result says.",
});

/** The graph's `budget`: the run's total; at or over it, the next node is escalated instead of dispatched. */
export const RunBudgetField = BudgetObject.optional().register(z.globalRegistry, {
  description:
    'Limits for the whole run, summed over every attempt: when what the run spent is at or over any of them, the next ready node is not dispatched but escalated, with a report of what was spent and by which nodes. A person raises the budget by approving a rerun of that node (`/approve-rerun <node>`: the run may then spend the same budget again, counted from that approval), or fails the run.',
});

/** A budget as the resolved graph keeps it: only the limits that are set, keys in sorted order (it is hashed). */
export interface Budget {
  cost_usd?: number;
  tokens?: number;
  turns?: number;
  wall_minutes?: number;
}

/** The budget with its unset limits left out and its keys sorted; undefined for none. */
export function resolvedBudget(b: Budget | undefined): Budget | undefined {
  if (!b) return undefined;
  const out: Budget = {};
  if (b.cost_usd !== undefined) out.cost_usd = b.cost_usd;
  if (b.tokens !== undefined) out.tokens = b.tokens;
  if (b.turns !== undefined) out.turns = b.turns;
  if (b.wall_minutes !== undefined) out.wall_minutes = b.wall_minutes;
  return out;
}
