/**
 * Through sudo, a git folder a node made (`git init --separate-git-dir`, `git worktree add`) is the node user's, and
 * this process may not write in it. What the guard puts back there is put back as root, given the name through
 * this process's descriptor of the folder (`/proc/<pid>/fd/<fd>/<name>`, where only `<name>` is looked up, in the
 * folder held), while no process of the node user runs: a file is created with `dd oflag=nofollow conv=excl`, a
 * folder is made only where no link stands, then the mode is set.
 */
import { childProcess } from '../lazy.js';
import type { Entry } from './git-snapshot.js';

const FILE = 'rm -f -- "$1" && dd of="$1" oflag=nofollow conv=excl status=none && chmod "$2" -- "$1"';
const DIR = '[ -L "$1" ] && exit 3; [ -d "$1" ] || mkdir -- "$1" || exit 4; chmod "$2" -- "$1"';
const LINK = 'rm -f -- "$1" && ln -s -- "$2" "$1"';

/** Puts `entry` back as `name` in the folder held as `fd`, as root through sudo. */
export function restoreAsRoot(fd: number, name: string, entry: Exclude<Entry, { kind: 'unread' }>): void {
  const path = `/proc/${process.pid}/fd/${fd}/${name}`;
  const run = (script: string, arg: string, input?: Buffer) =>
    childProcess().execFileSync('sudo', ['-n', 'sh', '-c', script, 'restore', path, arg], {
      stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'],
      ...(input ? { input } : {}),
    });
  if (entry.kind === 'file') run(FILE, (entry.mode & 0o777).toString(8), Buffer.from(entry.data, 'base64'));
  else if (entry.kind === 'dir') run(DIR, (entry.mode & 0o7777).toString(8));
  else run(LINK, entry.target);
}
