/**
 * What runs cost over days (issue 38): tokens, cost, turns, wall time and runs per UTC day, per graph and per
 * node, summed over the journals given. An attempt counts on the day its end was journaled (`NodeRecorded`,
 * `NodeFailed`, `NodeInterrupted`'s observed usage); a run on the day it started. What this cannot count: an
 * attempt still in flight (no usage journaled yet), a journal that does not parse (the caller says which), and
 * cost an agent did not report (Codex reports none: its `cost_usd` is absent, its tokens are counted). Pure.
 */

import type { Journal, JournalEvent } from './events/events.js';
import type { Usage } from './events/fields.js';

export interface UsageSums {
  runs: number;
  attempts: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  turns: number;
  wall_ms: number;
  /** Attempts whose agent reported tokens but no cost (Codex), so `cost_usd` leaves them out. */
  without_cost: number;
}

export interface UsageDay {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  total: UsageSums;
  by_graph: Record<string, UsageSums>;
  /** Keyed `<graph>/<node>`: a graph's node, its instances and sub-graph nodes counted under it; `runs` are the runs it ran in. */
  by_node: Record<string, UsageSums>;
}

export const emptySums = (): UsageSums => ({
  runs: 0,
  attempts: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost_usd: 0,
  turns: 0,
  wall_ms: 0,
  without_cost: 0,
});

function add(s: UsageSums, u: Usage): void {
  s.attempts += 1;
  s.input_tokens += u.input_tokens ?? 0;
  s.output_tokens += u.output_tokens ?? 0;
  s.cost_usd += u.cost_usd ?? 0;
  s.turns += u.turns ?? 0;
  s.wall_ms += u.wall_ms;
  if (u.cost_usd === undefined && (u.input_tokens ?? 0) + (u.output_tokens ?? 0) > 0) s.without_cost += 1;
}

/** The usage an event journals for an attempt that ended; a person's settlement used nothing. */
function attemptUsage(e: JournalEvent): { node: string; usage: Usage } | undefined {
  if (e.type === 'NodeRecorded') return e.recorded_by ? undefined : { node: e.node, usage: e.usage };
  if (e.type === 'NodeFailed') return { node: e.node, usage: e.usage };
  if (e.type === 'NodeInterrupted') return { node: e.node, usage: e.observed_usage };
  return undefined;
}

/** A graph's node: an instance (`work[3]`) and a sub-graph's nodes (`review/draft`) count under it. */
const graphNode = (node: string) => node.split(/[[/]/)[0]!;

/** The sums kept under `key`, made empty the first time. */
function sumsFor(
  by: Record<string, ReturnType<typeof emptySums>>,
  key: string,
): ReturnType<typeof emptySums> {
  const found = by[key];
  if (found) return found;
  const made = emptySums();
  by[key] = made;
  return made;
}

/** The per-day sums of the journals, oldest day first. */
export function dailyUsage(journals: Journal[]): UsageDay[] {
  const days = new Map<string, UsageDay>();
  const dayOf = (at: string) => {
    const day = new Date(at).toISOString().slice(0, 10);
    let d = days.get(day);
    if (!d) {
      d = { day, total: emptySums(), by_graph: {}, by_node: {} };
      days.set(day, d);
    }
    return d;
  };
  // A node counts a run once a day, the first time one of its attempts ended in it that day.
  const counted = new Set<string>();
  for (const j of journals) {
    const graph = j.graph.name;
    for (const e of j.events) {
      if (e.type === 'RunStarted') {
        const d = dayOf(e.at);
        d.total.runs += 1;
        sumsFor(d.by_graph, graph).runs += 1;
        continue;
      }
      const a = attemptUsage(e);
      if (!a) continue;
      const d = dayOf(e.at);
      add(d.total, a.usage);
      add(sumsFor(d.by_graph, graph), a.usage);
      const key = `${graph}/${graphNode(a.node)}`;
      const n = sumsFor(d.by_node, key);
      add(n, a.usage);
      if (!counted.has(`${d.day} ${j.run_id} ${key}`)) {
        counted.add(`${d.day} ${j.run_id} ${key}`);
        n.runs += 1;
      }
    }
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}
