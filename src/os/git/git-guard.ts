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
import { closeSync, existsSync, lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Snapshot, take } from './git-copy.js';
import { findGitFolders } from './git-found.js';
import { type Entry, gitdirOf } from './git-snapshot.js';
import { identityAt, openFolder, restoreAt, restoreRoot } from './git-walk.js';

interface Guard {
  workspace: string;
  snapshot: Snapshot;
  warn: (message: string) => void;
  /** Where the copy is kept for the job's later steps; rewritten when a git folder is met or gone. */
  file?: string | undefined;
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
    if (!kept.folders || !kept.tops)
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
  active = { workspace, snapshot, warn: opts.warn, file };
}

/** The folder of `folders` that `root` is put back in: the deepest that holds it. */
function folderOf(folders: string[], root: string): string {
  return folders
    .filter((f) => root.startsWith(f === '/' ? '/' : `${f}/`))
    .reduce((a, b) => (b.length > a.length ? b : a));
}

/** Drops a git folder a node made, and what the copy holds below it, from the copy. */
function forget(snapshot: Snapshot, folder: string): void {
  delete snapshot.folders[folder];
  for (const root of Object.keys(snapshot.roots))
    if (root.startsWith(`${folder}/`)) delete snapshot.roots[root];
  snapshot.made = snapshot.made?.filter((f) => f !== folder);
}

/**
 * Opens each of `folders` from `/`, never through a link, and checks it is the folder the copy was made in;
 * throws ReplacedGitError naming the first that is not (nothing is put back then). A git folder a node made and
 * then removed (`git worktree remove`), with nothing in its place, is forgotten; whether any was.
 */
function holdFolders(snapshot: Snapshot, folders: string[], held: Map<string, number>): boolean {
  let forgot = false;
  for (const folder of folders) {
    const id = snapshot.folders[folder]!;
    let fd: number | undefined;
    try {
      fd = openFolder(folder);
    } catch (e) {
      // missing, or a link or a file on the way
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && snapshot.made?.includes(folder)) {
        forget(snapshot, folder);
        forgot = true;
        continue;
      }
    }
    if (fd !== undefined) held.set(folder, fd);
    const now = fd === undefined ? undefined : identityAt(fd);
    if (!now || now.dev !== id.dev || now.ino !== id.ino)
      throw new ReplacedGitError(
        `${folder} is not the git folder interlock saw ${snapshot.made?.includes(folder) ? 'when it was first met (a git folder a node made)' : "when this job's first interlock step began"} (a node moved, replaced or removed it, or put a link on the way to it): interlock puts nothing back through it and its configuration and hooks cannot be trusted, so nothing more runs in this checkout`,
      );
  }
  return forgot;
}

/**
 * Records every git folder below the held top folders the copy does not hold yet (a node made it: a submodule's,
 * a worktree's), as it is now, and holds it like the rest; the folders met.
 */
function learn(snapshot: Snapshot, held: Map<string, number>): string[] {
  const met: string[] = [];
  for (const top of snapshot.tops) {
    const fd = held.get(top);
    if (fd === undefined) continue;
    for (const f of findGitFolders(fd, top, (p) => p in snapshot.folders)) {
      snapshot.folders[f.folder] = f.identity;
      Object.assign(snapshot.roots, f.roots);
      snapshot.made = [...(snapshot.made ?? []), f.folder];
      met.push(f.folder);
    }
  }
  holdFolders(snapshot, met, held);
  return met;
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
    const forgot = holdFolders(g.snapshot, Object.keys(g.snapshot.folders), held);
    const met = learn(g.snapshot, held);
    if ((forgot || met.length) && g.file) writeFileSync(g.file, JSON.stringify(g.snapshot), { mode: 0o600 });
    if (met.length)
      g.warn(
        `guarding ${met.map((p) => p.replace(`${g.workspace}/`, '')).join(', ')} as ${met.length === 1 ? 'it is' : 'they are'} now: git folders made since this job's first interlock step (SECURITY.md)`,
      );
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
