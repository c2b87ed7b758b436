/**
 * The working directory a replay's agent works in (issue 48): a temporary copy, never the run's own folder. When
 * the attempt's dispatch names the commit checked out then (`runner.git_head`) and this repository has it, the
 * copy is that commit's tree (`git archive`), with the files git ignores copied as they are now, and a `.git`
 * folder copied and reset to the commit (its branch and index there, the files left as they are). Else it is the
 * working directory as it is now, and the replay says so. `.interlock/` is never copied (only its shape), nor a
 * `.git` file (a linked worktree's: git in the copy would write the repository it names).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';

/** The copy, and what it holds in words (for the replay's output and replay.json). */
interface ReplayCopy {
  path: string;
  tree: string;
  /** The commit whose tree it holds, when it holds one. */
  commit?: string;
}

/** git that runs nothing of the repository's own (no hooks, no fsmonitor) and pages nothing. */
const SAFE = ['--no-pager', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null'];

function git(cwd: string, args: string[]): string {
  return execFileSync('git', [...SAFE, ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
}

const lstatOf = (p: string) => {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
};

/** Whether an entry of the working directory is never copied: `.interlock/`, a `.git` file, the copy itself. */
function leftOut(from: string, name: string, to: string): boolean {
  if (name === '.interlock' || to === from || to.startsWith(from + sep)) return true;
  return name === '.git' && !lstatOf(from)?.isDirectory();
}

/** The working directory as it is now, entry by entry. */
function copyAsNow(cwd: string, to: string): void {
  for (const entry of readdirSync(cwd)) {
    const from = join(cwd, entry);
    if (leftOut(from, entry, to)) continue;
    cpSync(from, join(to, entry), { recursive: true, verbatimSymlinks: true });
  }
}

/** `git archive` of `treeish` unpacked into the empty folder `to`. */
function unpack(cwd: string, treeish: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn('git', [...SAFE, 'archive', '--format=tar', treeish], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tar = spawn('tar', ['-x', '-f', '-', '-C', to], { stdio: ['pipe', 'ignore', 'pipe'] });
    archive.stdout.pipe(tar.stdin);
    // A tar that ended early is said by its exit code; the pipe's own error adds nothing.
    tar.stdin.on('error', () => {});
    let said = '';
    for (const p of [archive, tar])
      p.stderr.on('data', (c: Buffer) => {
        said += c.toString('utf8');
      });
    let left = 2;
    let failed = false;
    const ended = (who: string) => (code: number | null) => {
      if (code !== 0 && !failed) {
        failed = true;
        reject(new Error(`${who} exited ${code}: ${said.trim().slice(0, 300)}`));
      }
      if (--left === 0 && !failed) resolve();
    };
    archive.on('error', reject);
    tar.on('error', reject);
    archive.on('close', ended('git archive'));
    tar.on('close', ended('tar'));
  });
}

/** Whether every folder on the way from `to` to `rel` is a real folder (made when missing), so a copy lands inside. */
function inside(to: string, rel: string): boolean {
  let at = to;
  for (const part of dirname(rel)
    .split('/')
    .filter((p) => p && p !== '.')) {
    at = join(at, part);
    const st = lstatOf(at);
    if (!st) mkdirSync(at);
    else if (!st.isDirectory()) return false;
  }
  return true;
}

/**
 * The files git ignores (dependencies, caches, local settings: what the work needs around it), copied as they are
 * now where the commit's tree has none. Other untracked files are left out: the attempt may have made them.
 */
function copyIgnored(cwd: string, to: string): void {
  const listed = git(cwd, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'])
    .split('\0')
    .filter(Boolean);
  for (const raw of listed) {
    const rel = raw.replace(/\/$/, '');
    const top = rel.split('/')[0]!;
    if (leftOut(join(cwd, top), top, to) || top === '.git' || lstatOf(join(to, rel))) continue;
    if (!inside(to, rel)) continue;
    cpSync(join(cwd, rel), join(to, rel), { recursive: true, verbatimSymlinks: true });
  }
}

/**
 * An `.interlock/` in the copy shaped as the run's (its `.gitignore`, its folders empty, `replays/` left out), so
 * that an agent that lists the working directory (Gemini CLI does, in its first message) sees what it saw; the
 * journals and logs are not copied.
 */
function interlockShape(cwd: string, to: string): void {
  const from = join(cwd, '.interlock');
  if (!lstatOf(from)?.isDirectory()) return;
  mkdirSync(join(to, '.interlock'));
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== 'replays') mkdirSync(join(to, '.interlock', e.name));
    else if (e.isFile() && e.name === '.gitignore')
      cpSync(join(from, e.name), join(to, '.interlock', e.name));
  }
}

/** The commit as this repository has it (a full id), or undefined when it has none such. */
function commitHere(cwd: string, commit: string): string | undefined {
  if (!/^[0-9a-f]{40,64}$/.test(commit)) return undefined;
  try {
    return git(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${commit}^{commit}`]).trim();
  } catch {
    return undefined;
  }
}

/** Makes the copy for the replay of an attempt dispatched at `gitHead` (undefined: the journal names none). */
export async function replayCopy(cwd: string, gitHead: string | undefined): Promise<ReplayCopy> {
  const asNow = (why: string): ReplayCopy => {
    const to = mkdtempSync(join(tmpdir(), 'interlock-replay-'));
    copyAsNow(cwd, to);
    interlockShape(cwd, to);
    return { path: to, tree: `the working directory as it is now: ${why}` };
  };
  if (!gitHead)
    return asNow('the journal names no commit for its dispatch (the run was not in a git repository)');
  const commit = commitHere(cwd, gitHead);
  if (!commit)
    return asNow(
      `the commit ${gitHead.slice(0, 12)} the attempt was dispatched at is not in this repository (fetch it to replay in its tree)`,
    );
  const to = mkdtempSync(join(tmpdir(), 'interlock-replay-'));
  try {
    const prefix = git(cwd, ['rev-parse', '--show-prefix']).trim();
    await unpack(cwd, `${commit}:${prefix}`, to);
    copyIgnored(cwd, to);
    interlockShape(cwd, to);
    if (lstatOf(join(cwd, '.git'))?.isDirectory()) {
      cpSync(join(cwd, '.git'), join(to, '.git'), { recursive: true, verbatimSymlinks: true });
      git(to, ['reset', '--quiet', '--mixed', commit]);
    }
  } catch (e) {
    rmSync(to, { recursive: true, force: true });
    return asNow(`the tree of commit ${commit.slice(0, 12)} could not be copied (${(e as Error).message})`);
  }
  return {
    path: to,
    commit,
    tree: `the tree of commit ${commit.slice(0, 12)}, checked out when the attempt was dispatched (the files git ignores as they are now)`,
  };
}
