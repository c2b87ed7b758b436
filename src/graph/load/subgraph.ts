/**
 * The loader's part of sub-graphs (issue 28): reading the file a `graph:` node names, beside the graph that
 * names it, and loading it with the same rules (its own skills beside it), refusing a graph that includes itself
 * and nesting past MAX_SUBGRAPH_DEPTH. The child's errors are reported with its own file, line and column.
 */
import { posix } from 'node:path';
import { GraphError } from '../errors.js';
import type { Graph, GraphNode } from '../model.js';
import type { SkillReader, SourceText } from '../resolve.js';
import type { Report } from '../rules.js';
import type { NodeFile } from '../schema/schema.js';
import { MAX_SUBGRAPH_DEPTH, relativeGraph, SUBGRAPH_PATH } from '../schema/subgraph.js';
import { errorAt, type Path } from './source.js';

/** Reads a sub-graph's file at `path` (joined to the folder of the graph naming it), with the skills beside it. */
export type GraphReader = (
  path: string,
) => { source: SourceText; readSkill: SkillReader } | { problem: string } | undefined;

/** Where a graph is loaded: the files that include it, down from the run's own, and how to read another. */
export interface Within {
  /** The paths of the graphs that include this one, the run's own first (and this one's last). */
  stack: string[];
  /** Whether its nodes run once per item of an enclosing `for_each` (so they may read `item` and `index`). */
  item: boolean;
  readGraph?: GraphReader;
}

/** The graph loader, passed in to load the child with the same rules (load.ts calls this). */
type LoadGraph = (source: SourceText, readSkill: SkillReader, within: Within) => Graph;

/** The node's sub-graph, loaded; nothing without `graph:` (so such graphs hash as before) or when it fails. */
export function subgraphField(
  r: Report,
  n: NodeFile,
  at: (...rest: Path) => Path,
  within: Within,
  load: LoadGraph,
): Pick<GraphNode, 'subgraph'> {
  if (n.graph === undefined || !SUBGRAPH_PATH.test(relativeGraph(n.graph))) return {};
  const fail = (message: string) => {
    r.errors.push(errorAt(r.src, at('graph'), `node "${n.id}" graph "${n.graph}": ${message}`));
    return {};
  };
  const path = posix.join(posix.dirname(r.src.file), relativeGraph(n.graph));
  if (within.stack.includes(path))
    return fail(
      `${[...within.stack, path].join(' includes ')}: a graph cannot include itself; remove one graph:`,
    );
  if (within.stack.length > MAX_SUBGRAPH_DEPTH)
    return fail(
      `sub-graphs nest more than ${MAX_SUBGRAPH_DEPTH} deep (${within.stack.join(' > ')}): flatten one level`,
    );
  const read = within.readGraph?.(path);
  if (!read)
    return fail(
      `no graph file at ${path}: create it, or fix the path (it is relative to ${posix.dirname(r.src.file)})`,
    );
  if ('problem' in read) return fail(read.problem);
  try {
    const graph = load(read.source, read.readSkill, {
      ...within,
      stack: [...within.stack, path],
      item: within.item || n.for_each !== undefined,
    });
    // A session is a conversation of the run's own graph's nodes (protocol/engines/sessions.ts): not scoped per sub-graph.
    const talking = graph.nodes.find((c) => c.session);
    if (talking)
      return fail(
        `its node "${talking.id}" continues a session, which a sub-graph's nodes cannot (a session is a conversation of the run's own graph, and a sub-graph may run once per item, in parallel): drop session there, or move the node into this graph`,
      );
    // Recorded relative to the run's own graph (hashed and journaled): the same on every machine and checkout.
    const named = posix.relative(posix.dirname(within.stack[0]!), path);
    return { subgraph: { graph: { ...graph, path: named }, hash: graph.hash, path: named } };
  } catch (e) {
    if (!(e instanceof GraphError)) throw e;
    r.errors.push(...e.errors);
    return fail(`${path} has ${e.errors.length} problem(s), listed with its own lines`);
  }
}
