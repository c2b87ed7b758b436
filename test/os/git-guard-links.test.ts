// The git guard puts `.git/` back without following a link a node planted (issue 34's rule): a file is unlinked
// and created anew (O_CREAT|O_EXCL|O_NOFOLLOW), its mode set through the descriptor; a folder is opened with
// O_NOFOLLOW|O_DIRECTORY; a file under `.git/` is read without following a link and bounded; a FIFO in a guarded
// file's place is replaced, never read. Each row: the file a link aims at keeps its bytes, mode and owner.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardCheckout, restoreCheckout, restoreEntry } from '../../src/os/git/git-guard.js';
import { MAX_GUARDED_BYTES } from '../../src/os/git/git-snapshot.js';

const asRoot = process.getuid?.() === 0;
/** As root, the aimed-at file belongs to another user (a root-only file's stand-in keeps its owner); else ours. */
const OTHER = asRoot ? 4242 : process.getuid!();

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** A file only its owner may read: what a link planted by a node would aim at. */
function protectedFile(): { path: string; facts: () => string } {
  const dir = temp('interlock-guard-target-');
  const path = join(dir, 'root-only');
  writeFileSync(path, 'the secret\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  chownSync(path, OTHER, OTHER);
  const facts = () => {
    const st = lstatSync(path);
    return `${readFileSync(path, 'utf8')} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
  };
  return { path, facts };
}

function checkout(): string {
  const ws = temp('interlock-guard-ws-');
  const git = (...a: string[]) => execFileSync('git', a, { cwd: ws, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git(
    '-c',
    'user.name=c',
    '-c',
    'user.email=c@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'initial',
  );
  mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(ws, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return ws;
}

describe('the git guard restores without following links', () => {
  it('a file: a link planted in its place is removed, the file made anew; the aimed-at file is unchanged', () => {
    const target = protectedFile();
    const before = target.facts();
    const path = join(temp('interlock-guard-'), 'config');
    symlinkSync(target.path, path);
    restoreEntry(path, { kind: 'file', mode: 0o644, data: Buffer.from('[core]\n').toString('base64') });
    expect(target.facts()).toBe(before);
    const st = lstatSync(path);
    expect([st.isFile(), (st.mode & 0o777).toString(8), readFileSync(path, 'utf8')]).toEqual([
      true,
      '644',
      '[core]\n',
    ]);
  });

  it('a folder: a link in its place is refused, and the folder it aims at keeps its mode and owner', () => {
    const aimed = temp('interlock-guard-aimed-');
    chmodSync(aimed, 0o700);
    chownSync(aimed, OTHER, OTHER);
    const path = join(temp('interlock-guard-'), 'hooks');
    symlinkSync(aimed, path);
    expect(() => restoreEntry(path, { kind: 'dir', mode: 0o755 })).toThrow(/ELOOP|ENOTDIR/);
    const st = lstatSync(aimed);
    expect([(st.mode & 0o7777).toString(8), st.uid]).toEqual(['700', OTHER]);
  });

  it('.git/config replaced by a link to a root-only file: put back, the file aimed at unchanged', () => {
    const ws = checkout();
    const config = join(ws, '.git', 'config');
    const original = readFileSync(config, 'utf8');
    guardCheckout({ workspace: ws, warn: () => {} });
    const target = protectedFile();
    const before = target.facts();
    rmSync(config);
    symlinkSync(target.path, config);
    restoreCheckout();
    expect(target.facts()).toBe(before);
    expect([lstatSync(config).isFile(), readFileSync(config, 'utf8')]).toEqual([true, original]);
  });

  it('.git/hooks replaced by a link to a folder: put back, the folder aimed at keeps its mode', () => {
    const ws = checkout();
    guardCheckout({ workspace: ws, warn: () => {} });
    const aimed = temp('interlock-guard-aimed-');
    chmodSync(aimed, 0o700);
    const hooks = join(ws, '.git', 'hooks');
    rmSync(hooks, { recursive: true });
    symlinkSync(aimed, hooks);
    restoreCheckout();
    expect((lstatSync(aimed).mode & 0o7777).toString(8)).toBe('700');
    expect(lstatSync(hooks).isDirectory()).toBe(true);
    expect(readFileSync(join(hooks, 'pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  });

  it('.git/config replaced by a FIFO: put back as the file it was, never read (a read would hang)', () => {
    const ws = checkout();
    const config = join(ws, '.git', 'config');
    const original = readFileSync(config, 'utf8');
    guardCheckout({ workspace: ws, warn: () => {} });
    rmSync(config);
    execFileSync('mkfifo', [config]);
    restoreCheckout();
    expect([lstatSync(config).isFile(), readFileSync(config, 'utf8')]).toEqual([true, original]);
  });

  it('a hook grown past the bound (sparse, 1 GiB) is removed without being read whole', () => {
    const ws = checkout();
    guardCheckout({ workspace: ws, warn: () => {} });
    const hook = join(ws, '.git', 'hooks', 'pre-commit');
    closeSync(openSync(hook, 'w'));
    truncateSync(hook, 1024 ** 3);
    expect(1024 ** 3).toBeGreaterThan(MAX_GUARDED_BYTES);
    const rss = process.memoryUsage().rss;
    restoreCheckout();
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
    expect(readFileSync(hook, 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  });
});

describe('every git folder the guard puts paths back in is the one it copied (issue 46)', () => {
  it("a submodule's git folder replaced by a link: refused naming it, the folder aimed at unchanged", () => {
    const ws = checkout();
    const sub = join(ws, '.git', 'modules', 'sub');
    mkdirSync(join(sub, 'hooks'), { recursive: true });
    writeFileSync(join(sub, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(sub, 'config'), '[core]\n\tbare = false\n');
    guardCheckout({ workspace: ws, warn: () => {} });
    const aimed = temp('interlock-guard-aimed-');
    writeFileSync(join(aimed, 'keep-me'), 'kept\n');
    execFileSync('mv', [sub, `${sub}.moved`]);
    symlinkSync(aimed, sub);
    expect(() => restoreCheckout()).toThrow(/modules\/sub is not the git folder interlock saw/);
    expect(execFileSync('ls', ['-A', aimed], { encoding: 'utf8' })).toBe('keep-me\n');
  });

  it('a copy kept by an older interlock, which names no folders, is refused', () => {
    const ws = checkout();
    const state = temp('interlock-guard-state-');
    guardCheckout({ workspace: ws, stateDir: state, warn: () => {} });
    const [file] = execFileSync('ls', [state], { encoding: 'utf8' }).trim().split('\n');
    const kept = JSON.parse(readFileSync(join(state, file!), 'utf8'));
    delete kept.folders;
    writeFileSync(join(state, file!), JSON.stringify(kept));
    expect(() => guardCheckout({ workspace: ws, stateDir: state, warn: () => {} })).toThrow(
      /written by an older interlock/,
    );
  });
});
