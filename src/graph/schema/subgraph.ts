/**
 * Sub-graphs (issue 28): `graph: <path>` makes a node run another graph file inside this run. Its nodes are named
 * `<node>/<child>` (`review/build`; with `for_each`, `work[3]/build`), each dispatched, recorded, held and approved
 * like any node; the node completes when they all have. The child file is read when the graph loads, so its hash
 * is part of this graph's, and it is journaled with the expansion. The field, its rules, the node a child runs
 * as, and the reading of the child file (the loader's part) are here.
 */
import * as z from 'zod';
import type { SourceError } from '../errors.js';
import { errorAt, type Path, type SourceDoc } from '../load/source.js';
import type { Graph, GraphNode } from '../model.js';
import { ID_PATTERN } from './check.js';
import { parseInstanceId } from './for-each.js';
import type { NodeFile } from './schema.js';

/** A sub-graph's file, as `graph:` names it: beside the graph or below it, never above, never absolute. */
export const SUBGRAPH_PATH = /^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9_][A-Za-z0-9._/-]*\.(?:ya?ml|json)$/;
/** A `graph:` path without a leading `./`, which names the same file. */
export function relativeGraph(path: string): string {
  return path.replace(/^(\.\/)+/, '');
}

/** How deep sub-graphs may nest (a sub-graph's own `graph:` nodes count one more level each). */
export const MAX_SUBGRAPH_DEPTH = 4;

export const subgraphFields = {
  graph: z.string().min(1).optional().register(z.globalRegistry, {
    description:
      "Another graph file this node runs inside this run, a path relative to this graph's folder (`review.yml`, `graphs/review.yml`; never `..`). Its nodes are named `<node>/<child>` (`review/build`) and run, are held and approved like any node, under their own graph's `approvals:` after this graph's; the node completes when they all have, and its outputs are theirs (a later node's output of the same name wins). With `for_each`, one sub-graph per item (`work[3]/build`), whose nodes read the item as `item`. The file is read when the graph loads: its hash is part of this graph's and is journaled when the node expands.",
  }),
};

/** A node's sub-graph as the loaded graph holds it; `graph` is left out of the graph hash (graph-hash.ts). */
export interface Subgraph {
  path: string;
  /** The child graph's own hash (`sha256:`): what `NodeExpanded.graph.hash` journals. */
  hash: string;
  graph: Graph;
}

/** What a `graph:` node may set besides it: where it sits, how it fans out and loops, and who approves. */
const SUBGRAPH_NODE_FIELDS = new Set([
  'id',
  'description',
  'depends_on',
  'graph',
  'for_each',
  'key',
  'max_parallel',
  'max_items',
  'tolerated_failures',
  'repeat',
  'approvals',
]);

/** A `graph:` node runs nothing of its own: no command, prompt, checks or effect (its child nodes have them). */
export function checkSubgraphNode(
  src: SourceDoc,
  n: NodeFile,
  at: (...rest: Path) => Path,
  errors: SourceError[],
): void {
  if (n.graph === undefined) return;
  for (const key of Object.keys(n))
    if (!SUBGRAPH_NODE_FIELDS.has(key) && (n as Record<string, unknown>)[key] !== undefined)
      errors.push(
        errorAt(
          src,
          at(key),
          `node "${n.id}" has both "graph" and "${key}": a sub-graph node runs its child graph's nodes, which carry their own ${key === 'outputs' ? 'outputs (the node gives theirs)' : 'work and checks'}; move "${key}" into ${n.graph}`,
          true,
        ),
      );
  if (!SUBGRAPH_PATH.test(relativeGraph(n.graph)))
    errors.push(
      errorAt(
        src,
        at('graph'),
        `node "${n.id}" graph "${n.graph}" is not a graph file beside this one: give a relative path ending in .yml, .yaml or .json, without "..", e.g. review.yml`,
      ),
    );
}

/** The id a child node runs under in its parent's run: `review/build`, `work[3]/build`. */
function childId(scope: string, id: string): string {
  return `${scope}/${id}`;
}

/** The sub-graph node (or instance) and the child's own id a name holds (`work[3]/build`); undefined for others. */
export function parseChildId(id: string): { scope: string; child: string } | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { scope: id.slice(0, slash), child: id.slice(slash + 1) };
}

/**
 * The node a child of sub-graph node `scope` runs as: its own fields under `<scope>/<id>`, its edges to its
 * siblings renamed the same way, the parent's approval policies before its own; `scope` records where it sits.
 */
export function childNode(scope: GraphNode, child: GraphNode): GraphNode {
  const approvals = [...(scope.approvals ?? []), ...(child.approvals ?? [])];
  return {
    ...child,
    id: childId(scope.id, child.id),
    depends_on: child.depends_on.map((d) => childId(scope.id, d)),
    ...(approvals.length ? { approvals } : {}),
    ...(child.instance ? { instance: { ...child.instance, of: childId(scope.id, child.instance.of) } } : {}),
    scope: { of: scope.id, id: child.id },
  };
}

/** The child nodes of a sub-graph node, in their graph's order (each as `childNode` makes it). */
export function childNodes(scope: GraphNode): GraphNode[] {
  return scope.subgraph ? scope.subgraph.graph.nodes.map((c) => childNode(scope, c)) : [];
}

/**
 * A node's name as one file name: a sub-graph's `/` becomes `.` (`work[3].build-1.log`). No node id holds a `.`,
 * and an instance key holds no `/`, so two nodes never share one.
 */
export function fileNameOf(id: string): string {
  return id.replaceAll('/', '.');
}

/**
 * Whether `name` can name a node: an id (`build`), an instance (`work[3]`), or either inside sub-graph nodes
 * (`review/build`, `work[3]/build`), at most MAX_SUBGRAPH_DEPTH levels down. What commands accept.
 */
export function isNodeName(name: string): boolean {
  const parts = name.split('/');
  return (
    parts.length <= MAX_SUBGRAPH_DEPTH + 1 &&
    parts.every((p) => ID_PATTERN.test(p) || parseInstanceId(p) !== undefined)
  );
}

/**
 * The files of a graph's sub-graphs, at any depth, and the skills beside each, as paths relative to the
 * repository (`graphPath` is the run's graph's): what an effect may not change and an agent is told not to.
 */
export function subgraphFiles(graph: Pick<Graph, 'nodes'>, graphPath: string): string[] {
  const dir = graphPath.includes('/') ? graphPath.slice(0, graphPath.lastIndexOf('/')) : '';
  const out = new Set<string>();
  const visit = (nodes: readonly GraphNode[]) => {
    for (const n of nodes) {
      if (!n.subgraph) continue;
      const file = dir ? `${dir}/${n.subgraph.path}` : n.subgraph.path;
      out.add(file);
      const own = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
      out.add(own ? `${own}/skills/**` : 'skills/**');
      visit(n.subgraph.graph.nodes);
    }
  };
  visit(graph.nodes);
  return [...out];
}
