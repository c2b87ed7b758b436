/**
 * What git reads and runs from a git directory, read without running git: where `.git` points, the paths of its
 * configuration (with every file it includes), hooks and info, and what each holds, entry by entry.
 */
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export type Entry =
  | { kind: 'file'; mode: number; data: string }
  | { kind: 'dir'; mode: number }
  | { kind: 'link'; target: string }
  /**
   * Not read: a file over MAX_GUARDED_BYTES (or one that grew while it was read), a FIFO, a socket or a device
   * (size -1). Never the same as another entry.
   */
  | { kind: 'unread'; size: number };

/** The most of one file under `.git/` the guard reads and keeps: git's config, hooks and info are far smaller. */
export const MAX_GUARDED_BYTES = 4 * 1024 * 1024;

/**
 * A regular file's bytes, read without following a link (O_NOFOLLOW, then fstat: still a regular file) and
 * bounded; undefined when it is bigger than the bound or is no longer a regular file.
 */
export function readBounded(p: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_GUARDED_BYTES) return undefined;
    // One byte more than its size: a file that grows while it is read fills it, and is not taken.
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n < buf.length; n += got)
      got = readSync(fd, buf, n, buf.length - n, null);
    return n === buf.length ? undefined : buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Where `.git` points: the directory itself, or the target of a `gitdir:` link file (worktrees, submodules). */
export function gitdirOf(workspace: string): string | undefined {
  const dotgit = join(workspace, '.git');
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dotgit);
  } catch {
    return undefined;
  }
  if (st.isDirectory()) return dotgit;
  if (!st.isFile()) return undefined;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(readBounded(dotgit)?.toString('utf8') ?? '');
  return m ? resolve(workspace, m[1]!) : undefined;
}

/** `path = …` values of `[include]` and `[includeIf "…"]` sections, resolved as git resolves them. */
function includesOf(configFile: string): string[] {
  const text = readBounded(configFile)?.toString('utf8');
  if (text === undefined) return [];
  const out: string[] = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^\s+/, '');
    const head = /^\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (head) section = head[1]!.toLowerCase();
    const rest = head ? line.slice(line.indexOf(']') + 1) : line;
    const kv = /^\s*path\s*=\s*("(?:[^"\\]|\\.)*"|[^;#]*)/i.exec(rest);
    if (!kv || (section !== 'include' && section !== 'includeif')) continue;
    const value = kv[1]!.trim().replace(/^"(.*)"$/, '$1');
    // `~/…` is the user's own home, which a node cannot write; only repository-relative and absolute paths are kept.
    if (!value || value.startsWith('~')) continue;
    out.push(isAbsolute(value) ? value : resolve(dirname(configFile), value));
  }
  return out;
}

/**
 * The common directory of a linked worktree's git directory (its `commondir` file, relative to it), where git
 * reads the repository's config, hooks and info; undefined for a repository's own git directory.
 */
function commonDirOf(gitdir: string): string | undefined {
  const text = readBounded(join(gitdir, 'commondir'))?.toString('utf8').trim();
  return text ? resolve(gitdir, text) : undefined;
}

/**
 * The paths git reads configuration and commands from for the git directory `gitdir`, submodules included, and
 * for a linked worktree (`.git` a `gitdir:` file) its common directory's as well.
 */
export function guardedPaths(gitdir: string, depth = 0): string[] {
  const paths = ['config', 'config.worktree', 'commondir', 'hooks', 'info'].map((p) => join(gitdir, p));
  const common = depth === 0 ? commonDirOf(gitdir) : undefined;
  if (common && common !== gitdir)
    paths.push(...guardedPaths(common, depth + 1).filter((p) => !paths.includes(p)));
  const modules = join(gitdir, 'modules');
  if (depth < 3 && existsSync(modules)) {
    const walk = (dir: string, level: number) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (!e.isDirectory()) continue;
        const sub = join(dir, e.name);
        if (existsSync(join(sub, 'HEAD'))) paths.push(...guardedPaths(sub, depth + 1));
        else if (level < 4) walk(sub, level + 1);
      }
    };
    walk(modules, 0);
  }
  const included = new Set<string>();
  const queue = paths.filter((p) => /config(\.worktree)?$/.test(p));
  while (queue.length) {
    const f = queue.shift()!;
    for (const inc of includesOf(f)) {
      if (included.has(inc) || paths.includes(inc)) continue;
      included.add(inc);
      queue.push(inc);
    }
  }
  return [...paths, ...included];
}

export function same(a: Entry | undefined, b: Entry | undefined): boolean {
  if (!a || !b || a.kind !== b.kind) return false;
  if (a.kind === 'link') return a.target === (b as typeof a).target;
  if (a.kind === 'dir') return true;
  if (a.kind === 'unread') return false;
  return a.data === (b as typeof a).data && (a.mode & 0o777) === ((b as typeof a).mode & 0o777);
}
