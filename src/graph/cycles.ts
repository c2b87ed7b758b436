/** The dependency-cycle search over `depends_on`: iterative, so a graph of any depth is searched. */

/** The first dependency cycle found, as a list of node ids, or undefined. Iterative: deep graphs are fine. */
export function findDependencyCycle(
  nodes: ReadonlyArray<{ id: string; depends_on?: string[] }>,
): string[] | undefined {
  const index = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (!index.has(n.id)) index.set(n.id, i);
  });
  // 0: not seen, 1: on the current path, 2: done. Nodes by their index; a repeated id is its first node.
  const state = new Uint8Array(nodes.length);
  const stack: number[] = [];
  const next: number[] = [];
  for (let start = 0; start < nodes.length; start++) {
    if (state[start] !== 0 || index.get(nodes[start]!.id) !== start) continue;
    stack.push(start);
    next.push(0);
    state[start] = 1;
    while (stack.length) {
      const top = stack.length - 1;
      const list = nodes[stack[top]!]!.depends_on ?? [];
      if (next[top]! >= list.length) {
        state[stack[top]!] = 2;
        stack.pop();
        next.pop();
        continue;
      }
      const dep = index.get(list[next[top]!++]!);
      if (dep === undefined) continue;
      if (state[dep] === 1) return stack.slice(stack.indexOf(dep)).map((i) => nodes[i]!.id);
      if (state[dep] === 0) {
        state[dep] = 1;
        stack.push(dep);
        next.push(0);
      }
    }
  }
  return undefined;
}
