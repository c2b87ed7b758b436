/**
 * The git guard's hands: every change it makes to a git folder is made from a folder it holds open, reached from `/`
 * component by component, never through a link. Node has no openat: a name inside a folder held open as `fd` is
 * reached as `/proc/self/fd/<fd>/<name>`, where only `<name>` is looked up, in that very folder; each folder is
 * opened with O_NOFOLLOW|O_DIRECTORY (a link in its place fails with ELOOP, a file with ENOTDIR) and checked
 * with fstat. A node that moves a git folder away and puts a link to another one in its place makes the walk
 * fail; it never makes the guard write there. Without /proc (the CLI on macOS, where nodes never run as another
 * user) the path each folder was opened at stands in for its descriptor: each name is still opened with
 * O_NOFOLLOW, but a folder swapped between two steps of the walk is not caught there.
 */
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { childProcess } from '../lazy.js';
import { nodeUser } from '../node-user/node-user.js';
import { type Entry, MAX_GUARDED_BYTES, readBounded, same } from './git-snapshot.js';
import { restoreAsRoot } from './git-sudo.js';

/** A folder's device and inode: what tells the folder the guard copied from one a node put in its place. */
export interface Identity {
  dev: number;
  ino: number;
}

const { O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code;

const PROC = existsSync('/proc/self/fd');
/** Without /proc: the path each folder held open was opened at (a descriptor's entry is set when it is opened). */
const openedAt = new Map<number, string>();

/** The folder held open as `fd`, as a path to list or look a name up in. */
export const folderAt = (fd: number) => (PROC ? `/proc/self/fd/${fd}` : openedAt.get(fd)!);

/** The name `name` looked up in the folder held open as `fd`, and only there. */
const at = (fd: number, name: string) => `${folderAt(fd)}/${name}`;

/** Opens the folder `name` inside the folder held open as `fd`; a link or a file in its place throws. */
export function openDirAt(fd: number, name: string): number {
  const d = openSync(at(fd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (!fstatSync(d).isDirectory()) {
    closeSync(d);
    throw Object.assign(new Error(`${name}: not a folder`), { code: 'ENOTDIR' });
  }
  if (!PROC) openedAt.set(d, at(fd, name));
  return d;
}

/** Opens the folder at the absolute, link-free path `path`, walking from `/`; throws if any step is a link. */
export function openFolder(path: string): number {
  let fd = openSync('/', O_RDONLY | O_DIRECTORY);
  if (!PROC) openedAt.set(fd, '/');
  for (const name of path.split('/').filter(Boolean)) {
    let next: number;
    try {
      next = openDirAt(fd, name);
    } finally {
      closeSync(fd);
    }
    fd = next;
  }
  return fd;
}

/** The identity of the folder held open as `fd`. */
export function identityAt(fd: number): Identity {
  const st = fstatSync(fd);
  return { dev: st.dev, ino: st.ino };
}

/** Calls `fn` with the folder that holds the last of `parts` (walked from `fd`) and that last name. */
function inFolder<T>(fd: number, parts: string[], fn: (dir: number, name: string) => T): T {
  if (parts.length === 1) return fn(fd, parts[0]!);
  const d = openDirAt(fd, parts[0]!);
  try {
    return inFolder(d, parts.slice(1), fn);
  } finally {
    closeSync(d);
  }
}

/** Whether anything (a link included) is at `name` in the folder `fd`. */
export function existsAt(fd: number, name: string): boolean {
  try {
    lstatSync(at(fd, name));
    return true;
  } catch {
    return false;
  }
}

/**
 * What `name` in the folder `fd` holds, without following a link: every entry below it keyed by its path below
 * `name` ('' for itself); null when nothing is there.
 */
export function readAt(fd: number, name: string): Record<string, Entry> | null {
  const out: Record<string, Entry> = {};
  const visit = (dir: number, base: string, rel: string): boolean => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(at(dir, base));
    } catch {
      return false;
    }
    if (st.isSymbolicLink()) out[rel] = { kind: 'link', target: readlinkSync(at(dir, base)) };
    else if (st.isDirectory()) {
      out[rel] = { kind: 'dir', mode: st.mode & 0o7777 };
      const d = openDirAt(dir, base);
      try {
        for (const e of readdirSync(folderAt(d)).sort()) visit(d, e, rel ? `${rel}/${e}` : e);
      } finally {
        closeSync(d);
      }
    } else if (st.isFile()) {
      const data = readBounded(at(dir, base));
      out[rel] = data
        ? { kind: 'file', mode: st.mode & 0o7777, data: data.toString('base64') }
        : { kind: 'unread', size: st.size };
    }
    // A FIFO, socket or device is never read (a FIFO would hang the reader), and never taken for a file it replaced.
    else out[rel] = { kind: 'unread', size: -1 };
    return true;
  };
  return visit(fd, name, '') ? out : null;
}

/**
 * Removes `name` from the folder `fd`, a folder's entries through descriptors. A tree this process may not remove
 * alone (a node user's, through sudo) is removed by root's `rm`, given the same name through this process's
 * descriptor (`/proc/<pid>/fd/<fd>/<name>`), which it never leaves (GNU rm descends without following links).
 */
function removeAt(fd: number, name: string): void {
  try {
    removeHere(fd, name);
  } catch (e) {
    if (nodeUser()?.via !== 'sudo') throw e;
    childProcess().execFileSync('sudo', ['-n', 'rm', '-rf', '--', `/proc/${process.pid}/fd/${fd}/${name}`], {
      stdio: 'ignore',
    });
  }
}

function removeHere(fd: number, name: string): void {
  const st = lstatSync(at(fd, name));
  if (!st.isDirectory()) {
    unlinkSync(at(fd, name));
    return;
  }
  const d = openDirAt(fd, name);
  try {
    for (const e of readdirSync(folderAt(d))) removeHere(d, e);
  } finally {
    closeSync(d);
  }
  rmdirSync(at(fd, name));
}

/**
 * Puts one entry back as `name` in the folder `fd`, never through a link: a file is created anew (what is in its
 * place unlinked first; then O_CREAT|O_EXCL|O_NOFOLLOW) and its mode set through the descriptor; a folder is
 * made, then opened with O_NOFOLLOW|O_DIRECTORY and its mode set through that descriptor (a link or a file in its
 * place: the open fails, and the restore with it).
 */
export function restoreAt(fd: number, name: string, entry: Entry, shown: string): void {
  try {
    restoreHere(fd, name, entry, shown);
  } catch (e) {
    // Through sudo, a git folder a node made is the node user's (src/os/git/git-sudo.ts).
    const denied = codeOf(e) === 'EACCES' || codeOf(e) === 'EPERM';
    if (!denied || entry.kind === 'unread' || nodeUser()?.via !== 'sudo') throw e;
    restoreAsRoot(fd, name, entry);
  }
}

function restoreHere(fd: number, name: string, entry: Entry, shown: string): void {
  const path = at(fd, name);
  if (entry.kind === 'dir') {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw e;
    }
    const d = openDirAt(fd, name);
    try {
      fchmodSync(d, entry.mode & 0o7777);
    } finally {
      closeSync(d);
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
      `${shown}: the guard kept no copy of it (${entry.size < 0 ? 'not a regular file' : `${entry.size} bytes, over ${MAX_GUARDED_BYTES}`} when the checkout was first seen): remove it from the checkout's .git`,
    );
  const f = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    writeFileSync(f, Buffer.from(entry.data, 'base64'));
    fchmodSync(f, entry.mode & 0o777);
  } finally {
    closeSync(f);
  }
}

