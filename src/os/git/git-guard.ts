/**
 * The repository's git configuration stays the repository's. Git runs what its configuration names (`core.fsmonitor`,
 * `core.hooksPath`, hooks, `credential.helper`, filters, textconv, aliases, `include` …), and a node can write
 * `.git/`: so a node could plant a command that runs in a later node holding a secret, or in interlock's own git.
 * The guard keeps a copy of everything git reads and runs from `.git/` (the config and every file it includes,
 * `config.worktree`, `commondir`, `hooks/`, `info/`, the same for each submodule's git directory) as it was when
 * the first interlock step of the job reached the checkout, and puts it back before every node command, every
 * `command` check and every git interlock runs itself; each change it undoes is reported. A checkout whose `.git`
 * was replaced (another directory, or a link to one) is refused: nothing git would read there can be trusted. So is
 * one whose other git folders (a submodule's, the common folder) are not the folders copied: each is reached from
 * `/` without following a link and its device and inode compared before anything is put back, and everything is
 * put back from folders held open, never through a link (src/os/git/git-walk.ts).
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  lstatSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { childProcess } from '../lazy.js';
import { type Entry, gitdirOf, guardedPaths } from './git-snapshot.js';
import { type Identity, identityAt, openFolder, readAt, restoreAt, restoreRoot } from './git-walk.js';

interface Snapshot {
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
}

interface Guard {
  workspace: string;
  snapshot: Snapshot;
  warn: (message: string) => void;
}

let active: Guard | undefined;

/** Thrown when a git folder is not the one the guard copied: the attempt and the step stop. */
class ReplacedGitError extends Error {}

/**
 * Puts one entry back at `path` (a test's way in): its folder is reached from `/` without following a link, then
 * the entry is put back as restoreAt does.
 */
