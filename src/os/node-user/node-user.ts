/**
 * Runs graph code (a node's command, a `command` evidence check) as a user of its own, so it cannot read the
 * action's process (`/proc/<pid>/environ`, `/proc/<pid>/fd`), write the runner's files or the action's bundle,
 * or reach a credential only the runner's user can read. As root (a container) the child is spawned with that
 * uid and gid; as a user with passwordless sudo (GitHub-hosted runners) through `sudo -n -E -u`. The workspace is
 * shared through the node user's group. Where neither is possible the caller decides: fail, or go on loudly.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pinNodeHome } from './node-home.js';
import { endNodeProcesses, survivorsMessage } from './node-processes.js';
import { share } from './node-share.js';

export interface NodeUser {
  name: string;
  uid: number;
  gid: number;
  /** Where each script's own home is made (a fresh one per script, removed after it: nothing a node leaves in its
   * home, a git config or a tool's credentials, reaches the next). */
  homes: string;
  /** The checkout (its real path): git run by the node user treats it as safe, for that process only. */
  workspace: string;
  /** `spawn`: this process is root and sets the uid itself; `sudo`: through passwordless sudo. */
  via: 'spawn' | 'sudo';
}

let current: NodeUser | undefined;

/** Every script runScript starts from now on runs as `user` (undefined: as this process's own user). */
export function configureNodeUser(user: NodeUser | undefined): void {
  current = user;
}

export function nodeUser(): NodeUser | undefined {
  return current;
}

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };

/** Why isolation: auto runs nodes as this process's user on a machine that cannot switch users (its warning). */
export const CANNOT_SWITCH = 'this process is not root and has no passwordless sudo (a self-hosted runner?)';

/** Whether this process can run node commands as a user of their own: as root, or through passwordless sudo. */
export function canSwitchUser(): boolean {
  return process.getuid?.() === 0 || (process.platform === 'linux' && sudoWorks());
}

export function sudoWorks(): boolean {
  try {
    execFileSync('sudo', ['-n', 'true'], quiet);
    return true;
  } catch {
    return false;
  }
}

function idOf(name: string, flag: '-u' | '-g'): number | undefined {
  try {
    return Number(execFileSync('id', [flag, name], quiet).trim());
  } catch {
    return undefined;
  }
}

/** `uid:gid` (numbers, root only) or a user name, made (with its own group and home) when missing. */
function lookUp(spec: string, via: NodeUser['via']): { uid: number; gid: number } {
  const numeric = /^(\d+):(\d+)$/.exec(spec);
  if (numeric) {
    if (via !== 'spawn')
      throw new Error(`node-user "${spec}" is numeric, which only works when the action runs as root`);
    return { uid: Number(numeric[1]), gid: Number(numeric[2]) };
  }
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(spec))
    throw new Error(`node-user "${spec}" is not a user name or uid:gid`);
  const found = idsOf(spec);
  if (found) return found;
  return addUser(spec, via);
}

/**
 * Makes the user `name`. Two steps on one host may make it at once (the second finds it made), and useradd
 * refuses while another holds the lock on /etc/passwd (exit 10): both are waited out, a few times, never hidden.
 */
function addUser(name: string, via: NodeUser['via']): { uid: number; gid: number } {
  const add = ['useradd', '--create-home', '--user-group', '--shell', '/bin/bash', name];
  let failure: unknown;
  for (let i = 0; i < 5; i++) {
    try {
      if (via === 'sudo') execFileSync('sudo', ['-n', ...add], quiet);
      else execFileSync(add[0]!, add.slice(1), quiet);
    } catch (e) {
      failure = e;
    }
    const made = idsOf(name);
    if (made) return made;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200 * (i + 1));
  }
  throw new Error(`useradd made no user "${name}": ${(failure as Error | undefined)?.message ?? 'no error'}`);
}

/**
 * A user's uid and primary gid: from /etc/passwd, where useradd writes it (read, not a process per id: this is
 * on every step's way to its first request), else from `id` (a user from a directory service).
 */
export function idsOf(name: string): { uid: number; gid: number } | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === name && f.length >= 7 && /^\d+$/.test(f[2]!) && /^\d+$/.test(f[3]!))
        return { uid: Number(f[2]), gid: Number(f[3]) };
    }
  } catch {
    // No readable /etc/passwd: ask id.
  }
  const uid = idOf(name, '-u');
  const gid = idOf(name, '-g');
  return uid === undefined || gid === undefined ? undefined : { uid, gid };
}

const { O_DIRECTORY, O_NOFOLLOW, O_RDONLY } = constants;

interface PrepareOptions {
  isolation: 'auto' | 'user' | 'none';
  /** A user name, or `uid:gid` when the action runs as root. */
  user: string;
  workspace: string;
  /** Said loudly (an annotation) when nodes run as this process's own user although isolation was asked for. */
  warn: (message: string) => void;
  /** Said in the log when `isolation: none` was chosen. */
  say: (message: string) => void;
}

const SAME_USER =
  "node commands run as the runner's own user: a hostile node can read the action's token from /proc, write the runner's files and reach any credential the job holds";

