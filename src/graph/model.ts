import type { ApprovalPolicy } from './schema/approval.js';
import type { Budget } from './schema/budget.js';
import type { Check } from './schema/check.js';
import type { Effect } from './schema/effect.js';
import { type ForEach, instanceNode, parseInstanceId } from './schema/for-each.js';
import type { Repeat } from './schema/loop.js';
import type { Replay } from './schema/schema.js';
import { childNode, parseChildId, type Subgraph } from './schema/subgraph.js';

/** The label of the approach an attempt uses, as recorded in `NodeDispatched.approach`. */
export type ApproachLabel = 'default' | 'retry[0]' | 'retry[1]';

/** The work of one attempt: exactly one of `run` or `prompt`. */
export interface Approach {
  label: ApproachLabel;
  description?: string;
  run?: string;
  prompt?: string;
  agent?: string;
  /** The agent CLI whose output interlock reads (absent: a plain command). */
  engine?: Engine;
  skill?: string;
  env: Record<string, string>;
  timeout_minutes: number;
}

/** The agent CLIs interlock knows. */
export type Engine = 'claude-code' | 'codex' | 'copilot' | 'gemini';

/** The command an engine's prompt node runs when it names no agent of its own. */
export const ENGINE_AGENTS: Record<Engine, string> = {
  'claude-code': 'claude -p',
  codex: 'codex exec',
  // Copilot CLI, too, runs headless when its prompt comes on stdin.
  copilot: 'copilot',
  // Gemini CLI runs headless when its prompt comes on stdin.
  gemini: 'gemini',
};

/** A node with its skill merged and defaults applied. */
export interface GraphNode {
  id: string;
  description?: string;
  depends_on: string[];
  execute_conditions: string[];
  replay: Replay;
  validates: Check[];
  outputs: string[];
  /** Approach per attempt: [attempt 1, attempt 2, attempt 3?]. Its length is the number of allowed attempts. */
  approaches: Approach[];
  /** Soft bounds (`soft_timeout_minutes`, `soft_turns`); absent without one, so such graphs hash as before. */
  soft?: { timeout_minutes?: number; turns?: number };
  /** The agent session the node continues (`session:`, with its `sessions:` options); absent without one. */
  session?: { name: string; resume_failed?: true; serialized?: true };
  /** Limits for each attempt (`budget:`); absent when the node sets none, so graphs without one hash as before. */
  budget?: Budget;
  /** `before`: people approve before the first attempt; absent otherwise, so graphs without it hash as before. */
  approval?: 'before';
  /** The graph's then the node's `approvals:` (each level that sets one); absent when neither does. */
  approvals?: ApprovalPolicy[];
  /** What interlock performs itself instead of a command (`effect:`); absent for command and prompt nodes. */
  effect?: Effect;
  /** Protected path patterns this effect may change; absent when the node names none. */
  allow_protected_paths?: string[];
  /** The egress allowlist (the node's `network`, else `defaults.network`); absent: the open network. */
  network?: { allow: string[] };
  /** One instance per item of a list made at run time (`for_each:`); absent otherwise (schema/for-each.ts). */
  for_each?: ForEach;
  /** Set on an instance of a `for_each` node (`work[3]`): its parent and key. Never in a loaded graph. */
  instance?: { of: string; key: string };
  /** A bounded loop (`repeat:`, issue 28); absent without one, so graphs without loops hash as before. */
  repeat?: Repeat;
  /** Another graph file this node runs (`graph:`, schema/subgraph.ts); absent otherwise. */
  subgraph?: Subgraph;
  /** Set on a child of a sub-graph node (`review/build`): that node, and the child's id in its own graph. */
  scope?: { of: string; id: string };
}

/** A loaded, validated graph. */
export interface Graph {
  name: string;
  description?: string;
  /** `sha256:` of the canonical JSON of the resolved graph. */
  hash: string;
  path: string;
  /** The run's limits (`budget:`); absent when the graph sets none. */
  budget?: Budget;
  nodes: GraphNode[];
}

export const DEFAULT_TIMEOUT_MINUTES = 60;

/**
 * The node named `id`: one of the graph's, an instance (`work[3]`) of one of its `for_each` nodes, or a node of a
 * sub-graph (`review/build`, `work[3]/build`, and deeper).
 */
export function nodeById(graph: Pick<Graph, 'nodes'>, id: string): GraphNode | undefined {
  const own = graph.nodes.find((n) => n.id === id);
  if (own) return own;
  const inScope = parseChildId(id);
  if (inScope) {
    const scope = nodeById(graph, inScope.scope);
    const child = scope?.subgraph && nodeById(scope.subgraph.graph, inScope.child);
    return child ? childNode(scope!, child) : undefined;
  }
  if (!id.endsWith(']')) return undefined;
  const named = parseInstanceId(id);
  const parent = named && graph.nodes.find((n) => n.id === named.parent);
  return parent?.for_each ? instanceNode(parent, named!.key) : undefined;
}

/** The approach for an attempt that follows `failures` failed attempts. */
export function approachFor(node: GraphNode, failures: number): Approach {
  return node.approaches[Math.min(failures, node.approaches.length - 1)]!;
}
