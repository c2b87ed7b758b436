/**
 * The guard's copy of a checkout's git folders: what git reads and runs from each, and each folder's identity, as
 * they were when the first interlock step of the job reached the checkout (src/os/git/git-guard.ts).
 */
import { closeSync, existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { childProcess } from '../lazy.js';
import { findGitFolders } from './git-found.js';
import { commonDirOf, type Entry, gitdirOf, guardedPaths } from './git-snapshot.js';
import { type Identity, identityAt, openFolder, readAt } from './git-walk.js';

export interface Snapshot {
  /** The checkout's `.git` when the copy was made: a directory's device and inode, or a gitdir link's text. */
  gitdir: string;
  identity: Identity;
  /** The commit checked out then: what an effect's change is read against (src/runner/effects/change.ts). */
  head?: string;
  /**
   * Each guarded path (absolute, through no link) to what it held, keyed by the path below it ('' for itself);
   * null: it did not exist.
   */
  roots: Record<string, Record<string, Entry> | null>;
  /**
   * Every folder a guarded path is put back in (`.git`, each submodule's git folder, nested ones too, a worktree's git
   * folder, the common folder; for a path whose folder did not exist, the nearest that did), with its identity
   * then. Each is reached again from `/` without following a link and must still be the same folder, before
   * anything is put back.
   */
  folders: Record<string, Identity>;
  /** The repository's git folder and its common folder (real paths): where new git folders are looked for. */
  tops: string[];
  /** The folders of `folders` first met after the first copy (src/os/git/git-found.ts): a node made them. */
  made?: string[];
}

/** The nearest folder that exists on the way to `path`, through no link, and the names from it to `path`. */
function anchorOf(path: string): { folder: string; rel: string[] } {
  const rel = [basename(path)];
  let dir = dirname(path);
  const isDir = (p: string) => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  while (!isDir(dir) && dir !== dirname(dir)) {
    rel.unshift(basename(dir));
    dir = dirname(dir);
  }
  return { folder: realpathSync(dir), rel };
}

function headOf(workspace: string): string | undefined {
  try {
    return childProcess()
      .execFileSync(
        'git',
        ['--no-pager', '-c', 'core.fsmonitor=false', 'rev-parse', '--verify', 'HEAD^{commit}'],
        { cwd: workspace, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      )
      .trim();
  } catch {
    return undefined; // a repository with no commit yet
  }
}

export function take(workspace: string): Snapshot | undefined {
  const gitdir = gitdirOf(workspace);
  if (!gitdir || !existsSync(gitdir)) return undefined;
  const paths = guardedPaths(gitdir);
  const dotgit = join(workspace, '.git');
  if (lstatSync(dotgit).isFile()) paths.push(dotgit);
  const roots: Snapshot['roots'] = {};
  const folders: Snapshot['folders'] = {};
  for (const p of paths) {
    const { folder, rel } = anchorOf(p);
    const root = join(folder, ...rel);
    if (root in roots) continue;
    const fd = openFolder(folder);
    try {
      folders[folder] = identityAt(fd);
      roots[root] = rel.length > 1 ? null : readAt(fd, rel[0]!);
    } finally {
      closeSync(fd);
    }
  }
  const common = commonDirOf(gitdir);
  const tops = [...new Set([gitdir, ...(common ? [common] : [])].map((p) => realpathSync(p)))];
  // Every git folder below them the bounded walk above did not reach (a worktree's, a deeply nested submodule's).
  for (const top of tops) {
    const fd = openFolder(top);
    try {
      for (const f of findGitFolders(fd, top, (p) => p in folders)) {
        folders[f.folder] = f.identity;
        Object.assign(roots, f.roots);
      }
    } finally {
      closeSync(fd);
    }
  }
  const st = lstatSync(gitdir);
  const head = headOf(workspace);
  return { gitdir, identity: { dev: st.dev, ino: st.ino }, roots, folders, tops, ...(head ? { head } : {}) };
}
