/**
 * An attempt's tab at the key proxy (src/os/proxies/key-proxy-tab.ts): opened before its command with the limits
 * it may not pass (its node's budget, and what is left of the run's), closed after it; its metered usage then
 * becomes the attempt's (src/protocol/engines/metered-usage.ts). Nothing happens when the proxy is off.
 */
import type { Approach, Graph, GraphNode } from '../../graph/model.js';
import { runSpent } from '../../journal/checkpoint-usage.js';
import type { Failure, Usage } from '../../journal/events/fields.js';
import type { RunState } from '../../journal/state.js';
import { microUsd } from '../../journal/usage-totals.js';
import { closeAttemptTab, openAttemptTab } from '../../os/node-user/node-credentials.js';
import type { ProxyTab, TabLimit } from '../../os/proxies/key-proxy-tab.js';
import { amount } from '../../protocol/budget.js';
import { dailyCapLeft } from '../../protocol/daily-cap.js';
import { meteredUsage } from '../../protocol/engines/metered-usage.js';
import { type DailyCapSource, dailyCapCounted } from '../daily-cap.js';
import type { RunSnapshot } from '../journal-io/read.js';

/**
 * The limits the proxy holds an attempt of `node` to: its budget's tokens and cost, what is left of the run's,
 * and what is left of the repository's daily cost cap (as counted when this step dispatched it).
 */
export function tabLimits(
  setup: { graph: Graph; dailyCap?: DailyCapSource; now?: () => string },
  cur: RunSnapshot,
  node: GraphNode,
  approach: Approach,
): TabLimit[] {
  const { graph } = setup;
  const state: RunState = cur.state;
  const out: TabLimit[] = [];
  const counted = dailyCapCounted(setup);
  const cap = counted === 'recount' ? undefined : counted;
  const left = dailyCapLeft(cur.journal, state.nodes.get(node.id), approach, cap);
  if (cap && left !== undefined)
    out.push({
      what: 'cost_micro_usd',
      max: microUsd(left),
      names: `the repository's daily cost cap, ${amount('cost_usd', left)} left of ${amount('cost_usd', cap.daily_usd)} on ${cap.day} UTC (budget.daily_usd)`,
    });
  const run = graph.budget ? runSpent(graph, state.nodes) : undefined;
  for (const k of ['tokens', 'cost_usd'] as const) {
    const what = k === 'tokens' ? 'tokens' : 'cost_micro_usd';
    const units = (n: number) => (k === 'tokens' ? n : microUsd(n));
    const own = node.budget?.[k];
    if (own !== undefined)
      out.push({ what, max: units(own), names: `the node's budget of ${amount(k, own)} (budget.${k})` });
    const runMax = graph.budget?.[k];
    if (runMax !== undefined && run) {
      const left = Math.max(0, runMax - run[k]);
      out.push({
        what,
        max: units(left),
        names: `what was left of the run's budget, ${amount(k, left)} of ${amount(k, runMax)} (budget.${k})`,
      });
    }
  }
  return out;
}

/** An open tab and how the attempt ends it. */
export interface AttemptTab {
  tab: ProxyTab;
  /** Closes the tab: the attempt's usage with the metered figures counting, and a budget stop when it refused. */
  close: (
    usage: Usage,
    warn: (m: string) => void,
  ) => {
    usage: Usage;
    stopped: Failure | undefined;
  };
}

/** Opens the attempt's tab; `onStop` is told when the proxy refuses a call at a limit (the agent is stopped). */
export function openTab(
  execTag: string,
  limits: TabLimit[],
  onStop: (why: string) => void,
): AttemptTab | undefined {
  const tab = openAttemptTab(execTag, limits);
  if (!tab) return undefined;
  tab.onStop = onStop;
  let closed = false;
  const shut = () => {
    if (!closed) closeAttemptTab(execTag, tab);
    closed = true;
  };
  return {
    tab,
    close: (usage, warn) => {
      shut();
      const m = meteredUsage(usage, tab.totals);
      for (const w of m.warnings) warn(w);
      return { usage: m.usage, stopped: tab.stopped ? { check: 'budget', message: tab.stopped } : undefined };
    },
  };
}
