/**
 * Git folders the guard meets after its first copy: a submodule's (`modules/…`, nested ones too, at any depth) or a
 * linked worktree's (`worktrees/*`) that a node made, or one the first copy's bounded walk did not reach. Each is
 * found from a git folder the guard holds open, through descriptors, never through a link (a link in the place of
 * `modules`, of a folder on the way or of the git folder itself is not entered); its identity and what it holds
 * (config, config.worktree, commondir, hooks, info) are recorded as they are when it is first met, and from then on
 * it is reached from `/` and compared before anything is put back, like the folders of the first copy.
 */
import { closeSync, readdirSync } from 'node:fs';
import type { Entry } from './git-snapshot.js';
import { existsAt, folderAt, type Identity, identityAt, openDirAt, readAt } from './git-walk.js';

/** What git reads and runs from one git folder (the paths the guard keeps, below it). */
const GUARDED_NAMES = ['config', 'config.worktree', 'commondir', 'hooks', 'info'];

/**
 * The most folders the guard walks below one repository's git folder to find git folders (a submodule's path has
 * a folder per component); more is refused, not skipped.
 */
const MAX_WALKED = 10_000;
/** How deep below `modules/` a submodule's git folder may sit (its path's components, nesting included). */
const MAX_LEVELS = 12;

interface FoundFolder {
  folder: string;
  identity: Identity;
  /** Each guarded path below it (absolute) to what it holds now; null: nothing is there. */
  roots: Record<string, Record<string, Entry> | null>;
}

function tryOpen(fd: number, name: string): number | undefined {
  try {
    return openDirAt(fd, name);
  } catch {
    return undefined; // missing, a link or a file: not entered
  }
}

/** Calls `fn` with the folder `name` of the folder `fd` opened without following a link, when it is one. */
function within(fd: number, name: string, fn: (d: number) => void): void {
  const d = tryOpen(fd, name);
  if (d === undefined) return;
  try {
    fn(d);
  } finally {
    closeSync(d);
  }
}

const list = (fd: number) => readdirSync(folderAt(fd)).sort();

/**
 * Every git folder below the git folder held as `fd` (at the path `path`) that `known` does not hold, with what it
 * holds now. Throws when it would walk more than MAX_WALKED folders.
 */
export function findGitFolders(fd: number, path: string, known: (folder: string) => boolean): FoundFolder[] {
  const found: FoundFolder[] = [];
  let walked = 0;
  const count = () => {
    if (++walked > MAX_WALKED)
      throw new Error(
        `${path} holds more than ${MAX_WALKED} folders below modules/ and worktrees/: interlock looks for git folders in no more, so nothing more runs in this checkout`,
      );
  };
  const meet = (d: number, folder: string) => {
    if (!known(folder)) {
      const roots: FoundFolder['roots'] = {};
      for (const n of GUARDED_NAMES) roots[`${folder}/${n}`] = readAt(d, n);
      found.push({ folder, identity: identityAt(d), roots });
    }
    below(d, folder, 0);
  };
  // A submodule's git folder is `modules/<its path>`: folders on the way hold no HEAD.
  const modules = (dir: number, at: string, level: number) => {
    if (level > MAX_LEVELS) return;
    for (const e of list(dir))
      within(dir, e, (d) => {
        count();
        if (existsAt(d, 'HEAD')) meet(d, `${at}/${e}`);
        else modules(d, `${at}/${e}`, level + 1);
      });
  };
  const below = (dir: number, at: string, level: number) => {
    within(dir, 'modules', (m) => modules(m, `${at}/modules`, level));
    within(dir, 'worktrees', (w) => {
      for (const e of list(w))
        within(w, e, (d) => {
          count();
          if (existsAt(d, 'HEAD')) meet(d, `${at}/worktrees/${e}`);
        });
    });
  };
  below(fd, path, 0);
  return found;
}
