/**
 * A session's engine files on this machine, for nodes that run isolated: whether the transcript of one session id
 * is here, and the copies to and from a staging folder that a cache carries between workflow runs (the
 * transcripts folder only: `projects/` for Claude Code, `sessions/` for Codex, `.gemini/tmp/` for Gemini CLI). The node user reads and writes its
 * own folder itself; interlock only handles the staging folder, which is its own.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SESSION_KEEPS, sessionDir } from './node-user/node-script.js';
import { type NodeUser, nodeUser } from './node-user/node-user.js';

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };

/** The transcripts folder of a session's engine, when nodes run isolated (made when missing). */
export function transcriptsDir(name: string, engine: string): string | undefined {
  const user = nodeUser();
  const keep = SESSION_KEEPS[engine]?.keep;
  const dir = user && keep ? sessionDir(user, name, engine) : undefined;
  return dir && keep ? join(dir, keep) : undefined;
}

/** What a session's transcript file name holds: its id (Gemini CLI: the id's first 8 characters). */
const nameHolds = (id: string, engine?: string) => (engine === 'gemini' ? id.slice(0, 8) : id);

/**
 * Whether a file whose name holds `id` is under `dir` (an engine names a session's transcript by its id). The
 * folder is the node user's (0700): the node user looks (`find -P`, never through a link); through sudo the
 * runner's user could not look inside it at all. Without a node user, this process looks.
 */
export function holdsSession(dir: string, full: string, engine?: string, depth = 6): boolean {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(full)) return false;
  const id = nameHolds(full, engine);
  const user = nodeUser();
  if (!user) return holdsHere(dir, id, depth);
  try {
    const argv = ['find', '-P', dir, '-maxdepth', String(depth + 1), '-name', `*${id}*`, '-print', '-quit'];
    // A node could fill its folder with files: the look is bounded, and a look that runs out finds nothing.
    return (
      asNodeUser(user, argv, { maxBuffer: 64 * 1024, timeout: 20_000 })
        .toString()
        .trim() !== ''
    );
  } catch {
    return false; // no folder yet
  }
}

function holdsHere(dir: string, id: string, depth: number): boolean {
  if (depth < 0 || !existsSync(dir)) return false;
  for (const entry of readdirSync(dir)) {
    if (entry.includes(id)) return true;
    const p = join(dir, entry);
    if (lstatSync(p).isDirectory() && holdsHere(p, id, depth - 1)) return true;
  }
  return false;
}

/**
 * Each entry of a transcripts folder, sorted: a regular file as `<sha256>  <path>`, anything else (a link, a
 * FIFO) as `other  <path>`, so it is never read; the folder itself a link: `other  .`.
 */
const LISTING = [
  '[ -L "$1" ] && { printf "other  .\\0"; exit 0; }',
  'cd -P -- "$1" 2>/dev/null || exit 0',
  'find -P . -mindepth 1 ! -type d -print0 | LC_ALL=C sort -z | while IFS= read -r -d "" f; do',
  '  if [ -f "$f" ] && [ ! -L "$f" ]; then printf "%s  %s\\0" "$(sha256sum < "$f" | cut -c1-64)" "$f"',
  '  else printf "other  %s\\0" "$f"; fi',
  'done',
].join('\n');

/**
 * What a session's transcripts folder hashes to (SHA-256 of its listing), read by the node user (the folder is
 * its own); `odd` when it holds anything but folders and regular files. Undefined without a node user, or when
 * the folder cannot be read within the bound.
 */
export function transcriptsDigest(dir: string): { sha256: string; odd: boolean } | undefined {
  const user = nodeUser();
  if (!user) return undefined;
  let listing: Buffer;
  try {
    const argv = ['bash', '--noprofile', '--norc', '-c', LISTING, 'digest', dir];
    listing = asNodeUser(user, argv, { maxBuffer: 16 * 1024 * 1024, timeout: 60_000 });
  } catch {
    return undefined;
  }
  const odd = listing
    .toString('utf8')
    .split('\0')
    .some((line) => line.startsWith('other  '));
  return { sha256: createHash('sha256').update(listing).digest('hex'), odd };
}

/** The most a session's transcripts may hold to be carried by the cache. */
export const MAX_TRANSCRIPTS = 256 * 1024 * 1024;

/** Runs `argv` as the node user (spawned with its ids as root, through `sudo -u` otherwise). */
function asNodeUser(
  user: NodeUser,
  argv: string[],
  opts: { input?: Buffer; maxBuffer?: number; timeout?: number } = {},
): Buffer {
  const o = { stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'], ...opts };
  if (user.via === 'sudo') return execFileSync('sudo', ['-n', '-u', user.name, '--', ...argv], o);
  return execFileSync(argv[0]!, argv.slice(1), { ...o, uid: user.uid, gid: user.gid });
}

/**
 * Copies the transcripts into `staging` (emptied first), for the cache to save. The node user reads its own
 * folder (as a tar stream, at most MAX_TRANSCRIPTS bytes) and this process writes the copy: interlock never walks
 * the node's folder with its own privileges. False when there was nothing to copy or it was too big.
 */
export function stageTranscripts(from: string, staging: string): boolean {
  const user = nodeUser();
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  if (!user) {
    if (existsSync(from)) cpSync(from, staging, { recursive: true });
    return existsSync(from);
  }
  let archive: Buffer;
  try {
    archive = asNodeUser(user, ['tar', '-C', from, '-cf', '-', '.'], { maxBuffer: MAX_TRANSCRIPTS });
  } catch {
    return false; // no transcripts yet, or past the bound
  }
  execFileSync('tar', ['-C', staging, '-xf', '-', '--no-same-owner', '--no-same-permissions'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    input: archive,
  });
  return true;
}

/**
 * Copies what the cache restored into the transcripts folder: this process reads its own staging folder, the
 * node user writes its own folder, so whatever the entry holds (a link among it) is the node user's to follow.
 */
export function unstageTranscripts(staging: string, to: string): void {
  const user = nodeUser();
  if (!user || !existsSync(staging)) return;
  const archive = execFileSync('tar', ['-C', staging, '-cf', '-', '.'], { ...quiet, encoding: 'buffer' });
  const extract = 'mkdir -p -- "$1" && exec tar -C "$1" -xf - --no-same-owner';
  asNodeUser(user, ['bash', '--noprofile', '--norc', '-c', extract, 'extract', to], { input: archive });
}
