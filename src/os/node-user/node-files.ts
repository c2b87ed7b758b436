/**
 * The files interlock shares with a node and reads back from it, handled so a node cannot aim them. An attempt's
 * files (`$INTERLOCK_OUTPUT`, `$INTERLOCK_CONTEXT`, `$INTERLOCK_USAGE`, a chain's `$INTERLOCK_OUTPUTS/<node>`) are
 * made by interlock in a folder of its own that the node user may enter but not change, granted to the node
 * user's group once, by descriptor, right after they are made, and read back through the descriptor interlock
 * kept: never opened again by a path a node could have replaced. A read is bounded; a file a node replaced (a
 * link, a FIFO, a device, a folder, another file) or grew past its bound fails the attempt, naming it and why.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { NodeUser } from './node-user.js';

/** The most interlock reads of a node's outputs file (`$INTERLOCK_OUTPUT`, each `$INTERLOCK_OUTPUTS/<node>`). */
export const MAX_OUTPUT_FILE = 1024 * 1024;
/** The most interlock reads of `$INTERLOCK_USAGE`: more than any usage object needs. */
export const MAX_USAGE_FILE = 64 * 1024;

/** A file a node broke: which (its variable) and why. The attempt fails with this message. */
export class NodeFileError extends Error {
  constructor(
    readonly variable: string,
    readonly why: string,
    /** The system's error code when the file could not be opened at all (`ENOENT`). */
    readonly code?: string,
  ) {
    super(`${variable}: ${why}`);
    this.name = 'NodeFileError';
  }
}

/** What a directory entry is, in words. */
function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isDirectory()) return 'a folder';
  if (st.isSocket()) return 'a socket';
  return 'another file';
}

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };
const CREATE = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

interface Held {
  path: string;
  variable: string;
  fd: number;
  dev: number;
  ino: number;
}

/**
 * An attempt's files, made together in a fresh folder (`mkdtemp`, so no node can have been there first). With a
 * node user, the folder and its sub-folders become `owner rwx, group r-x` of the node user's group (it reaches the
 * files, it cannot replace one), and each file `rw` for the group: granted here, once, never again.
 */
export class AttemptFiles {
  readonly dir: string;
  private readonly held = new Map<string, Held>();

  /** `files`: each file's path inside the folder (`output`, `outputs/<node>`), its variable and first text. */
  constructor(
    prefix: string,
    files: { name: string; variable: string; text: string }[],
    user: NodeUser | undefined,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    try {
      const folders = new Set<string>([this.dir]);
      for (const f of files) {
        const path = join(this.dir, f.name);
        if (dirname(path) !== this.dir && !folders.has(dirname(path))) {
          mkdirSync(dirname(path), { mode: 0o700 });
          folders.add(dirname(path));
        }
        const fd = openSync(path, CREATE, 0o600);
        writeSync(fd, f.text);
        const st = fstatSync(fd);
        this.held.set(f.name, { path, variable: f.variable, fd, dev: st.dev, ino: st.ino });
      }
      if (user) this.grant(user, [...folders]);
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /** The group grant: by descriptor as root; through sudo `chgrp -h` while the folder is still this process's alone. */
  private grant(user: NodeUser, folders: string[]): void {
    const files = [...this.held.values()];
    if (user.via === 'sudo') {
      const paths = [...folders, ...files.map((f) => f.path)];
      execFileSync('sudo', ['-n', 'chgrp', '-h', String(user.gid), '--', ...paths], quiet);
    }
    const uid = process.getuid?.() ?? 0;
    for (const f of files) {
      if (user.via === 'spawn') fchownSync(f.fd, uid, user.gid);
      fchmodSync(f.fd, 0o660);
    }
    for (const dir of folders) {
      const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      try {
        if (user.via === 'spawn') fchownSync(fd, uid, user.gid);
        fchmodSync(fd, 0o750);
      } finally {
        closeSync(fd);
      }
    }
  }

  /** The path of one file, for the node's environment. */
  path(name: string): string {
    return this.get(name).path;
  }

  private get(name: string): Held {
    const h = this.held.get(name);
    if (!h) throw new Error(`interlock made no attempt file "${name}"`);
    return h;
  }

  /** Replaces a file's text, through its descriptor (never through a path a node could aim). */
  write(name: string, text: string): void {
    const h = this.get(name);
    this.intact(h);
    ftruncateSync(h.fd, 0);
    writeSync(h.fd, text, 0);
  }

  /** Throws when the path no longer names the file interlock made. */
  private intact(h: Held): void {
    let st: Stats;
    try {
      st = lstatSync(h.path);
    } catch {
      throw new NodeFileError(
        h.variable,
        'was removed; write into the file interlock made, never replace it',
      );
    }
    if (st.dev !== h.dev || st.ino !== h.ino)
      throw new NodeFileError(
        h.variable,
        `was replaced by ${kindOf(st)}; interlock reads only the file it made (append to it, never replace it)`,
      );
  }

  /** A file's text, read through the descriptor kept since it was made, at most `bound` bytes. */
  read(name: string, bound: number): string {
    const h = this.get(name);
    this.intact(h);
    return readBounded(h.fd, h.variable, bound);
  }

  /** Closes every descriptor and removes the folder (which holds only the files interlock made). */
  close(): void {
    for (const h of this.held.values()) {
      try {
        closeSync(h.fd);
      } catch {
        // closed already
      }
    }
    this.held.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Reads an open regular file from its start, failing when it holds more than `bound` bytes. */
function readBounded(fd: number, variable: string, bound: number): string {
  const st = fstatSync(fd);
  if (!st.isFile()) throw new NodeFileError(variable, `is ${kindOf(st)}, not a regular file`);
  if (st.size > bound)
    throw new NodeFileError(variable, `holds ${st.size} bytes, more than the ${bound} interlock reads`);
  const buf = Buffer.alloc(bound + 1);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, got);
    if (n === 0) break;
    got += n;
  }
  if (got > bound) throw new NodeFileError(variable, `grew past the ${bound} bytes interlock reads`);
  return buf.subarray(0, got).toString('utf8');
}

/**
 * A folder of this process's at a fixed path (where a node could have made it first, as in /tmp): made 0700 when
 * missing; refused, saying why, when it is a link, not a folder, someone else's, or writable by others.
 */
export function privateFolder(path: string): string {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = lstatSync(path);
  const uid = process.getuid?.() ?? st.uid;
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0)
    throw new Error(
      `${path} is ${st.isDirectory() ? `a folder of uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)}` : kindOf(st)}, not interlock's own (uid ${uid}, writable by no one else)`,
    );
  return path;
}

/** The most interlock reads of a file in the checkout a node could have changed (a graph, a skill, the routes). */
const MAX_CHECKOUT_FILE = 4 * 1024 * 1024;
/** The most a `file` check with `contains` reads. */
export const MAX_CHECKED_FILE = 16 * 1024 * 1024;

/**
 * Reads a file of the checkout, which nodes write: a link is followed (the caller confines where it leads), but
 * never into a FIFO or a device (`O_NONBLOCK`, then a regular file only), and at most `bound` bytes.
 */
export function readCheckoutFile(path: string, what: string, bound = MAX_CHECKOUT_FILE): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new NodeFileError(what, `cannot be read (${code ?? (e as Error).message})`, code);
  }
  try {
    return readBounded(fd, what, bound);
  } finally {
    closeSync(fd);
  }
}
