// Files read from the repository's default branch: the configuration and the run's graph with its skills.
import { posix } from 'node:path';
import { CONFIG_PATH, parseConfig } from '../../config/load.js';
import { type Config, ConfigSchema } from '../../config/schema.js';
import { statusOf } from '../../github/status.js';
import { GraphError } from '../../graph/errors.js';
import { parseGraph } from '../../graph/load.js';
import type { Graph } from '../../graph/model.js';
import type { SourceText } from '../../graph/resolve.js';
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
 * The graph the journal names, read at the default branch with the skills beside it. Skills are fetched after
 * a first parse names them, so only the files the graph uses are read. Throws GraphError.
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
  const wanted = new Set<string>();
  const skills = new Map<string, SourceText>();
  const readSkill = (name: string) => {
    wanted.add(name);
    return skills.get(name);
  };
  try {
    return { ...parseGraph({ path: file, text }, readSkill), path: file };
  } catch (e) {
    if (!(e instanceof GraphError) || wanted.size === 0) throw e;
  }
  for (const name of wanted) {
    for (const ext of ['yml', 'yaml', 'json']) {
      const p = posix.join(posix.dirname(file), 'skills', `${name}.${ext}`);
      const skill = await readRepoText(deps, p);
      if (skill !== undefined) {
        skills.set(name, { path: p, text: skill });
        break;
      }
    }
  }
  return { ...parseGraph({ path: file, text }, (name) => skills.get(name)), path: file };
}
