// Never through a link, never unbounded (issue 34): the files interlock shares with a node and reads back from it
// (src/os/node-user/node-files.ts), and the session files a cache restores (src/os/session-files.ts).

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runLocalCheck } from '../../src/evidence/local.js';
import {
  AttemptFiles,
  NodeFileError,
  privateFolder,
  readCheckoutFile,
} from '../../src/os/node-user/node-files.js';
import { scriptCommand } from '../../src/os/node-user/node-script.js';
import { configureNodeUser } from '../../src/os/node-user/node-user.js';
import { stageTranscripts, unstageTranscripts } from '../../src/os/session-files.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'interlock-node-files-'));
const files = () =>
  new AttemptFiles(
    'interlock-test-',
    [{ name: 'output', variable: '$INTERLOCK_OUTPUT', text: '' }],
    undefined,
  );
const me = process.getuid?.() ?? 0;

describe('never through a link, never unbounded: the attempt files', () => {
  it('reads what the node appended, through the descriptor it kept', () => {
    const f = files();
    writeFileSync(f.path('output'), 'a=1\n', { flag: 'a' });
    expect(f.read('output', 100)).toBe('a=1\n');
    f.close();
  });

  it.each([
    ['a symbolic link', (p: string) => symlinkSync('/proc/self/environ', p)],
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p])],
    ['a folder', (p: string) => mkdirSync(p)],
    ['another file', (p: string) => writeFileSync(p, 'forged=1\n')],
  ])('a file replaced by %s fails, naming it, and is never read through', (kind, plant) => {
    const f = files();
    unlinkSync(f.path('output'));
    plant(f.path('output'));
    expect(() => f.read('output', 100)).toThrow(
      new NodeFileError(
        '$INTERLOCK_OUTPUT',
        `was replaced by ${kind}; interlock reads only the file it made (append to it, never replace it)`,
      ),
    );
    expect(() => f.write('output', 'x')).toThrow(/was replaced by/);
    f.close();
  });

  it('a file renamed over it is refused too, and a removed one says so', () => {
    const f = files();
    const other = join(f.dir, 'other');
    writeFileSync(other, 'x=1\n');
    renameSync(other, f.path('output'));
    expect(() => f.read('output', 100)).toThrow(/was replaced by another file/);
    unlinkSync(f.path('output'));
    expect(() => f.read('output', 100)).toThrow(/\$INTERLOCK_OUTPUT: was removed/);
    f.close();
  });

  it('a file past its bound fails, saying its size and the bound, without reading it', () => {
    const f = files();
    truncateSync(f.path('output'), 1024 * 1024 * 1024);
    expect(() => f.read('output', 1000)).toThrow(
      '$INTERLOCK_OUTPUT: holds 1073741824 bytes, more than the 1000 interlock reads',
    );
    f.close();
  });

  it("the folder and the files are this process's alone when nodes run as this user", () => {
    const f = files();
    expect(statSync(f.dir).mode & 0o777).toBe(0o700);
    expect(statSync(f.path('output')).mode & 0o777).toBe(0o600);
    f.close();
  });
});

