/**
 * A session's engine files on this machine, for nodes that run isolated: whether the transcript of one session id
 * is here, and the copies to and from a staging folder that a cache carries between workflow runs (the
 * transcripts folder only: `projects/` for Claude Code, `sessions/` for Codex). The copies made into the session
 * folder become the node user's.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SESSION_KEEPS, sessionDir } from './node-script.js';
import { nodeUser } from './node-user.js';

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };

/** The transcripts folder of a session's engine, when nodes run isolated (made when missing). */
export function transcriptsDir(name: string, engine: string): string | undefined {
  const user = nodeUser();
  const keep = SESSION_KEEPS[engine]?.keep;
  const dir = user && keep ? sessionDir(user, name, engine) : undefined;
  return dir && keep ? join(dir, keep) : undefined;
}

/** Whether a file whose name holds `id` is under `dir` (an engine names a session's transcript by its id). */
export function holdsSession(dir: string, id: string, depth = 6): boolean {
  if (depth < 0 || !existsSync(dir)) return false;
  for (const entry of readdirSync(dir)) {
    if (entry.includes(id)) return true;
    const p = join(dir, entry);
    if (lstatSync(p).isDirectory() && holdsSession(p, id, depth - 1)) return true;
  }
  return false;
}

/** Copies the transcripts into `staging` (emptied first), for the cache to save. */
export function stageTranscripts(from: string, staging: string): void {
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // Through sudo the transcripts are the node user's alone (0700): copy them as root, then make them ours.
  if (nodeUser()?.via === 'sudo') {
    try {
      execFileSync('sudo', ['-n', 'cp', '-a', '--', `${from}/.`, staging], quiet);
    } catch {
      return; // no transcripts yet
    }
    execFileSync(
      'sudo',
      ['-n', 'chown', '-R', '-h', '-P', `${process.getuid?.() ?? 0}`, '--', staging],
      quiet,
    );
  } else if (existsSync(from)) cpSync(from, staging, { recursive: true });
}

/** Copies what the cache restored into the transcripts folder, as the node user's. */
export function unstageTranscripts(staging: string, to: string): void {
  const user = nodeUser();
  if (!user || !existsSync(staging)) return;
  mkdirSync(to, { recursive: true });
  cpSync(staging, to, { recursive: true });
  if (user.via === 'sudo') {
    // -h with -R (-P): a link restored from the cache is given, never the file it names.
    execFileSync('sudo', ['-n', 'chown', '-R', '-h', '-P', `${user.uid}:${user.gid}`, '--', to], quiet);
    return;
  }
  const own = (p: string) => {
    lchownSync(p, user.uid, user.gid);
    const st = lstatSync(p);
    if (st.isDirectory() && !st.isSymbolicLink()) for (const e of readdirSync(p)) own(join(p, e));
  };
  own(to);
}
