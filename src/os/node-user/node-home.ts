/**
 * The node user's home in the password database (`/home/interlock-node`). Each script gets a HOME of its own
 * (src/os/node-user/node-script.ts), but ssh, git's ssh and other tools look the home up by uid whatever HOME says:
 * a `~/.ssh/config` one node planted there would run its `ProxyCommand` in a later, granted node, and would stay
 * for the next job on a self-hosted runner. So at the step's start, once no process of the node user runs,
 * interlock empties that home and makes it root's, mode 755: no node can put anything in it. Before each script
 * it is looked at again (`checkNodeHome`), and a script does not start on a home that is not so. At the step's end
 * (and in the post step) it is removed (`removeNodeHome`): nothing of it lasts to the next job.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { NodeUser } from './node-user.js';

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };

/** The home the password database gives `uid` (what ssh reads), undefined when it has no entry: /etc/passwd first
 * (no process on a step's way), else `getent` (a user from a directory service). */
function passwdHome(uid: number): string | undefined {
  const find = (text: string) => {
    for (const line of text.split('\n')) {
      const f = line.split(':');
      if (f.length >= 7 && f[2] === String(uid)) return f[5] || undefined;
    }
    return undefined;
  };
  try {
    const local = find(readFileSync('/etc/passwd', 'utf8'));
    if (local) return local;
  } catch {
    // no readable /etc/passwd: ask getent
  }
  try {
    return find(execFileSync('getent', ['passwd', String(uid)], quiet));
  } catch {
    return undefined;
  }
}

/**
 * As root: refuses a link (3) and a root-owned home that holds anything (4: interlock empties only what the node
 * user owned), then makes the home root's, mode 755 (which also masks any ACL entry a node set), and removes
 * every entry; `find -P` and `rm -rf` follow no link, and no process of the node user runs meanwhile.
 */
const PIN = [
  'h=$1',
  '[ -L "$h" ] && exit 3',
  'if [ "$(stat -c %u -- "$h")" = 0 ] && [ -n "$(ls -A -- "$h")" ]; then exit 4; fi',
  'chown -h 0:0 -- "$h" && chmod 0755 -- "$h"',
  'exec find -P "$h" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +',
].join('\n');

let pinned: string | undefined;

/** Why interlock will not take `home` over for `user` (undefined: it may). */
function refusal(home: string, user: Pick<NodeUser, 'uid'>): string | undefined {
  if (!isAbsolute(home) || home === '/') return 'is not a folder of its own';
  if (user.uid === 0 || user.uid === process.getuid?.()) return "is root's or this process's user's";
  if (home === passwdHome(process.getuid?.() ?? -1)) return "is this process's user's own home";
  const parent = statSync(dirname(home), { throwIfNoEntry: false });
  if (!parent?.isDirectory() || parent.uid !== 0 || parent.mode & 0o022)
    return `is in ${dirname(home)}, which is not a folder only root may write`;
  const st = lstatSync(home, { throwIfNoEntry: false });
  if (st && (!st.isDirectory() || st.isSymbolicLink())) return 'is not a folder';
  if (st && st.uid !== user.uid && st.uid !== 0) return `belongs to uid ${st.uid}, not to the node user`;
  return undefined;
}

/**
 * Empties the node user's home and makes it root's (see above); `user`'s processes must all have ended. Returns
 * why it could not (undefined when done, or when the user has no home, or its home does not exist: a folder only
 * root may write holds it, so no node can make it).
 */
export function pinNodeHome(user: NodeUser): string | undefined {
  pinned = undefined;
  const home = passwdHome(user.uid);
  if (!home) return undefined;
  const why = refusal(home, user);
  if (why) return `its home ${home} ${why}; interlock empties that home for each step (see SECURITY.md)`;
  // Pinned by an earlier step already (root's, closed, empty): nothing to run.
  const st = lstatSync(home, { throwIfNoEntry: false });
  if (st && !(st.uid === 0 && !homeProblem(home))) {
    try {
      if (user.via === 'sudo') execFileSync('sudo', ['-n', 'sh', '-c', PIN, 'pin-home', home], quiet);
      else execFileSync('sh', ['-c', PIN, 'pin-home', home], quiet);
    } catch (e) {
      const status = (e as { status?: number }).status;
      const how =
        status === 3
          ? 'became a link'
          : status === 4
            ? "is root's and not empty (interlock empties only a home the node user owns)"
            : `could not be emptied (${(e as Error).message.split('\n')[0]})`;
      return `its home ${home} ${how}`;
    }
  }
  pinned = home;
  const left = homeProblem(home);
  return left ? `its home ${home} ${left}` : undefined;
}

/** What is wrong with a pinned home now: undefined while it is missing, or root's, closed and empty. */
function homeProblem(home: string): string | undefined {
  const st = lstatSync(home, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isDirectory()) return 'is no longer a folder';
  if (st.uid !== 0 || st.mode & 0o022)
    return `is no longer root's alone (uid ${st.uid}, mode ${(st.mode & 0o7777).toString(8)})`;
  let entries: string[];
  try {
    entries = readdirSync(home);
  } catch (e) {
    return `cannot be listed (${(e as NodeJS.ErrnoException).code})`;
  }
  return entries.length
    ? `holds ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} (${entries.slice(0, 3).join(', ')})`
    : undefined;
}

/** Before each script: throws, naming it, when the node user's home is no longer the empty folder interlock made. */
export function checkNodeHome(): void {
  const problem = pinned && homeProblem(pinned);
  if (problem)
    throw new Error(
      `the node user's home ${pinned} ${problem}, not the empty root-owned folder interlock made it: the script is not started`,
    );
}

/** As root: removes the home, refusing a link (3); `rm -rf` follows none below it. */
const REMOVE = ['h=$1', '[ -L "$h" ] && exit 3', 'exec rm -rf -- "$h"'].join('\n');

/**
 * At the step's end (the main step's end or cancel, and the post step), once no process of the node user runs:
 * the node user's home in the password database is removed, so nothing lasts to the next job on a self-hosted
 * runner. Only a home interlock may take (as at the start) and that is its own: the node user's, or root's and
 * empty as interlock left it; its parent is root's alone, so nothing can be put in its place meanwhile. What it
 * did, for the log (undefined: there was no home).
 */
export function removeNodeHome(
  user: Pick<NodeUser, 'uid' | 'via'>,
): { words: string; warn: boolean } | undefined {
  const home = passwdHome(user.uid);
  const st = home ? lstatSync(home, { throwIfNoEntry: false }) : undefined;
  if (!home || !st) return undefined;
  const left = (why: string) => ({
    words: `left the node user's home ${home} as it is: it ${why}`,
    warn: true,
  });
  const why = refusal(home, user);
  if (why) return left(why);
  const problem = st.uid === 0 ? homeProblem(home) : undefined;
  if (problem) return left(`${problem} (interlock removes only a home it emptied or the node user's own)`);
  try {
    if (user.via === 'sudo') execFileSync('sudo', ['-n', 'sh', '-c', REMOVE, 'remove-home', home], quiet);
    else execFileSync('sh', ['-c', REMOVE, 'remove-home', home], quiet);
  } catch (e) {
    return left(`could not be removed (${(e as Error).message.split('\n')[0]})`);
  }
  if (pinned === home) pinned = undefined;
  return { words: `removed the node user's home ${home}`, warn: false };
}
