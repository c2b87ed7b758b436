// The node user's home in the password database (src/os/node-user/node-home.ts), as root: prepareNodeUser
// empties it and makes it root's without following a link a node left in it; it takes over no home that is not
// the node user's (or root's and empty) or that sits in a folder others may write; and a script does not start
// on a home that is no longer the empty folder interlock made.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkNodeHome } from '../../src/os/node-user/node-home.js';
import { configureNodeUser, prepareNodeUser } from '../../src/os/node-user/node-user.js';

const root = process.getuid?.() === 0;
const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };
const NAME = 'interlock-home-unit';
const made: string[] = [];

/** The test's node user, its home in the password database set to `home` (not made). */
function userWithHome(home: string): { uid: number; gid: number } {
  try {
    execFileSync('usermod', ['-d', home, NAME], quiet);
  } catch {
    execFileSync('useradd', ['-M', '-d', home, '--user-group', '--shell', '/bin/bash', NAME], quiet);
  }
  const uid = Number(execFileSync('id', ['-u', NAME], quiet).trim());
  const gid = Number(execFileSync('id', ['-g', NAME], quiet).trim());
  return { uid, gid };
}

/** A folder of root's (mode 755, as /home is) to hold the home; and a workspace the node user can reach. */
function scene(parentMode = 0o755): { parent: string; home: string; workspace: string } {
  const parent = mkdtempSync(join(tmpdir(), 'interlock-homes-parent-'));
  chmodSync(parent, parentMode);
  const workspace = mkdtempSync(join(tmpdir(), 'interlock-home-ws-'));
  chmodSync(workspace, 0o755);
  made.push(parent, workspace);
  return { parent, home: join(parent, NAME), workspace };
}

const prepare = (workspace: string) =>
  prepareNodeUser({ isolation: 'user', user: NAME, workspace, warn: () => {}, say: () => {} });

afterEach(() => {
  configureNodeUser(undefined);
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!root)("the node user's home in the password database (as root)", () => {
  it("is emptied and made root's, mode 755, without following a link a node left in it", () => {
    const { parent, home, workspace } = scene();
    const ids = userWithHome(home);
    const target = join(parent, 'root-only');
    writeFileSync(target, 'ROOT\n', { mode: 0o600 });
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'config'), 'Host *\n  ProxyCommand planted\n');
    symlinkSync(target, join(home, 'link'));
    symlinkSync(parent, join(home, '.ssh', 'up'));
    execFileSync('chown', ['-R', '-h', `${ids.uid}:${ids.gid}`, home], quiet);
    chmodSync(home, 0o700);
    expect(prepare(workspace)).toMatchObject({ uid: ids.uid });
    const st = lstatSync(home);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([0, 0, 0o755]);
    expect(readdirSync(home)).toEqual([]);
    expect(readFileSync(target, 'utf8')).toBe('ROOT\n');
    expect([statSync(target).uid, statSync(target).mode & 0o777]).toEqual([0, 0o600]);
    expect(() => checkNodeHome()).not.toThrow();
  });

  it('a script does not start on a home that holds anything again, nor on one opened up', () => {
    const { home, workspace } = scene();
    const ids = userWithHome(home);
    mkdirSync(home);
    chownSync(home, ids.uid, ids.gid);
    prepare(workspace);
    writeFileSync(join(home, '.npmrc'), 'registry=planted\n');
    expect(() => checkNodeHome()).toThrow(
      `the node user's home ${home} holds 1 entry (.npmrc), not the empty root-owned folder interlock made it: the script is not started`,
    );
    rmSync(join(home, '.npmrc'));
    chmodSync(home, 0o777);
    expect(() => checkNodeHome()).toThrow(`is no longer root's alone (uid 0, mode 777)`);
  });

  it('a root-owned home that is not empty is refused, and keeps what it holds', () => {
    const { home, workspace } = scene();
    userWithHome(home);
    mkdirSync(home);
    writeFileSync(join(home, 'keep-me'), 'root\n');
    expect(() => prepare(workspace)).toThrow(
      `isolation: user: node-user "${NAME}": its home ${home} is root's and not empty (interlock empties only a home the node user owns)`,
    );
    expect(readdirSync(home)).toEqual(['keep-me']);
  });

  it("another user's folder as the home is refused, untouched", () => {
    const { home, workspace } = scene();
    userWithHome(home);
    mkdirSync(home);
    writeFileSync(join(home, 'theirs'), '');
    chownSync(home, 47299, 47299);
    expect(() => prepare(workspace)).toThrow(`its home ${home} belongs to uid 47299, not to the node user`);
    expect(readdirSync(home)).toEqual(['theirs']);
    expect(lstatSync(home).uid).toBe(47299);
  });

  it('a home in a folder others may write is refused (a node could put another in its place)', () => {
    const { parent, home, workspace } = scene(0o1777);
    userWithHome(home);
    expect(() => prepare(workspace)).toThrow(
      `its home ${home} is in ${parent}, which is not a folder only root may write`,
    );
  });

  it('a missing home in a folder only root may write is left missing: no node can make it', () => {
    const { home, workspace } = scene();
    userWithHome(home);
    expect(prepare(workspace)).toBeDefined();
    expect(lstatSync(home, { throwIfNoEntry: false })).toBeUndefined();
    expect(() => checkNodeHome()).not.toThrow();
  });
});