describe('never through a link: a folder of interlock at a fixed path', () => {
  it('is made 0700, and refused when open to others or a link', () => {
    const dir = scratch();
    expect(statSync(privateFolder(join(dir, 'mine'))).mode & 0o777).toBe(0o700);
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => privateFolder(open)).toThrow(/mode 777, not interlock's own/);
    symlinkSync(join(dir, 'mine'), join(dir, 'link'));
    expect(() => privateFolder(join(dir, 'link'))).toThrow(/is a symbolic link, not interlock's own/);
  });
});

describe.skipIf(me !== 0)('never with privileges: transcripts carried by the cache', () => {
  afterEach(() => configureNodeUser(undefined));
  const NODE = 54321;
  function world() {
    const dir = scratch();
    chmodSync(dir, 0o755);
    const target = join(dir, 'root-only');
    writeFileSync(target, 'ROOT-ONLY\n', { mode: 0o600 });
    configureNodeUser({ name: 'x', uid: NODE, gid: NODE, homes: dir, workspace: dir, via: 'spawn' });
    return { dir, target };
  }

  it('restored ones are written by the node user, a link among them as a link, never the file it names', () => {
    const { dir, target } = world();
    const staging = join(dir, 'staging');
    mkdirSync(staging);
    writeFileSync(join(staging, 'session.jsonl'), '{}\n');
    symlinkSync(target, join(staging, 'evil'));
    const to = join(dir, 'node', 'projects');
    mkdirSync(join(dir, 'node'));
    chownSync(join(dir, 'node'), NODE, NODE);
    unstageTranscripts(staging, to);
    expect(statSync(join(to, 'session.jsonl')).uid).toBe(NODE);
    expect(lstatSync(join(to, 'evil')).isSymbolicLink()).toBe(true);
    expect([statSync(target).uid, statSync(target).mode & 0o777]).toEqual([0, 0o600]);
  });

  it('saved ones are read by the node user: a file it cannot read is never copied', () => {
    const { dir, target } = world();
    const from = join(dir, 'projects');
    mkdirSync(from);
    writeFileSync(join(from, 'session.jsonl'), '{}\n');
    symlinkSync(target, join(from, 'link'));
    execFileSync('chown', ['-R', '-h', `${NODE}:${NODE}`, from]);
    const staging = join(dir, 'staging');
    expect(stageTranscripts(from, staging)).toBe(true);
    expect(readFileSync(join(staging, 'session.jsonl'), 'utf8')).toBe('{}\n');
    expect(lstatSync(join(staging, 'link')).isSymbolicLink()).toBe(true);
    // A root-only file in the node's folder (a hard link, where the kernel allows one): as root, cp read it.
    execFileSync('cp', [target, join(from, 'copied-by-root')]);
    expect(stageTranscripts(from, staging)).toBe(false);
    expect(existsSync(join(staging, 'copied-by-root'))).toBe(false);
  });
});

describe.skipIf(me !== 0)("never through a link: a session's folder", () => {
  afterEach(() => configureNodeUser(undefined));
  it("an engine's folder a node replaced by a link is refused, and what the link names is left alone", () => {
    const homes = scratch();
    chmodSync(homes, 0o711); // as the step's homes are: the node user may pass
    const victim = join(scratch(), 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'keep-me'), 'x\n');
    mkdirSync(join(homes, 'sessions', 'work'), { recursive: true });
    chownSync(join(homes, 'sessions', 'work'), 54321, 54321);
    symlinkSync(victim, join(homes, 'sessions', 'work', 'codex'));
    configureNodeUser({ name: 'x', uid: 54321, gid: 54321, homes, workspace: homes, via: 'spawn' });
    const env = { INTERLOCK_SESSION: 'work', INTERLOCK_ENGINE: 'codex', PATH: process.env.PATH };
    expect(() => scriptCommand('true', { env, grants: new Map() })).toThrow(
      `session "work": ${join(homes, 'sessions', 'work', 'codex')} is a symbolic link, which a node put there; interlock does not use it`,
    );
    expect(existsSync(join(victim, 'keep-me'))).toBe(true);
  });
});

describe('never unbounded: files of the checkout a node could have changed', () => {
  const check = (cwd: string, file: string) =>
    runLocalCheck(
      { file, contains: 'x' },
      { cwd, env: {}, grants: new Map(), outputs: {}, dispatchedAt: '' },
    );

  it('a file check does not follow a link out of the workspace, nor read a FIFO or past its bound', async () => {
    const ws = scratch();
    symlinkSync('/proc/self/environ', join(ws, 'env'));
    expect((await check(ws, 'env')).observed).toBe(
      `env: is a link to /proc/${process.pid}/environ, outside the workspace; interlock does not read it`,
    );
    execFileSync('mkfifo', [join(ws, 'fifo')]);
    expect((await check(ws, 'fifo')).observed).toBe('fifo: is a FIFO, not a regular file');
    writeFileSync(join(ws, 'big'), '');
    truncateSync(join(ws, 'big'), 1024 * 1024 * 1024);
    expect((await check(ws, 'big')).observed).toBe(
      'big: holds 1073741824 bytes, more than the 16777216 interlock reads',
    );
    writeFileSync(join(ws, 'ok'), 'x\n');
    symlinkSync('ok', join(ws, 'inside'));
    expect((await check(ws, 'inside')).passed).toBe(true);
  });

  it('a graph file that is a FIFO fails to load, saying so, rather than hang the step', () => {
    const ws = scratch();
    execFileSync('mkfifo', [join(ws, 'graph.yml')]);
    expect(() => loadGraphFile(join(ws, 'graph.yml'))).toThrow(
      'cannot read the graph file: is a FIFO, not a regular file',
    );
    expect(() => readCheckoutFile('/dev/zero', '/dev/zero')).toThrow(
      '/dev/zero: is a device, not a regular file',
    );
  });
});
