/** Reading a graph file and the skills beside it from disk: the shell's side of the pure graph loader. */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GraphError } from '../../graph/errors.js';
import { parseGraph } from '../../graph/load/load.js';
import type { GraphReader } from '../../graph/load/subgraph.js';
import type { Graph } from '../../graph/model.js';
import type { SourceText } from '../../graph/resolve.js';
import { NodeFileError, readCheckoutFile } from '../../os/node-user/node-files.js';

/** Reads a graph file and the skills beside it. Throws GraphError on any problem. */
export function loadGraphFile(path: string): Graph {
  let text: string;
  try {
    text = readCheckoutFile(path, path);
  } catch (e) {
    const why = e instanceof NodeFileError ? (e.code ?? e.why) : String(e);
    throw new GraphError([{ file: path, line: 1, col: 1, message: `cannot read the graph file: ${why}` }]);
  }
  return parseGraph({ path, text }, (name) => readSkillFile(dirname(path), name), {
    readGraph: subgraphReader(dirname(path)),
  });
}

/**
 * Reads a sub-graph's file and the skills beside it; only a file inside the run's graph folder (`root`), even
 * through a symbolic link, so a `graph:` path never reads a file elsewhere on the machine.
 */
function subgraphReader(root: string): GraphReader {
  return (path) => {
    let text: string;
    try {
      const real = realpathSync(path);
      const folder = realpathSync(root);
      if (!real.startsWith(`${folder}/`))
        return {
          problem: `${path} is a link to ${real}, outside ${folder}: a sub-graph is a file of the graph's own folder; copy it there`,
        };
      text = readCheckoutFile(real, path);
    } catch (e) {
      if (e instanceof NodeFileError) return { problem: e.message };
      return undefined;
    }
    return { source: { path, text }, readSkill: (name) => readSkillFile(dirname(path), name) };
  };
}

function readSkillFile(dir: string, name: string): SourceText | undefined {
  for (const ext of ['yml', 'yaml', 'json']) {
    const p = join(dir, 'skills', `${name}.${ext}`);
    if (existsSync(p)) return { path: p, text: readCheckoutFile(p, p) };
  }
  return undefined;
}
