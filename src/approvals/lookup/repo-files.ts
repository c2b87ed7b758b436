// The run's graph with its skills and sub-graphs, read from the repository's default branch.
import { posix } from 'node:path';
import { readDefaultBranchText } from '../../github/repo-text.js';
import { GraphError } from '../../graph/errors.js';
import { parseGraph } from '../../graph/load/load.js';
import type { Graph } from '../../graph/model.js';
import type { SourceText } from '../../graph/resolve.js';
import { MAX_SUBGRAPH_DEPTH } from '../../graph/schema/subgraph.js';
import { workspaceRelative } from '../../os/workspace-path.js';
import type { HandlerDeps } from '../deps.js';

const readRepoText = (deps: Pick<HandlerDeps, 'octokit' | 'repo'>, path: string) =>
  readDefaultBranchText(deps.octokit, deps.repo, path);

/**
 * The graph the journal names, read at the default branch with the skills and sub-graphs beside it. Files are
 * fetched after a parse names them (so only the files the graph uses are read), a level of sub-graphs a pass.
 * Throws GraphError.
 */
export async function loadRepoGraph(deps: HandlerDeps, path: string): Promise<Graph> {
  const fail = (message: string): never => {
    throw new GraphError([{ file: path, line: 1, col: 1, message }]);
  };
  let file: string;
  try {
    file = workspaceRelative(path, "the journal's graph path");
  } catch (e) {
    return fail((e as Error).message);
  }
  const text = await readRepoText(deps, file);
  if (text === undefined) return fail(`no graph file at ${file} on the default branch`);
  // Each path once: its text, or null when the default branch has no such file.
  const files = new Map<string, string | null>();
  const wanted = new Set<string>();
  const read = (p: string): SourceText | undefined => {
    if (!files.has(p)) wanted.add(p);
    const t = files.get(p);
    return typeof t === 'string' ? { path: p, text: t } : undefined;
  };
  const skillsIn = (dir: string) => (name: string) => {
    // One extension a pass, in order, as the disk loader tries them.
    for (const ext of ['yml', 'yaml', 'json']) {
      const p = posix.join(dir, 'skills', `${name}.${ext}`);
      if (!files.has(p) || files.get(p) !== null) return read(p);
    }
    return undefined;
  };
  const readGraph = (p: string) => {
    const source = read(p);
    return source ? { source, readSkill: skillsIn(posix.dirname(p)) } : undefined;
  };
  for (let pass = 0; ; pass++) {
    wanted.clear();
    try {
      return {
        ...parseGraph({ path: file, text }, skillsIn(posix.dirname(file)), { readGraph }),
        path: file,
      };
    } catch (e) {
      if (!(e instanceof GraphError) || wanted.size === 0 || pass > MAX_SUBGRAPH_DEPTH + 3) throw e;
    }
    for (const p of wanted) files.set(p, (await readRepoText(deps, p)) ?? null);
  }
}
