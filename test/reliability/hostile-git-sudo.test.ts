// The git guard's hands hold when a node process is still alive (issue 46): while the guard puts a file or a
// folder back in a git folder, a racing process (the node, which owns that folder) swaps what the guard just made
// for a link to a root-owned file or folder outside. As root the guard puts it back itself (restoreAt, in
// src/os/git/git-walk.ts); through passwordless sudo, as the runner's user with the folder not its own, a helper
// run as root does (restoreAsRoot, src/os/git/git-sudo.ts). Either way the target outside keeps its bytes, mode
// and owner. The file is 4 MiB, so that a restore that writes the bytes first and sets the mode by path after
// (the sudo helper before this test: `dd` in 512-byte blocks, then `chmod`) is caught between the two. The
// caller runs in a process of its own, as the runner's user for the sudo column, through tsx.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const SRC = join(ROOT, 'src/os/git');
const BIG = 4 * 1024 * 1024;

/**
 * The racer (the node): makes `.swap`, a link to the target, then waits for `<name>` to be made as `kind` and
 * renames the link over it (a folder is removed first); prints `swapped`, or `never` after 30 s.
 */
const RACER = `'use strict';
const fs = require('fs');
const [dir, name, target, kind] = process.argv.slice(1);
const p = dir + '/' + name, swap = dir + '/.swap';
fs.symlinkSync(target, swap);
process.stdout.write('ready\\n');
const end = Date.now() + 30000;
for (;;) {
  let st;
  try { st = fs.lstatSync(p); } catch { if (Date.now() > end) { process.stdout.write('never\\n'); process.exit(0); } continue; }
  if (kind === 'file' ? st.isFile() : st.isDirectory()) {
    try { if (kind === 'dir') fs.rmdirSync(p); fs.renameSync(swap, p); process.stdout.write('swapped\\n'); }
    catch (e) { process.stdout.write('lost: ' + e.message + '\\n'); }
    process.exit(0);
  }
}
`;

/** The guard's caller: holds the git folder open and puts `<name>` back through it, as the setup does. */
const CALLER = `import { openSync, constants } from 'node:fs';
const [dir, name, kind, sudo] = process.argv.slice(1);
const entry = kind === 'file'
  ? { kind, mode: 0o755, data: Buffer.alloc(${BIG}, 'x').toString('base64') }
  : { kind, mode: 0o755 };
const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
try {
  if (sudo === 'sudo') (await import(${JSON.stringify(join(SRC, 'git-sudo.ts'))})).restoreAsRoot(fd, name, entry);
  else (await import(${JSON.stringify(join(SRC, 'git-walk.ts'))})).restoreAt(fd, name, entry, name);
  console.log('restored');
} catch (e) {
  console.log('refused: ' + e.message.split('\\n')[0]);
}
`;

/** What `child` prints: its first line as soon as it comes, and all of it with the exit code once it closed. */
function watch(child: ChildProcess) {
  let out = '';
  let first!: (line: string) => void;
  const line = new Promise<string>((r) => {
    first = r;
  });
  child.stdout!.on('data', (b: Buffer) => {
    out += b.toString('utf8');
    if (out.includes('\n')) first(out.slice(0, out.indexOf('\n')));
  });
  const done = new Promise<{ code: number | null; lines: string[] }>((r) =>
    child.on('close', (code) => {
      first(out);
      r({ code, lines: out.trim().split('\n') });
    }),
  );
  return { line, done };
}

/** Owner, mode and bytes (a folder's names) of `p`. */
function facts(p: string): string {
  const st = lstatSync(p);
  const body = st.isDirectory() ? readdirSync(p).join(',') : readFileSync(p, 'utf8');
  return `${st.isDirectory() ? 'd' : 'f'} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${body}`;
}

const setups = [
  { name: 'as root', sudo: false, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  // The caller is the runner's user: made as root here, as the hostile-git* suites make it.
  {
    name: 'through passwordless sudo',
    sudo: true,
    skip: process.getuid?.() === 0 ? noSudoRunner() : 'the racer needs root to own the target',
  },
];

describe.each(setups)(
  'a node swaps in a link while the git guard puts a path back, $name',
  ({ sudo, skip }) => {
    it.skipIf(!!skip).each(['file', 'dir'] as const)(
      'a %s put back: the target outside is untouched',
      async (kind) => {
        const base = mkdtempSync(join(tmpdir(), 'interlock-git-sudo-'));
        chmodSync(base, 0o755);
        const outside = join(base, 'outside');
        mkdirSync(outside, { mode: 0o755 });
        const target = join(outside, kind === 'file' ? 'root-only' : 'root-folder');
        if (kind === 'file') writeFileSync(target, 'root only\n', { mode: 0o600 });
        else mkdirSync(target, { mode: 0o700 });
        chmodSync(target, kind === 'file' ? 0o600 : 0o700);
        const before = facts(target);
        // The git folder is the node's (a uid of its own), so the runner's user may not write there.
        const git = join(base, 'git');
        mkdirSync(git, { mode: 0o755 });
        const user = sudo ? sudoRunner() : undefined;
        if (user) chownSync(git, 4242, 4242);
        const racer = spawn(process.execPath, ['-e', RACER, git, 'config', target, kind], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const raced = watch(racer);
        expect(await raced.line).toBe('ready');
        const caller = spawn(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', CALLER, git, 'config', kind, sudo ? 'sudo' : ''],
          {
            cwd: ROOT,
            stdio: ['ignore', 'pipe', 'pipe'],
            env: { ...process.env, ...(user ? { HOME: user.home } : {}) },
            ...(user ? { uid: user.uid, gid: user.gid } : {}),
          },
        );
        let stderr = '';
        caller.stderr!.on('data', (b: Buffer) => {
          stderr += b.toString('utf8');
        });
        const called = await watch(caller).done;
        const race = await raced.done;
        const result = called.lines.join('\n');
        expect(called.code, stderr).toBe(0);
        // The race ran: the guard's call came to an end (it made the path, or refused the link it met), and the
        // racer put its link in place of what the guard made.
        expect(result, stderr).toMatch(/^(restored|refused: )/);
        expect(race.lines, `${result}\n${stderr}`).toEqual(['ready', 'swapped']);
        expect(lstatSync(join(git, 'config')).isSymbolicLink()).toBe(true);
        expect(facts(target), result).toBe(before);
      },
      60_000,
    );
  },
);
