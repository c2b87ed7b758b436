/**
 * Handing the workspace to the node user's group. Nothing is followed, and nothing that may be another file's name
 * is handed over: a file with more than one link can be a hard link to a file outside the workspace (a root-only
 * one, where `fs.protected_hardlinks` is 0), and changing its group and mode would change that file's. Nor is
 * anything of an owner interlock does not expect: the expected owners are this process's user (the runner's),
 * the workspace's owner (who checked it out), the node user, and the node users interlock numbers after it on this
 * machine (`<name>-2` …, src/os/node-user/node-user-claim.ts), whose files are nodes' of earlier steps. A file of
 * any other uid (root's through sudo, a docker step's, another account's) is not the runner's to give: handing it
 * over would let a node write what the runner's own user may not. Such an entry (a folder with all it holds) is
 * left as it is (its owner, group and mode) and named to the caller, who says so.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  lchownSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { NodeUser } from './node-user.js';

const { O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_RDONLY } = constants;

const quiet = {
  stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8' as const,
  maxBuffer: 64 * 1024 * 1024,
};

/** A file (not a folder) with more than one name: it is not handed over. */
const linkedElsewhere = (st: { nlink: number; isDirectory(): boolean }) => !st.isDirectory() && st.nlink > 1;

/** The uids whose entries in `path` may be handed over (see above). */
function expectedOwners(path: string, user: NodeUser): Set<number> {
  const owners = new Set([process.getuid?.() ?? -1, user.uid, lstatSync(path).uid]);
  const base = user.name.replace(/-\d{1,2}$/, '');
  const numbered = (n: string) =>
    n.startsWith(`${base.slice(0, 28)}-`) && /^\d{1,2}$/.test(n.slice(base.slice(0, 28).length + 1));
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f.length >= 7 && /^\d+$/.test(f[2]!) && (f[0] === base || numbered(f[0]!)))
        owners.add(Number(f[2]));
    }
  } catch {
    // no readable /etc/passwd: the node user and this process's user only
  }
  return owners;
}

/** `find` tests true for an entry not handed over: a file of more than one link, or not a link and of none of `owners`. */
const refusedTest = (owners: Set<number>) => [
  ...'( ( ! -type d -links +1 ) -o ( ! -type l'.split(' '),
  ...[...owners].flatMap((u) => ['!', '-uid', String(u)]),
  ...') )'.split(' '),
];

/**
 * Makes `path` (a directory tree) readable and writable by the node user's group; the owner stays. As root each
 * entry is opened with O_NOFOLLOW and changed through its descriptor (a link is left as it is; a FIFO or socket
 * gets its group by lchown, no mode), and a file with more than one link, by its descriptor's count, is refused.
 * Through sudo, `find` first lists the files with more than one link (no link followed); when there are none,
 * `chgrp -R -h -P` changes links themselves and descends none, and `chmod -R` (GNU chmod has no -h before
 * coreutils 9.5) skips every link it meets below `path`; when there are some, `find` walks again, prunes them and
 * every link, and runs chgrp and chmod with `-execdir` (from the folder it holds, on `./name`). The paths refused,
 * at most 20 (the rest counted in the last).
 */
export function share(path: string, user: NodeUser): string[] {
  const refused: string[] = [];
  const owners = expectedOwners(path, user);
  const refuse = (st: { uid: number; nlink: number; isDirectory(): boolean }) =>
    linkedElsewhere(st) || !owners.has(st.uid);
  if (user.via === 'sudo') {
    const found = execFileSync(
      'sudo',
      ['-n', 'find', '-P', path, ...refusedTest(owners), '-print0', '-prune'],
      quiet,
    );
    refused.push(...found.split('\0').filter(Boolean));
    if (!refused.length) {
      execFileSync('sudo', ['-n', 'chgrp', '-R', '-h', '-P', String(user.gid), path], quiet);
      // Through sudo: files a node made in an earlier step are the node user's, which this user may not chmod.
      execFileSync('sudo', ['-n', 'chmod', '-R', 'g+rwX', path], quiet);
      return refused;
    }
    const expr = `-prune -o -type l -prune -o -execdir chgrp -h ${user.gid} {} + -execdir chmod g+rwX {} +`;
    execFileSync('sudo', ['-n', 'find', '-P', path, ...refusedTest(owners), ...expr.split(' ')], {
      ...quiet,
      env: { ...process.env, PATH: SAFE_PATH },
    });
    return summed(refused);
  }
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (refuse(st)) return void refused.push(p);
    if (!st.isFile() && !st.isDirectory()) return lchownSync(p, st.uid, user.gid);
    const fd = openSync(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (st.isDirectory() ? O_DIRECTORY : 0));
    try {
      const now = fstatSync(fd);
      // Replaced between the lstat and the open: left alone.
      if (now.ino !== st.ino || now.dev !== st.dev) return;
      // A link made since the lstat: its count is read from the descriptor, which is the file changed.
      if (refuse(now)) return void refused.push(p);
      fchownSync(fd, now.uid, user.gid);
      // A file keeps no set-user or set-group bit (chown clears them; they are not set again): only rw for the group.
      fchmodSync(fd, now.isDirectory() ? (now.mode & 0o7777) | 0o2070 : (now.mode & 0o1777) | 0o060);
    } finally {
      closeSync(fd);
    }
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
  };
  walk(path);
  return summed(refused);
}

/** find's -execdir refuses a PATH with a relative entry: chgrp and chmod are found in the system's folders. */
const SAFE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function summed(paths: string[]): string[] {
  return paths.length > 20 ? [...paths.slice(0, 19), `${paths.length - 19} more`] : paths;
}