export function restoreEntry(path: string, entry: Entry): void {
  const fd = openFolder(realpathSync(dirname(path)));
  try {
    restoreAt(fd, basename(path), entry, path);
  } finally {
    closeSync(fd);
  }
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

function take(workspace: string): Snapshot | undefined {
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
  const st = lstatSync(gitdir);
  const head = headOf(workspace);
  return { gitdir, identity: { dev: st.dev, ino: st.ino }, roots, folders, ...(head ? { head } : {}) };
}

interface GuardOptions {
  /** The checkout nodes run in. */
  workspace: string;
  /**
   * A directory only this process's user can write (the job's RUNNER_TEMP): the copy is kept there, so every
   * interlock step of the job restores the one the first step made. Without it the copy lives in this process.
   */
  stateDir?: string | undefined;
  /** Told each time the guard undoes a change, and when it takes a new copy. */
  warn: (message: string) => void;
  /** The uid nodes run as, to tell a checkout a node replaced from one a workflow step made again. */
  nodeUid?: number | undefined;
}

function stateFile(stateDir: string, workspace: string): string {
  const workspaceHash = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  return join(stateDir, `interlock-git-guard-${workspaceHash}.json`);
}

/**
 * Starts guarding the checkout at `workspace`: takes the copy, or loads the one an earlier step of this job took.
 * Outside a git repository there is nothing to guard (a repository a node makes later is the node's own).
 */
export function guardCheckout(opts: GuardOptions): void {
  const workspace = realpathSync(opts.workspace);
  const file = opts.stateDir ? stateFile(opts.stateDir, workspace) : undefined;
  let snapshot: Snapshot | undefined;
  if (file && existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
    // A copy an older interlock made names no folders to check: nothing would be checked, so nothing is trusted.
    if (!kept.folders)
      throw new ReplacedGitError(
        `${file} was written by an older interlock, which recorded no git folders to check: run every interlock step of a job with the same version of the action`,
      );
    const gitdir = gitdirOf(workspace);
    const now = gitdir && existsSync(gitdir) ? lstatSync(gitdir) : undefined;
    if (now && now.dev === kept.identity.dev && now.ino === kept.identity.ino) snapshot = kept;
    // Nodes run as a user of their own: a new .git that is not the runner's own was made by a node, whichever node
    // user the step that made it held (another step on this machine may have held this step's).
    else if (now && opts.nodeUid !== undefined && now.uid !== process.getuid?.())
      throw new ReplacedGitError(
        `${join(workspace, '.git')} was replaced by the node user since this job's first interlock step: its configuration and hooks cannot be trusted, so no node runs in this checkout. Check out the repository again in a new job.`,
      );
    else if (now)
      opts.warn(`the checkout's .git is new since this job's last interlock step: guarding it as it is now`);
  }
  snapshot ??= take(workspace);
  if (file && snapshot) writeFileSync(file, JSON.stringify(snapshot), { mode: 0o600 });
  if (!snapshot) {
    active = undefined;
    return;
  }
  active = { workspace, snapshot, warn: opts.warn };
}

/** The folder of `folders` that `root` is put back in: the deepest that holds it. */
function folderOf(folders: string[], root: string): string {
  return folders
    .filter((f) => root.startsWith(f === '/' ? '/' : `${f}/`))
    .reduce((a, b) => (b.length > a.length ? b : a));
}

/**
 * Opens every guarded folder from `/`, never through a link, and checks it is the folder the copy was made in;
 * throws ReplacedGitError naming the first that is not (nothing is put back then).
 */
function holdFolders(snapshot: Snapshot, held: Map<string, number>): void {
  for (const [folder, id] of Object.entries(snapshot.folders)) {
    let fd: number | undefined;
    try {
      fd = openFolder(folder);
    } catch {
      // missing, or a link or a file on the way
    }
    if (fd !== undefined) held.set(folder, fd);
    const now = fd === undefined ? undefined : identityAt(fd);
    if (!now || now.dev !== id.dev || now.ino !== id.ino)
      throw new ReplacedGitError(
        `${folder} is not the git folder interlock saw when this job's first interlock step began (a node moved, replaced or removed it, or put a link on the way to it): interlock puts nothing back through it and its configuration and hooks cannot be trusted, so nothing more runs in this checkout`,
      );
  }
}

/**
 * Puts back what git reads and runs from the guarded checkout's git folders before graph code or interlock's own
 * git runs; reports what it undid. Throws ReplacedGitError when `.git`, or any git folder it guards, is no longer
 * the one copied.
 */
export function restoreCheckout(): void {
  const g = active;
  if (!g) return;
  const gitdir = gitdirOf(g.workspace);
  const now = gitdir && existsSync(gitdir) ? lstatSync(gitdir) : undefined;
  if (
    gitdir !== g.snapshot.gitdir ||
    !now ||
    now.dev !== g.snapshot.identity.dev ||
    now.ino !== g.snapshot.identity.ino
  )
    throw new ReplacedGitError(
      `${join(g.workspace, '.git')} is not the git directory interlock saw when this job's first interlock step began (a node moved, replaced or removed it): its configuration and hooks cannot be trusted, so nothing more runs in this checkout`,
    );
  const held = new Map<string, number>();
  const changed: string[] = [];
  try {
    holdFolders(g.snapshot, held);
    const folders = [...held.keys()];
    for (const [root, want] of Object.entries(g.snapshot.roots)) {
      const folder = folderOf(folders, root);
      const rel = root.slice(folder === '/' ? 1 : folder.length + 1).split('/');
      changed.push(...restoreRoot(held.get(folder)!, rel, root, want));
    }
  } finally {
    for (const fd of held.values()) closeSync(fd);
  }
  if (changed.length)
    g.warn(
      `put back ${changed.map((p) => p.replace(`${g.workspace}/`, '')).join(', ')} as they were when this job's first interlock step began: a node changed what git reads or runs from .git/, which stays the repository's (SECURITY.md)`,
    );
}

/** The commit the guarded checkout was at when the job's first interlock step reached it. */
export function checkoutHead(): string | undefined {
  return active?.snapshot.head;
}
