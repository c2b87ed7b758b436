/** What depends on a node: the node and every node that depends on it, transitively (rerun from a node, issue 28). */

/** The node and its transitive dependents, in declaration order. */
export function nodeAndDependents(
  nodes: readonly { id: string; depends_on: string[] }[],
  id: string,
): string[] {
  const marked = new Set([id]);
  // Declaration order is not dependency order in general, so go round until nothing more is marked.
  let grew = true;
  while (grew) {
    grew = false;
    for (const n of nodes)
      if (!marked.has(n.id) && n.depends_on.some((d) => marked.has(d))) {
        marked.add(n.id);
        grew = true;
      }
  }
  return nodes.filter((n) => marked.has(n.id)).map((n) => n.id);
}
