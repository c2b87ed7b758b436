// prepareNodeUser as root (spawn mode): isolation never leaves nodes on a workspace they cannot reach. `user`
// refuses with the directory that blocks; `auto` says so loudly and runs nodes as this process's user.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionDir } from '../../src/os/node-user/node-script.js';
import { configureNodeUser, nodeUser, prepareNodeUser } from '../../src/os/node-user/node-user.js';

const root = process.getuid?.() === 0;
const hasSetfacl = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v setfacl'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const USER = '47213:47213';

const made: string[] = [];
function workspaceUnder(parentMode: number): { parent: string; workspace: string } {
  const parent = mkdtempSync(join(tmpdir(), 'interlock-parent-'));
  made.push(parent);
  const workspace = join(parent, 'ws');
  mkdirSync(workspace);
  chmodSync(parent, parentMode);
  return { parent, workspace };
}

afterEach(() => {
  configureNodeUser(undefined);
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!root)('the node user and the workspace (as root)', () => {
  it('runs nodes as the node user when it can reach the workspace', () => {
    const { workspace } = workspaceUnder(0o755);
    const warnings: string[] = [];
    const user = prepareNodeUser({
      isolation: 'user',
      user: USER,
      workspace,
      warn: (m) => warnings.push(m),
      say: () => {},
    });
    expect(user).toMatchObject({ uid: 47213, gid: 47213, via: 'spawn' });
    expect(nodeUser()).toBe(user);
    expect(warnings).toEqual([]);
  });

  it('shares the workspace with the node user without following a link a node left in it', () => {
    const { parent, workspace } = workspaceUnder(0o755);
    const target = join(parent, 'root-only');
    writeFileSync(target, 'root\n', { mode: 0o600 });
    symlinkSync(target, join(workspace, 'planted'));
    prepareNodeUser({ isolation: 'user', user: USER, workspace, warn: () => {}, say: () => {} });
    const st = statSync(target);
    expect([st.uid, st.gid, st.mode & 0o777]).toEqual([0, 0, 0o600]);
    expect(statSync(workspace).gid).toBe(47213);
  });

  it('a hard link left in the workspace is not handed over: the file it names keeps its group and mode, and is named', () => {
    const { parent, workspace } = workspaceUnder(0o755);
    const target = join(parent, 'root-only');
    writeFileSync(target, 'root\n', { mode: 0o600 });
    linkSync(target, join(workspace, 'planted'));
    writeFileSync(join(workspace, 'ordinary'), 'mine\n', { mode: 0o644 });
    const warnings: string[] = [];
    prepareNodeUser({
      isolation: 'user',
      user: USER,
      workspace,
      warn: (m) => warnings.push(m),
      say: () => {},
    });
    const st = statSync(target);
    expect([st.uid, st.gid, st.mode & 0o777]).toEqual([0, 0, 0o600]);
    expect(statSync(join(workspace, 'ordinary')).gid).toBe(47213);
    expect(warnings.join('\n')).toMatch(/left \S+\/planted in the workspace as it was/);
  });

  it('a set-user-id file a node left in the workspace is shared without its set-id bits', () => {
    const { workspace } = workspaceUnder(0o755);
    const file = join(workspace, 'suid');
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o6755);
    prepareNodeUser({ isolation: 'user', user: USER, workspace, warn: () => {}, say: () => {} });
    const st = statSync(file);
    expect([st.gid, st.mode & 0o7777]).toEqual([47213, 0o775]);
  });

  it("a link in the place of the step's sessions folder is refused, and the folder it aims at keeps its mode", () => {
    const { parent, workspace } = workspaceUnder(0o755);
    const user = prepareNodeUser({
      isolation: 'user',
      user: USER,
      workspace,
      warn: () => {},
      say: () => {},
    })!;
    const aimed = join(parent, 'root-only-folder');
    mkdirSync(aimed, { mode: 0o700 });
    symlinkSync(aimed, join(user.homes, 'sessions'));
    expect(() => sessionDir(user, 'work', 'claude-code')).toThrow(
      /sessions is not a folder \((ELOOP|ENOTDIR)\): interlock does not use it/,
    );
    const st = statSync(aimed);
    expect([st.uid, st.mode & 0o7777]).toEqual([0, 0o700]);
    expect(readdirSync(aimed)).toEqual([]);
  });

  it("a sessions folder another user made (the node user's) is refused, not taken and opened up", () => {
    const { workspace } = workspaceUnder(0o755);
    const user = prepareNodeUser({
      isolation: 'user',
      user: USER,
      workspace,
      warn: () => {},
      say: () => {},
    })!;
    const sessions = join(user.homes, 'sessions');
    mkdirSync(sessions, { mode: 0o700 });
    chownSync(sessions, 47213, 47213);
    expect(() => sessionDir(user, 'work', 'claude-code')).toThrow(/belongs to uid 47213/);
    expect(statSync(sessions).mode & 0o7777).toBe(0o700);
  });

  it("the sessions folder interlock makes is its own, mode 711; the session folders in it the node user's", () => {
    const { workspace } = workspaceUnder(0o755);
    const user = prepareNodeUser({
      isolation: 'user',
      user: USER,
      workspace,
      warn: () => {},
      say: () => {},
    })!;
    const dir = sessionDir(user, 'work', 'claude-code')!;
    const sessions = lstatSync(join(user.homes, 'sessions'));
    expect([sessions.uid, sessions.mode & 0o7777]).toEqual([0, 0o711]);
    expect(lstatSync(dir).uid).toBe(47213);
  });

  it.skipIf(hasSetfacl)(
    'isolation: user refuses a workspace behind a directory the node user cannot pass',
    () => {
      const { parent, workspace } = workspaceUnder(0o700);
      expect(() =>
        prepareNodeUser({ isolation: 'user', user: USER, workspace, warn: () => {}, say: () => {} }),
      ).toThrow(
        `isolation: user: node-user "${USER}" cannot reach the workspace: it may not pass through ${parent} (mode 700)`,
      );
      expect(nodeUser()).toBeUndefined();
    },
  );

  it.skipIf(hasSetfacl)('isolation: auto says so loudly and runs nodes as its own user instead', () => {
    const { parent, workspace } = workspaceUnder(0o700);
    const warnings: string[] = [];
    const user = prepareNodeUser({
      isolation: 'auto',
      user: USER,
      workspace,
      warn: (m) => warnings.push(m),
      say: () => {},
    });
    expect(user).toBeUndefined();
    expect(nodeUser()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`may not pass through ${parent}`);
    expect(warnings[0]).toContain("node commands run as the runner's own user");
  });

  it.runIf(hasSetfacl)('grants passage through a closed parent with an ACL where setfacl exists', () => {
    const { workspace } = workspaceUnder(0o700);
    const user = prepareNodeUser({ isolation: 'user', user: USER, workspace, warn: () => {}, say: () => {} });
    expect(user).toMatchObject({ uid: 47213 });
  });
});
