/** How a place in a graph or skill file is named in a message: `node "build" retry[0].run`, `defaults.agent`. */
import type { GraphFile } from '../schema/schema.js';
import type { Path } from './source.js';

/** The place at a path of a graph file, named by its node's id where it is inside a node. */
export function nodeWhere(data: GraphFile | undefined, path: Path): string {
  if (path[0] === 'nodes' && typeof path[1] === 'number') {
    const id = data?.nodes?.[path[1]]?.id;
    const rest = path.slice(2);
    // JSON quoting: an id that is not valid (a newline in it, say) must not break the one-error-a-line format.
    const label = typeof id === 'string' ? `node ${JSON.stringify(id)}` : `nodes[${path[1]}]`;
    return rest.length ? `${label} ${restString(rest)}` : label;
  }
  return path.length ? restString(path) : 'graph';
}

/** A path as `retry[0].run`. */
export function restString(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}
