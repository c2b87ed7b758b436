/**
 * Which paths of a change an effect may not write: those matching a protected pattern (`.github/interlock.yml`'s
 * `protected_paths`, the run's graph, its sub-graphs' files and the skills beside each: `runProtectedPaths`, the
 * one list) that the node does not name in `allow_protected_paths`.
 * Patterns: `**` any number of folders, `*` any characters within one name, `?` one character.
 */
import type { Graph } from '../../graph/model.js';
import { subgraphFiles } from '../../graph/schema/subgraph.js';

/** `protected_paths` when the repository sets none (and where no repository setting is read: the CLI). */
export const DEFAULT_PROTECTED_PATHS = ['.github/**'] as const;

/**
 * Every pattern an effect of this run may not change: the repository's `protected_paths` (the Action reads them
 * from the default branch, never the checkout a node may have edited), the run's graph, its sub-graphs' files
 * (issue 28) and the skills beside each, wherever they are.
 */
export function runProtectedPaths(
  graph: Pick<Graph, 'nodes' | 'path'>,
  configured: readonly string[] = DEFAULT_PROTECTED_PATHS,
): string[] {
  const dir = graph.path.includes('/') ? graph.path.slice(0, graph.path.lastIndexOf('/')) : '';
  const own = [graph.path, dir ? `${dir}/skills/**` : 'skills/**'];
  return [...new Set([...configured, ...own, ...subgraphFiles(graph, graph.path)])];
}

/** A pattern as a regular expression over a path relative to the repository root. */
export function patternRegExp(pattern: string): RegExp {
  let out = '';
  const p = pattern.replace(/^\.?\//, '');
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      // `**/` is any folders (none included); a trailing `**` is everything below.
      if (p[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** The changed paths a protected pattern matches and no allowed pattern does, in the order given. */
export function protectedChanges(
  paths: readonly string[],
  protectedPatterns: readonly string[],
  allowed: readonly string[],
): string[] {
  const prot = protectedPatterns.map(patternRegExp);
  const ok = allowed.map(patternRegExp);
  return paths.filter((p) => prot.some((r) => r.test(p)) && !ok.some((r) => r.test(p)));
}
