/**
 * The repository's git configuration stays the repository's. Git runs what its configuration names (`core.fsmonitor`,
 * `core.hooksPath`, hooks, `credential.helper`, filters, textconv, aliases, `include` …), and a node can write
 * `.git/`: so a node could plant a command that runs in a later node holding a secret, or in interlock's own git.
 * The guard keeps a copy of everything git reads and runs from `.git/` (the config and every file it includes,
 * `config.worktree`, `commondir`, `hooks/`, `info/`, the same for each submodule's git directory) as it was when
 * the first interlock step of the job reached the checkout, and puts it back before every node command, every
 * `command` check and every git interlock runs itself; each change it undoes is reported. A checkout whose `.git`
 * was replaced (another directory, or a link to one) is refused: nothing git would read there can be trusted.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { childProcess } from '../lazy.js';
import { nodeUser } from '../node-user/node-user.js';
import { type Entry, gitdirOf, guardedPaths, MAX_GUARDED_BYTES, read, same } from './git-snapshot.js';

interface Snapshot {
  /** The checkout's `.git` when the copy was made: a directory's device and inode, or a gitdir link's text. */
  gitdir: string;
  identity: { dev: number; ino: number };
  /** The commit checked out then: what an effect's change is read against (src/runner/effects/change.ts). */
  head?: string;
  /** Each guarded path (absolute) to what it held; null: it did not exist. */
  roots: Record<string, Record<string, Entry> | null>;
}

interface Guard {
  workspace: string;
  snapshot: Snapshot;
  warn: (message: string) => void;
}

let active: Guard | undefined;

/** Thrown when the checkout's `.git` is not the one the guard copied: the attempt and the step stop. */
export class ReplacedGitError extends Error {}

/** Removes a path this process may not remove alone (a node user's tree through sudo). */
function remove(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch (e) {
    if (nodeUser()?.via !== 'sudo') throw e;
    childProcess().execFileSync('sudo', ['-n', 'rm', '-rf', '--', path], { stdio: 'ignore' });
  }
}

const { O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code;

/**
 * Puts one entry back at `path`, never through a link a node may have planted there: a file is created anew
 * (what is in its place unlinked first, which never follows a link; then O_CREAT|O_EXCL|O_NOFOLLOW) and its mode
 * set through the descriptor; a folder is made, then opened with O_NOFOLLOW|O_DIRECTORY and its mode set
 * through that descriptor (a link or a file in its place: the open fails, and the restore with it).
 */
export function restoreEntry(path: string, entry: Entry): void {
  if (entry.kind === 'dir') {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw e;
    }
    const fd = openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      fchmodSync(fd, entry.mode & 0o7777);
    } finally {
      closeSync(fd);
    }
    return;
  }
  try {
    unlinkSync(path);
  } catch (e) {
    if (codeOf(e) !== 'ENOENT') throw e;
  }
  if (entry.kind === 'link') {
    symlinkSync(entry.target, path);
    return;
  }
  if (entry.kind === 'unread')
    throw new Error(
      `${path}: the guard kept no copy of it (${entry.size < 0 ? 'not a regular file' : `${entry.size} bytes, over ${MAX_GUARDED_BYTES}`} when the checkout was first seen): remove it from the checkout's .git`,
    );
  const fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    writeFileSync(fd, Buffer.from(entry.data, 'base64'));
    fchmodSync(fd, entry.mode & 0o777);
  } finally {
    closeSync(fd);
  }
}

/** Puts one guarded path back as the snapshot holds it; the paths it changed. */
function restoreRoot(root: string, want: Record<string, Entry> | null): string[] {
  const have = read(root) ?? {};
  const wanted = want ?? {};
  const changed: string[] = [];
  // What is not as it was goes first, deepest first; a directory that is still wanted stays.
  for (const p of Object.keys(have).sort((a, b) => b.length - a.length)) {
    const h = have[p]!;
    const w = wanted[p];
    // An entry the copy could not read (too big, not a file) is left as it is while it stays so.
    if (w && (same(h, w) || (h.kind === w.kind && (h.kind === 'dir' || h.kind === 'unread')))) continue;
    if (!exists(p)) continue;
    remove(p);
    changed.push(p);
  }
  // Then what is missing, shallowest first, so each directory is there before what it holds.
  for (const p of Object.keys(wanted).sort((a, b) => a.length - b.length)) {
    if (exists(p)) continue;
    restoreEntry(p, wanted[p]!);
    changed.push(p);
  }
  // One name per change: a path inside another changed one is part of it.
  return [...new Set(changed)].filter((p) => !changed.some((q) => q !== p && p.startsWith(`${q}/`)));
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function identityOf(gitdir: string): { dev: number; ino: number } {
  const st = lstatSync(gitdir);
  return { dev: st.dev, ino: st.ino };
}

function take(workspace: string): Snapshot | undefined {
  const gitdir = gitdirOf(workspace);
  if (!gitdir || !exists(gitdir)) return undefined;
  const roots: Snapshot['roots'] = {};
  for (const p of guardedPaths(gitdir)) roots[p] = read(p);
  const dotgit = join(workspace, '.git');
  if (lstatSync(dotgit).isFile()) roots[dotgit] = read(dotgit);
  let head: string | undefined;
  try {
    head = childProcess()
      .execFileSync(
        'git',
        ['--no-pager', '-c', 'core.fsmonitor=false', 'rev-parse', '--verify', 'HEAD^{commit}'],
        {
          cwd: workspace,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      )
      .trim();
  } catch {
    // a repository with no commit yet
  }
  return { gitdir, identity: identityOf(gitdir), roots, ...(head ? { head } : {}) };
}

export interface GuardOptions {
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
    const gitdir = gitdirOf(workspace);
    const now = gitdir && exists(gitdir) ? lstatSync(gitdir) : undefined;
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

/**
 * Puts back what git reads and runs from the guarded checkout's `.git` before graph code or interlock's own git
 * runs; reports what it undid. Throws ReplacedGitError when `.git` itself is no longer the one copied.
 */
export function restoreCheckout(): void {
  const g = active;
  if (!g) return;
  const gitdir = gitdirOf(g.workspace);
  const now = gitdir && exists(gitdir) ? identityOf(gitdir) : undefined;
  if (
    gitdir !== g.snapshot.gitdir ||
    !now ||
    now.dev !== g.snapshot.identity.dev ||
    now.ino !== g.snapshot.identity.ino
  )
    throw new ReplacedGitError(
      `${join(g.workspace, '.git')} is not the git directory interlock saw when this job's first interlock step began (a node moved, replaced or removed it): its configuration and hooks cannot be trusted, so nothing more runs in this checkout`,
    );
  const changed: string[] = [];
  for (const [root, want] of Object.entries(g.snapshot.roots)) changed.push(...restoreRoot(root, want));
  if (changed.length)
    g.warn(
      `put back ${changed.map((p) => p.replace(`${g.workspace}/`, '')).join(', ')} as they were when this job's first interlock step began: a node changed what git reads or runs from .git/, which stays the repository's (SECURITY.md)`,
    );
}

/** The commit the guarded checkout was at when the job's first interlock step reached it. */
export function checkoutHead(): string | undefined {
  return active?.snapshot.head;
}
