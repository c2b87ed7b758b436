/** What every CLI verb shares: where it writes (`Io`), its exit codes, the usage error, and who is acting. */
import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';

/** What the CLI writes to; injected so tests can capture it. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The terminal's width when stdout is one (`status --timeline` fits it). */
  columns?: number;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, blocked: 3, departed: 4 } as const;

export class UsageError extends Error {}

/** Who acts when --by is not given, and where that name came from. */
interface Identity {
  name: string;
  from: 'git config user.name' | 'the login name';
}

/** git's `user.name` in the working directory, then the login name (`$USER` is empty in many containers). */
export function defaultIdentity(io: Io): Identity | undefined {
  try {
    const name = execFileSync('git', ['config', 'user.name'], {
      cwd: io.cwd,
      env: io.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    }).trim();
    if (name) return { name, from: 'git config user.name' };
  } catch {
    // No git, no repository or no user.name: the login name next.
  }
  const login = safeUser()?.trim();
  return login ? { name: login, from: 'the login name' } : undefined;
}

/** The person named with --by, else the default identity, else "unknown". */
export function person(io: Io, by: string | undefined): string {
  if (by?.trim()) return by.trim();
  return defaultIdentity(io)?.name ?? 'unknown';
}

/**
 * The person who decides (approve, settle, fail-run, rerun-from): --by, else the default identity, said on
 * stderr so the name recorded is never a surprise; with neither, a usage error.
 */
export function decider(io: Io, verb: string, by: string | undefined): string {
  if (by?.trim()) return by.trim();
  const who = defaultIdentity(io);
  if (!who)
    throw new UsageError(
      `${verb} needs --by NAME: the person who decides is recorded (no git user.name and no login name to default to)`,
    );
  io.err(`interlock: acting as "${who.name}" (${who.from}; --by NAME names someone else)\n`);
  return who.name;
}

export function safeUser(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}
