/**
 * The workspace's change since the run's checkout, read as data for a `push` or `pull_request` effect: the files
 * as they are on disk against the tree of the commit the checkout was at. Nothing the workspace configured runs:
 * git is asked only for the checkout's tree (`ls-tree`) and the untracked files it does not ignore (`ls-files
 * --others --exclude-standard`), after .git/ is put back as the job found it (src/os/git/git-guard.ts) and with
 * `core.fsmonitor=false`, `core.hooksPath=/dev/null` and `core.untrackedCache=false` on the command line; neither
 * command runs a filter, a hook or a pager. Contents are read and hashed here. A symlink is committed as a
 * symlink (its target as text), never followed; a path under a symlinked folder is not read through it.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { restoreCheckout } from '../../os/git/git-guard.js';
import { childProcess } from '../../os/lazy.js';
import { endNodeUserProcesses } from '../../os/node-user/node-user.js';

type FileMode = '100644' | '100755' | '120000';

export type FileChange =
  | { path: string; mode: FileMode; content: Buffer; deleted?: undefined }
  | { path: string; deleted: true };

const SAFE = [
  '--no-pager',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.untrackedCache=false',
];

function git(cwd: string, args: string[]): string {
  return childProcess().execFileSync('git', [...SAFE, ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** The sha git gives a blob of these bytes. */
function blobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** What is at `path` now, without following a link anywhere on the way; undefined when nothing (or a folder). */
function onDisk(root: string, path: string): { mode: FileMode; content: Buffer } | undefined {
  const parts = path.split('/');
  // A folder on the way that became a link (or a file) means the path is gone from the tree.
  for (let i = 1; i < parts.length; i++) {
    try {
      if (!lstatSync(join(root, ...parts.slice(0, i))).isDirectory()) return undefined;
    } catch {
      return undefined;
    }
  }
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(join(root, path));
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) return { mode: '120000', content: Buffer.from(readlinkSync(join(root, path))) };
  if (!st.isFile()) return undefined;
  return { mode: st.mode & 0o100 ? '100755' : '100644', content: readFileSync(join(root, path)) };
}

/** Paths interlock keeps for itself: never part of a change. */
const OWN = /^\.interlock(\/|$)/;

/** Every file changed, added or deleted in the workspace `root` since commit `base`, sorted by path. */
export function workspaceChange(root: string, base: string): FileChange[] {
  // Nothing of a node may change the files while they are read (src/os/node-user/node-processes.ts).
  endNodeUserProcesses('before the change was read');
  restoreCheckout();
  const tracked = new Map<string, { mode: string; sha: string }>();
  for (const line of git(root, ['ls-tree', '-r', '-z', '--full-tree', base]).split('\0')) {
    const m = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(line);
    if (m && m[2] === 'blob') tracked.set(m[4]!, { mode: m[1]!, sha: m[3]! });
  }
  const changes: FileChange[] = [];
  for (const [path, was] of tracked) {
    if (OWN.test(path)) continue;
    const now = onDisk(root, path);
    if (!now) changes.push({ path, deleted: true });
    else if (now.mode !== was.mode || blobSha(now.content) !== was.sha) changes.push({ path, ...now });
  }
  const others = git(root, ['ls-files', '-z', '--others', '--exclude-standard']).split('\0');
  for (const path of others) {
    // A folder git lists whole (a repository nested in the workspace) is not a file of this change.
    if (!path || path.endsWith('/') || OWN.test(path) || tracked.has(path)) continue;
    const now = onDisk(root, path);
    if (now) changes.push({ path, ...now });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
