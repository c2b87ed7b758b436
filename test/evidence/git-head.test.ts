// gitHead, the commit an attempt is dispatched on: found wherever git finds a repository (a checkout, a
// directory inside one, a bare repository, GIT_DIR), and undefined elsewhere without starting git.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { gitHead } from '../../src/evidence/local.js';

const root = mkdtempSync(join(tmpdir(), 'interlock-git-head-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

function checkout(name: string): { dir: string; head: string } {
  const dir = join(root, name);
  mkdirSync(dir);
  git(dir, 'init', '-q');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'first');
  return { dir, head: git(dir, 'rev-parse', 'HEAD') };
}

describe('gitHead', () => {
  it('finds the commit in a checkout and in a directory inside it', () => {
    const { dir, head } = checkout('work');
    mkdirSync(join(dir, 'deep', 'er'), { recursive: true });
    expect(gitHead(dir)).toBe(head);
    expect(gitHead(join(dir, 'deep', 'er'))).toBe(head);
  });

  it("finds it in a worktree, whose `.git` is a file naming the repository's folder", () => {
    const { dir, head } = checkout('trunk');
    const tree = join(root, 'tree');
    git(dir, 'worktree', 'add', '-q', '--detach', tree);
    expect(gitHead(tree)).toBe(head);
  });

  it('finds it in a bare repository and through GIT_DIR', () => {
    const { dir, head } = checkout('origin');
    const bare = join(root, 'bare.git');
    git(root, 'clone', '-q', '--bare', dir, bare);
    expect(gitHead(bare)).toBe(head);
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    vi.stubEnv('GIT_DIR', join(dir, '.git'));
    try {
      expect(gitHead(elsewhere)).toBe(head);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('is undefined outside any repository, and starts no git there', () => {
    const plain = mkdtempSync(join(tmpdir(), 'interlock-no-repo-'));
    // A git first on PATH that leaves a mark: whether gitHead started one.
    const bin = join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'git'), `#!/bin/sh\ntouch "${join(root, 'git-started')}"\nexit 128\n`, {
      mode: 0o755,
    });
    vi.stubEnv('PATH', `${bin}:${process.env.PATH}`);
    // An empty `.git` folder above it (a sandbox's mount point, as Codex's makes in /tmp) is no repository.
    mkdirSync(join(plain, '.git'));
    mkdirSync(join(plain, 'inside'));
    try {
      expect(gitHead(plain)).toBeUndefined();
      expect(gitHead(join(plain, 'inside'))).toBeUndefined();
      expect(existsSync(join(root, 'git-started'))).toBe(false);
      expect(gitHead(join(root, 'work'))).toBeUndefined(); // a checkout: the fake git is asked, and fails
      expect(existsSync(join(root, 'git-started'))).toBe(true);
    } finally {
      vi.unstubAllEnvs();
      rmSync(plain, { recursive: true, force: true });
    }
  });
});
