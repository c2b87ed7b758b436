/**
 * Whether the `node-credentials` input fits the graph: a secret granted to a node the graph does not have would
 * silently reach no node (a misspelt grant), so the step refuses it, naming the graph's nodes.
 */
import { suggestion } from './errors.js';

/** Why these grants (secret name to the nodes given it) do not fit the graph's nodes; undefined when they fit. */
export function grantsMisfit(
  grants: ReadonlyMap<string, ReadonlySet<string> | 'all'>,
  graphNodes: readonly string[],
): string | undefined {
  const known = new Set(graphNodes);
  const wrong: string[] = [];
  for (const [name, nodes] of grants) {
    if (nodes === 'all') continue;
    for (const n of nodes)
      if (!known.has(n))
        wrong.push(`${name}=${n}: "${n}" is not a node of this graph${suggestion(n, graphNodes)}`);
  }
  if (!wrong.length) return undefined;
  return `node-credentials: ${wrong.join('; ')}. The graph's nodes: ${graphNodes.join(', ')}`;
}
