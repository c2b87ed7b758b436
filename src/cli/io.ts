/** What every CLI verb shares: where it writes (`Io`), its exit codes, the usage error, and who is acting. */
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

export const EXIT = { ok: 0, failed: 1, usage: 2, blocked: 3 } as const;

export class UsageError extends Error {}

/** The person named with --by, else the user running the CLI. */
export function person(io: Io, by: string | undefined): string {
  if (by?.trim()) return by.trim();
  return io.env.USER || safeUser() || 'unknown';
}

export function safeUser(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}
