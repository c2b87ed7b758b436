/**
 * Through sudo, a git folder a node made (`git init --separate-git-dir`, `git worktree add`) is the node user's, and
 * this process may not write in it. What the guard puts back there is put back by a small helper run as root
 * (this Node through sudo), given the folder as this process's descriptor of it (`/proc/<pid>/fd/<fd>`: the
 * folder held, not a path looked up again) and one name in it. The helper does the rest through descriptors, so
 * a link a node swaps in at any moment (were one of its processes still running) is never followed: a file is
 * created with O_CREAT|O_EXCL|O_NOFOLLOW, then written, given to the folder's owner and moded through that
 * descriptor; a folder is made, opened with O_DIRECTORY|O_NOFOLLOW and moded through that descriptor (a link in
 * its place fails the open, and the restore with it); a link is made where nothing stands (symlink(2) follows
 * none). A swap after the file was made leaves that file unnamed, never the swapped-in target changed.
 */
import { childProcess } from '../lazy.js';
import type { Entry } from './git-snapshot.js';

/** The helper, run as `node -e HELPER <folder> <name> file|dir|link <mode|target>` (a file's bytes on stdin). */
const HELPER = `'use strict';
const fs = require('fs');
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = fs.constants;
const [folder, name, kind, arg] = process.argv.slice(1);
try {
  if (!name || name.includes('/') || name === '.' || name === '..') throw new Error('not one name: ' + name);
  const d = fs.openSync(folder, O_RDONLY | O_DIRECTORY);
  const held = fs.fstatSync(d);
  const at = '/proc/self/fd/' + d + '/' + name;
  const unlink = () => { try { fs.unlinkSync(at); } catch (e) { if (e.code !== 'ENOENT') throw e; } };
  if (kind === 'file') {
    const data = fs.readFileSync(0);
    unlink();
    const f = fs.openSync(at, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    fs.fchownSync(f, held.uid, held.gid);
    fs.writeFileSync(f, data);
    fs.fchmodSync(f, parseInt(arg, 8));
    fs.closeSync(f);
  } else if (kind === 'dir') {
    let made = true;
    try { fs.mkdirSync(at, 0o700); } catch (e) { if (e.code !== 'EEXIST') throw e; made = false; }
    const f = fs.openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (made) fs.fchownSync(f, held.uid, held.gid);
    fs.fchmodSync(f, parseInt(arg, 8));
    fs.closeSync(f);
  } else if (kind === 'link') {
    unlink();
    fs.symlinkSync(arg, at);
    fs.lchownSync(at, held.uid, held.gid);
  } else throw new Error('unknown kind: ' + kind);
} catch (e) {
  process.stderr.write(e.message + '\\n');
  process.exit(1);
}
`;

/** Puts `entry` back as `name` in the folder held as `fd`, as root through sudo, through descriptors only. */
export function restoreAsRoot(fd: number, name: string, entry: Exclude<Entry, { kind: 'unread' }>): void {
  const arg =
    entry.kind === 'link'
      ? entry.target
      : (entry.mode & (entry.kind === 'file' ? 0o777 : 0o7777)).toString(8);
  const input = entry.kind === 'file' ? Buffer.from(entry.data, 'base64') : undefined;
  const args = ['-n', process.execPath, '-e', HELPER, `/proc/${process.pid}/fd/${fd}`, name, entry.kind, arg];
  try {
    childProcess().execFileSync('sudo', args, {
      stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'],
      ...(input ? { input } : {}),
    });
  } catch (e) {
    const why = String((e as { stderr?: Buffer }).stderr ?? '').trim() || (e as Error).message;
    throw new Error(`${name}: putting it back as root failed: ${why}`);
  }
}
