/**
 * The graph's address (its `sha256:` hash) and the sorted key order of the approaches it is computed over.
 * Tests pin hashes: any change here that changes a byte of the hashed text is a change of every run's graph.
 */
import { createHash } from 'node:crypto';
import { sortedKeys } from './canonical.js';
import type { Approach, GraphNode } from './model.js';
import type { Budget } from './schema/budget.js';

/** What the graph's address is computed over. */
interface HashedGraph {
  name: string;
  description: string | undefined;
  /** The run's budget; undefined leaves the key out, so graphs without one keep the hash they had. */
  budget: Budget | undefined;
  nodes: readonly GraphNode[];
}

/**
 * The graph's address: sha256 of `canonicalJson({ budget, description, name, nodes })`, fed to the hash a node
 * at a time. The same bytes as the whole text, without a sorted copy of every node and a text of megabytes alive
 * at once (their garbage collection was most of the time it took to load a large graph). parseGraph builds
 * nodes, approaches and budgets with their keys in sorted order, so only the checks, written by hand, need
 * sorting here.
 */
export function graphHash({ name, description, budget, nodes }: HashedGraph): string {
  const hash = createHash('sha256');
  // Keys in sorted order, as canonicalJson writes them; an undefined budget or description is left out, as
  // JSON.stringify leaves it out.
  hash.update(
    `{${budget !== undefined ? `"budget":${JSON.stringify(budget)},` : ''}${description !== undefined ? `"description":${JSON.stringify(description)},` : ''}"name":${JSON.stringify(name)},"nodes":[`,
  );
  nodes.forEach((node, i) => {
    const text = JSON.stringify(hashedNode(node));
    hash.update(i === 0 ? text : `,${text}`);
  });
  hash.update(']}');
  return `sha256:${hash.digest('hex')}`;
}

/** A node as the hash reads it: checks sorted, and a sub-graph by its path and hash (its nodes are in the hash). */
function hashedNode(node: GraphNode): unknown {
  const sorted = node.validates.length ? { ...node, validates: sortedKeys(node.validates) } : node;
  if (!node.subgraph) return sorted;
  return { ...sorted, subgraph: { hash: node.subgraph.hash, path: node.subgraph.path } };
}

/** Every field an approach can have, in sorted order. */
const APPROACH_KEYS = [
  'agent',
  'description',
  'engine',
  'env',
  'label',
  'prompt',
  'run',
  'skill',
  'timeout_minutes',
] as const satisfies ReadonlyArray<keyof Approach>;
/** Fails to compile when Approach gains a field APPROACH_KEYS does not list (it would be left out of the hash). */
type NoneMissing<Missing extends never> = Missing;
type _ApproachKeysListed = NoneMissing<Exclude<keyof Approach, (typeof APPROACH_KEYS)[number]>>;

/** The approach with its undefined fields left out and its keys (and its env's) in sorted order. */
export function sortedApproach(a: Approach): Approach {
  const out: Record<string, unknown> = {};
  for (const key of APPROACH_KEYS) {
    const value = a[key];
    if (value !== undefined) out[key] = key === 'env' ? sortedKeys(value) : value;
  }
  return out as unknown as Approach;
}