/** Whether `parts` below the folder `fd` name anything; false when a folder on the way is missing. */
function existsIn(fd: number, parts: string[]): boolean {
  try {
    return inFolder(fd, parts, existsAt);
  } catch {
    return false;
  }
}

/** Puts one guarded path (`name` in the folder `fd`) back as the snapshot holds it; the paths it changed. */
function restoreIn(fd: number, name: string, root: string, want: Record<string, Entry> | null): string[] {
  const have = readAt(fd, name) ?? {};
  const wanted = want ?? {};
  const parts = (rel: string) => (rel ? [name, ...rel.split('/')] : [name]);
  const shown = (rel: string) => (rel ? `${root}/${rel}` : root);
  const changed: string[] = [];
  // What is not as it was goes first, deepest first; a directory that is still wanted stays.
  for (const p of Object.keys(have).sort((a, b) => b.length - a.length)) {
    const h = have[p]!;
    const w = wanted[p];
    // An entry the copy could not read (too big, not a file) is left as it is while it stays so.
    if (w && (same(h, w) || (h.kind === w.kind && (h.kind === 'dir' || h.kind === 'unread')))) continue;
    if (!existsIn(fd, parts(p))) continue;
    inFolder(fd, parts(p), removeAt);
    changed.push(shown(p));
  }
  // Then what is missing, shallowest first, so each directory is there before what it holds.
  for (const p of Object.keys(wanted).sort((a, b) => a.length - b.length)) {
    if (existsIn(fd, parts(p))) continue;
    inFolder(fd, parts(p), (dir, base) => restoreAt(dir, base, wanted[p]!, shown(p)));
    changed.push(shown(p));
  }
  // One name per change: a path inside another changed one is part of it.
  return [...new Set(changed)].filter((p) => !changed.some((q) => q !== p && p.startsWith(`${q}/`)));
}

/**
 * Puts back the guarded path `root`, `rel` below the folder held as `fd`. Folders on the way below `fd` did not
 * exist when the copy was made: one a node made is walked (nothing was there to keep), a link or a file in the
 * place of one is removed (git would read through it).
 */
export function restoreRoot(
  fd: number,
  rel: string[],
  root: string,
  want: Record<string, Entry> | null,
): string[] {
  const opened: number[] = [];
  let dir = fd;
  try {
    for (const [i, name] of rel.slice(0, -1).entries()) {
      try {
        dir = openDirAt(dir, name);
        opened.push(dir);
      } catch (e) {
        if (codeOf(e) === 'ENOENT') return [];
        removeAt(dir, name);
        return [join(root.slice(0, root.length - rel.join('/').length), ...rel.slice(0, i + 1))];
      }
    }
    return restoreIn(dir, rel.at(-1)!, root, want);
  } finally {
    for (const d of opened) closeSync(d);
  }
}
