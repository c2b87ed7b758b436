/**
 * The one check for a path that names a file in the workspace (a graph path from a journal, a route or an input):
 * no absolute path, no `..` out of the workspace, and, on disk, no symlink out of it. A journal can be written by
 * anyone who could write its branch, so its paths are untrusted. The Action and the CLI check on disk
 * (`confineToWorkspace`); the App reads through the contents API and checks the path alone (`workspaceRelative`).
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';

export class PathRefused extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    what = 'path',
  ) {
    super(
      `${what} ${JSON.stringify(path)} is refused: ${reason}; give a path inside the repository, relative to its root`,
    );
    this.name = 'PathRefused';
  }
}

/** The path, normalised and relative to the workspace root; throws PathRefused when it would leave it. */
export function workspaceRelative(path: string, what = 'path'): string {
  if (path.includes('\0')) throw new PathRefused(path, 'it holds a NUL byte', what);
  if (isAbsolute(path) || posix.isAbsolute(path)) throw new PathRefused(path, 'it is absolute', what);
  const clean = posix.normalize(path.replace(/\\/g, '/'));
  if (clean === '..' || clean.startsWith('../'))
    throw new PathRefused(path, 'its ".." leads out of the workspace', what);
  return clean.replace(/^\.\//, '');
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The absolute path of `path` in `workspace`, after the lexical check and, when it exists, its real path's. */
export function confineToWorkspace(workspace: string, path: string, what = 'path'): string {
  const full = resolve(workspace, workspaceRelative(path, what));
  if (!existsSync(full)) return full;
  const root = realpathSync(workspace);
  const real = realpathSync(full);
  if (!inside(root, real))
    throw new PathRefused(path, `it leads through a symlink to ${real}, outside the workspace`, what);
  return full;
}

/**
 * `path` as a person gave it on this machine (relative to the working directory `workspace`, or absolute) as the
 * path relative to the workspace that a journal records; PathRefused when it lies outside the workspace.
 */
export function relativeToWorkspace(workspace: string, path: string, what = 'path'): string {
  const full = resolve(workspace, path);
  if (!inside(resolve(workspace), full)) throw new PathRefused(path, 'it is outside the repository', what);
  return workspaceRelative(relative(resolve(workspace), full).split(sep).join('/') || '.', what);
}
