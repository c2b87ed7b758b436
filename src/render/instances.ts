/**
 * A `for_each` node's instances and a sub-graph's nodes for people (issue 28): counted by state on the node's own row, and only the ones
 * that need attention (in flight, failing, held, escalated, tolerated) named on rows of their own, at most
 * `MAX_NAMED`, so a table of a 1,000-item fan-out stays short. Pure.
 */
import { instanceId } from '../graph/schema/for-each.js';
import type { NodeProgress, RunState } from '../journal/state.js';

/** The most instances of one node named on rows of their own. */
export const MAX_NAMED = 20;

/** What `node` expanded into (its instances in item order, or a sub-graph's nodes), with their progress. */
function instances(state: RunState, node: string): [string, NodeProgress][] {
  const made = state.nodes.get(node)?.expansion;
  const ids = made?.children ?? (made?.keys ?? []).map((k) => instanceId(node, k));
  return ids.map((id) => [id, state.nodes.get(id)!]);
}

/** Everything expanded under `node`, depth first: instances and sub-graph nodes, and what they expanded into. */
function descendants(state: RunState, node: string): [string, NodeProgress][] {
  return instances(state, node).flatMap((x) => [x, ...descendants(state, x[0])]);
}

/**
 * What waits for a person under an expanded node, the most pressing first: a held node (it may have partly
 * run), an escalated one, one awaiting approval; undefined when nothing under it does.
 */
export function attentionUnder(
  state: RunState,
  node: string,
): 'held' | 'escalated' | 'awaiting_approval' | undefined {
  const under = descendants(state, node).map(([, p]) => p.state);
  return (['held', 'escalated', 'awaiting_approval'] as const).find((s) => under.includes(s));
}

/** The word an instance's state is counted under; a sub-graph instance by what waits under it, else running. */
function word(state: RunState, id: string, p: NodeProgress): string {
  if (p.state === 'pending') return p.failures > 0 ? 'failed' : p.interrupted ? 'interrupted' : 'waiting';
  if (p.state === 'expanded') return (attentionUnder(state, id) ?? 'running').replace('_', ' ');
  return p.state.replace('_', ' ');
}

/** Whether an instance is named on a row of its own: it runs, or it failed. */
function needsAttention(p: NodeProgress): boolean {
  return (
    p.state === 'in_flight' ||
    p.state === 'held' ||
    p.state === 'escalated' ||
    p.state === 'tolerated' ||
    p.state === 'awaiting_approval' ||
    (p.state === 'pending' && (p.failures > 0 || p.interrupted))
  );
}

/**
 * `5 instances: 3 completed, 1 escalated (work[3]), 1 held (work[1])`, or a sub-graph's `2 nodes: 1 completed,
 * 1 held (review/build)`; undefined before expansion.
 */
export function instanceSummary(state: RunState, node: string): string | undefined {
  const all = instances(state, node);
  if (!all.length) return undefined;
  const counts = new Map<string, string[]>();
  for (const [id, p] of all) {
    const w = word(state, id, p);
    counts.set(w, [...(counts.get(w) ?? []), id]);
  }
  const parts = [...counts].map(([w, ids]) => {
    const quiet = ['completed', 'waiting', 'skipped', 'running'];
    const named = quiet.includes(w) ? '' : ` (${shortList(ids)})`;
    return `${ids.length} ${w}${named}`;
  });
  const noun = state.nodes.get(node)?.expansion?.children ? 'node' : 'instance';
  return `${all.length} ${noun}${all.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

function shortList(ids: string[]): string {
  const shown = ids.slice(0, 5).join(', ');
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown;
}

/**
 * What runs under `node` named on rows of its own (instances and sub-graph nodes at any depth), and how many
 * more need attention than are named.
 */
export function namedInstances(state: RunState, node: string): { ids: string[]; more: number } {
  const attention = descendants(state, node).filter(([, p]) => needsAttention(p));
  return {
    ids: attention.slice(0, MAX_NAMED).map(([id]) => id),
    more: Math.max(0, attention.length - MAX_NAMED),
  };
}

/** The wall time of a node and of everything expanded under it (a for_each or sub-graph node runs none itself). */
export function wallWithin(state: RunState, node: string): number {
  const own = state.nodes.get(node)?.usage.wall_ms ?? 0;
  return descendants(state, node).reduce((sum, [, p]) => sum + p.usage.wall_ms, own);
}
