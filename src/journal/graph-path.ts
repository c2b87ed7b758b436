/**
 * The graph path a journal names, to read the graph by. Every face writes it relative to the repository (the CLI
 * through `relativeToWorkspace`, src/os/workspace-path.ts). The CLI of releases up to 2026-12-06 wrote the
 * header's path as an absolute path after a command given `--allow-graph-change` (of the folder it ran in, which
 * may since have moved); such a path that ends with the relative path `RunStarted` recorded names that file, so
 * that one is read. Pure: any other path is returned as written, for the face's workspace check to accept or
 * refuse.
 */
import type { Journal } from './events/events.js';

/** An absolute path, on either kind of system: `/…`, `\\…` or a drive letter. */
export function absolutePath(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(path);
}

export function journalGraphPath(journal: Journal): string {
  const path = journal.graph.path;
  if (!absolutePath(path)) return path;
  const started = journal.events[0]?.type === 'RunStarted' ? journal.events[0].graph.path : undefined;
  if (!started || absolutePath(started)) return path;
  const tail = started.replace(/^\.\//, '');
  return path.replace(/\\/g, '/').endsWith(`/${tail}`) ? tail : path;
}
