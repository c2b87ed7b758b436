// Files read from the repository's default branch: the configuration and the run's graph with its skills.
import { posix } from 'node:path';
import { CONFIG_PATH, parseConfig } from '../../config/load.js';
import { type Config, ConfigSchema } from '../../config/schema.js';
import { statusOf } from '../../github/status.js';
import { GraphError } from '../../graph/errors.js';
import { parseGraph } from '../../graph/load/load.js';
import type { Graph } from '../../graph/model.js';
import type { SourceText } from '../../graph/resolve.js';
import { MAX_SUBGRAPH_DEPTH } from '../../graph/schema/subgraph.js';
import { workspaceRelative } from '../../os/workspace-path.js';
import type { HandlerDeps } from '../deps.js';

/** A text file from the repository's default branch through the contents API; undefined when missing. */
export async function readRepoText(
  deps: Pick<HandlerDeps, 'octokit' | 'repo'>,
  path: string,
): Promise<string | undefined> {
  try {
    const r = await deps.octokit.rest.repos.getContent({ ...deps.repo, path });
    const file = r.data as { type?: string; content?: string; encoding?: string };
    if (Array.isArray(r.data) || file.type !== 'file') return undefined;
    if (file.encoding === 'base64' && file.content)
      return Buffer.from(file.content, 'base64').toString('utf8');
    return '';
  } catch (e) {
    if (statusOf(e) === 404) return undefined;
    throw e;
  }
}

/** `.github/interlock.yml` at the default branch, validated by the same schema as the routes; defaults when absent. */
export async function loadRepoConfig(deps: Pick<HandlerDeps, 'octokit' | 'repo'>): Promise<Config> {
  const text = await readRepoText(deps, CONFIG_PATH);
  return text === undefined ? ConfigSchema.parse({}) : parseConfig(CONFIG_PATH, text);
}

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