/** Decides how nodes run, prepares the user and the workspace, and configures runScript. */
export function prepareNodeUser(opts: PrepareOptions): NodeUser | undefined {
  if (opts.isolation === 'none') {
    opts.say(`isolation: none: ${SAME_USER}. See SECURITY.md.`);
    return undefined;
  }
  const via: NodeUser['via'] | undefined =
    process.getuid?.() === 0 ? 'spawn' : process.platform === 'linux' && sudoWorks() ? 'sudo' : undefined;
  if (!via) {
    const why = CANNOT_SWITCH;
    if (opts.isolation === 'user')
      throw new Error(`isolation: user: cannot run nodes as "${opts.user}": ${why}`);
    opts.warn(
      `isolation: auto: ${why}, so ${SAME_USER}. Set isolation: none to say you accept it. See SECURITY.md.`,
    );
    return undefined;
  }
  let ids: { uid: number; gid: number };
  try {
    ids = lookUp(opts.user, via);
  } catch (e) {
    const why = `node-user "${opts.user}" could not be found or made (${(e as Error).message.split('\n')[0]})`;
    if (opts.isolation === 'user') throw new Error(`isolation: user: ${why}`);
    opts.warn(`isolation: auto: ${why}, so ${SAME_USER}. See SECURITY.md.`);
    return undefined;
  }
  // The node user may pass through (to its own home inside) but not list what is there.
  const homes = mkdtempSync(join(tmpdir(), 'interlock-node-homes-'));
  const fd = openSync(homes, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    fchmodSync(fd, 0o711);
  } finally {
    closeSync(fd);
  }
  process.once('exit', () => removeTree(homes, via));
  const user: NodeUser = { name: opts.user, ...ids, homes, workspace: realpathSync(opts.workspace), via };
  // What an earlier step or job left of the node user is ended, and its home in the password database emptied.
  const left = endNodeProcesses(user);
  if (left.length) throw new Error(survivorsMessage(user, left, "at the step's start"));
  let blocked = pinNodeHome(user);
  if (!blocked) {
    const refused = share(user.workspace, user);
    if (refused.length)
      opts.warn(
        `left ${refused.join(', ')} in the workspace as it was, not handed to node-user "${opts.user}": a file with more than one link may be another file's name outside the workspace, and an entry of another owner than the runner's user, the workspace's owner and interlock's node users is not the runner's to give (remove the hard links, copy the files, or give them to the runner's user, before this step)`,
      );
    blocked = unreachable(opts.workspace, user);
  }
  if (blocked) {
    const why = `node-user "${opts.user}": ${blocked}`;
    if (opts.isolation === 'user') throw new Error(`isolation: user: ${why}`);
    opts.warn(`isolation: auto: ${why}, so ${SAME_USER}. See SECURITY.md.`);
    return undefined;
  }
  configureNodeUser(user);
  return user;
}

/** Runs `test` as the node user: whether it may enter `path` (and write it, with `write`). */
function nodeUserCan(path: string, user: NodeUser, write: boolean): boolean {
  const args = write ? ['-w', path, '-a', '-x', path] : ['-x', path];
  try {
    if (user.via === 'sudo') execFileSync('sudo', ['-n', '-u', user.name, '--', 'test', ...args], quiet);
    else execFileSync('test', args, { ...quiet, uid: user.uid, gid: user.gid });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the node user cannot enter and write the workspace (a parent directory it may not pass through, such as a
 * home directory of mode 750), after granting it passage through each parent with an ACL where sudo can; undefined
 * when it can.
 */
function unreachable(workspace: string, user: NodeUser): string | undefined {
  if (nodeUserCan(workspace, user, true)) return undefined;
  const parents: string[] = [];
  for (let d = dirname(workspace); d !== dirname(d); d = dirname(d)) parents.unshift(d);
  for (const dir of parents) {
    if (nodeUserCan(dir, user, false)) continue;
    try {
      const acl = ['setfacl', '-m', `u:${user.uid}:x`, dir];
      if (user.via === 'sudo') execFileSync('sudo', ['-n', ...acl], quiet);
      else execFileSync(acl[0]!, acl.slice(1), quiet);
    } catch {
      return `cannot reach the workspace: it may not pass through ${dir} (mode ${(lstatSync(dir).mode & 0o777).toString(8)}), and setfacl could not grant it`;
    }
  }
  return nodeUserCan(workspace, user, true)
    ? undefined
    : `cannot reach the workspace: it may not write ${workspace}`;
}

/**
 * Ends every process the node user still has (src/os/node-user/node-processes.ts): a command may not leave anything running
 * past its script. The pids still running after the bound: empty when none, or when nodes run as this user.
 */
export function sweepNodeUser(): number[] {
  return current ? endNodeProcesses(current) : [];
}

/** Ends every process the node user still has; throws, saying so, when any still runs (`when`: before what). */
export function endNodeUserProcesses(when: string): void {
  const left = sweepNodeUser();
  if (left.length && current) throw new Error(survivorsMessage(current, left, when));
}

/** Removes a tree the node user may have filled (through sudo when this process is not root). */
export function removeTree(path: string, via: NodeUser['via']): void {
  try {
    if (via === 'sudo') execFileSync('sudo', ['-n', 'rm', '-rf', '--', path], quiet);
    else rmSync(path, { recursive: true, force: true });
  } catch {
    // a home left behind holds nothing the next script sees: each gets its own
  }
}
