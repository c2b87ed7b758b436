/**
 * A runner's user as GitHub-hosted runners have it: not root, with passwordless sudo. As root (this machine, CI)
 * the suite makes one (`interlock-runner`, with a sudoers entry of its own) and runs the bundled action as it;
 * as a non-root user that already has passwordless sudo, the action runs as that user. Elsewhere there is none,
 * and the tests that need it say why they skip.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunnerUser {
  name: string;
  uid: number;
  gid: number;
  /** A home of its own for this test run (its global git config goes there). */
  home: string;
}

const NAME = 'interlock-runner';
const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };

function ok(file: string, args: string[]): boolean {
  try {
    execFileSync(file, args, quiet);
    return true;
  } catch {
    return false;
  }
}

/** Why no such user can be had here, or undefined when one can. */
export function noSudoRunner(): string | undefined {
  if (process.platform !== 'linux') return 'the sudo path is Linux only';
  if (process.getuid?.() === 0)
    return existsSync('/usr/bin/sudo') || ok('sudo', ['-V'])
      ? undefined
      : 'sudo is not installed (.ci/run installs it: apt-get install sudo)';
  return ok('sudo', ['-n', 'true']) ? undefined : 'this user has no passwordless sudo, and is not root';
}

/** The runner's user (made when missing, as root), with a fresh home; throws when noSudoRunner says why not. */
export function sudoRunner(): RunnerUser {
  const why = noSudoRunner();
  if (why) throw new Error(why);
  const home = mkdtempSync(join(tmpdir(), 'interlock-runner-home-'));
  if (process.getuid?.() !== 0) {
    const name = execFileSync('id', ['-un'], quiet).trim();
    return { name, uid: process.getuid!(), gid: process.getgid!(), home };
  }
  // Test files run in parallel workers: another may be making the user this moment (useradd then fails, or
  // waits on /etc/passwd's lock): look again before giving up.
  for (let i = 0; i < 5 && !ok('id', ['-u', NAME]); i++) {
    ok('useradd', ['--create-home', '--user-group', '--shell', '/bin/bash', NAME]);
    if (!ok('id', ['-u', NAME])) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200 * (i + 1));
  }
  if (!ok('id', ['-u', NAME])) throw new Error(`useradd made no user ${NAME}`);
  writeFileSync(`/etc/sudoers.d/${NAME}`, `${NAME} ALL=(ALL) NOPASSWD:ALL\n`, { mode: 0o440 });
  const uid = Number(execFileSync('id', ['-u', NAME], quiet).trim());
  const gid = Number(execFileSync('id', ['-g', NAME], quiet).trim());
  chownSync(home, uid, gid);
  return { name: NAME, uid, gid, home };
}

/** Gives `path` (a tree) to the runner's user, as a checkout belongs to the runner on a hosted runner. */
export function giveTo(path: string, user: RunnerUser): void {
  execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, path], quiet);
}
