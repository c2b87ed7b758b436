/**
 * The daily cost cap of a repository (`budget: { daily_usd }` in `.github/interlock.yml`, issue 38). Before an
 * agent attempt is dispatched, what the repository spent on the decision's UTC day (other runs' spend, counted
 * by the shell and given as data, plus this run's own from its journal) is checked against the cap; at or over
 * it, the node is escalated instead of dispatched, and a person's approval lets that node go on for the rest of
 * that day. A plain command node costs nothing here and is never held. Pure: the day is given, never read.
 */

import type { Approach, GraphNode } from '../graph/model.js';
import { dailyUsage, emptySums, type UsageSums } from '../journal/daily-usage.js';
import type { Journal, NewEvent } from '../journal/events/events.js';
import type { NodeProgress, Spent } from '../journal/state.js';
import { amount } from './budget.js';

/** What the shell gives the rule: the cap, the day of the decision, and what other runs spent that day. */
export interface DailyCap {
  /** The cap in US dollars (`budget.daily_usd`). */
  daily_usd: number;
  /** `YYYY-MM-DD`, UTC: the day of the decision's time. */
  day: string;
  /** What the other runs of the repository spent on `day`, as far as they were counted. */
  others: UsageSums;
  /** Runs the shell counted, of the runs it knows of (this one left out of both). */
  counted: number;
  of: number;
  /** The command that lets a node go on, in the words of the face that shows it (render/next-commands.ts). */
  goOn: (node: string) => string;
  /** What the shell could not count, in words, beyond "counted from N of M" (a store that cannot list runs). */
  note?: string;
}

/** Whether an attempt with this approach runs an agent (`engine:`, `agent:` or `prompt`): only those cost money. */
function isAgentAttempt(approach: Approach): boolean {
  return approach.prompt !== undefined || approach.agent !== undefined || approach.engine !== undefined;
}

function spentOfSums(s: UsageSums): Spent {
  return {
    cost_usd: s.cost_usd,
    tokens: s.input_tokens + s.output_tokens,
    turns: s.turns,
    wall_minutes: s.wall_ms / 60_000,
  };
}

function plus(a: UsageSums, b: UsageSums): UsageSums {
  const out = emptySums();
  for (const k of Object.keys(out) as (keyof UsageSums)[]) out[k] = a[k] + b[k];
  return out;
}

/**
 * What is left of the day's cap (US dollars) for an agent attempt of `node` once dispatched: the key proxy stops
 * its calls there. Undefined when no cap bounds it: none, not an agent, or a person let it go on that day.
 */
export function dailyCapLeft(
  journal: Journal,
  p: NodeProgress | undefined,
  approach: Approach,
  cap: DailyCap | undefined,
): number | undefined {
  if (!cap || !isAgentAttempt(approach) || p?.daily_cap_approved === cap.day) return undefined;
  const own = dailyUsage([journal]).find((d) => d.day === cap.day)?.total ?? emptySums();
  return Math.max(0, cap.daily_usd - own.cost_usd - cap.others.cost_usd);
}

/**
 * Rule: before an agent attempt of `node` is dispatched, the repository's spend on the decision's day (other
 * runs' plus this run's own) is checked against the daily cap; at or over it, the node is escalated with a
 * report naming the cap, the day's spend, how many runs were counted and the command that lets it go on. A node
 * a person approved past the cap on that day (`daily_cap_approved`) goes on.
 */
export function dailyCapEscalation(
  journal: Journal,
  node: GraphNode,
  p: NodeProgress | undefined,
  approach: Approach,
  cap: DailyCap | undefined,
): NewEvent | undefined {
  if (!cap || !isAgentAttempt(approach)) return undefined;
  if (p?.daily_cap_approved === cap.day) return undefined;
  const today = dailyUsage([journal]).find((d) => d.day === cap.day);
  const own = today?.total ?? emptySums();
  const total = plus(own, cap.others);
  if (total.cost_usd < cap.daily_usd) return undefined;
  const byNode: Record<string, Spent> = {};
  for (const [key, s] of Object.entries(today?.by_node ?? {}))
    byNode[key.slice(journal.graph.name.length + 1)] = spentOfSums(s);
  const counted =
    (cap.counted < cap.of ? `; spend counted from ${cap.counted} of ${cap.of} other runs` : '') +
    (cap.note ? `; ${cap.note}` : '');
  const command = cap.goOn(node.id);
  return {
    type: 'NodeEscalated',
    node: node.id,
    report: {
      attempted: [],
      failed: [],
      approaches_tried: [],
      needed: `The repository is at its daily cost cap (${amount('cost_usd', total.cost_usd)} spent on ${cap.day} UTC, of ${amount('cost_usd', cap.daily_usd)} a day; this run ${amount('cost_usd', own.cost_usd)}${counted}), so "${node.id}" was not dispatched. A person decides: let "${node.id}" go on for the rest of the day with \`${command}\`, or fail the run.`,
      budget: { limit: { daily_usd: cap.daily_usd }, spent: spentOfSums(total), by_node: byNode },
    },
  };
}
