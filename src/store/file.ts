import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { sha256 } from '../graph/canonical.js';
import type { Journal } from '../journal/events/events.js';
import { parseJournal, serializeJournal } from '../journal/parse.js';
import { processAlive, processStart } from '../os/processes.js';
import type { JournalStore, StoredJournal, WriteResult } from './types.js';

const LOCK_WAIT_MS = 15_000;
const EMPTY_LOCK_STALE_MS = 5_000;

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * The journal in a local JSON file. Writes go to a temp file, are fsynced and renamed over the journal,
 * under a lock file, and only when the file's content hash is still the one that was read.
 */
export class FileStore implements JournalStore {
  readonly location: string;
  constructor(readonly path: string) {
    this.location = path;
  }

  async read(): Promise<StoredJournal | null> {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    // Bytes, not text: a journal that is not valid UTF-8 is refused, never decoded leniently and rewritten.
    return { journal: parseJournal(bytes, this.path), version: sha256(bytes.toString('utf8')) };
  }

  async write(journal: Journal, expected: string | null, _message: string): Promise<WriteResult> {
    mkdirSync(dirname(this.path), { recursive: true });
    const release = await this.lock();
    try {
      const current = readText(this.path);
      const version = current === null ? null : sha256(current);
      if (version !== expected) {
        return { ok: false, conflict: `${this.path} changed since it was read` };
      }
      const text = serializeJournal(journal);
      const tmp = join(
        dirname(this.path),
        `.${basename(this.path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
      );
      const fd = openSync(tmp, 'w', 0o644);
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.path);
      syncDir(dirname(this.path));
      return { ok: true, version: sha256(text) };
    } finally {
      release();
    }
  }

  /** An exclusive lock file naming its holder; a holder that died on this host is taken over. */
  private async lock(): Promise<() => void> {
    const lockPath = `${this.path}.lock`;
    const me = `${hostname()} ${process.pid} ${processStart(process.pid) ?? ''}`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    let delay = 2;
    while (true) {
      try {
        const fd = openSync(lockPath, 'wx', 0o644);
        try {
          writeSync(fd, me);
        } finally {
          closeSync(fd);
        }
        return () => {
          try {
            if (readText(lockPath) === me) unlinkSync(lockPath);
          } catch {
            // already gone: nothing to release
          }
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = readText(lockPath);
      if (holder !== null && lockIsStale(lockPath, holder)) {
        // The holder died while holding the lock; its write never renamed, so the journal is intact.
        takeOver(lockPath, holder);
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `${lockPath}: held by ${holder ?? 'unknown'} for over ${LOCK_WAIT_MS / 1000}s; remove it if no interlock process is running`,
        );
      }
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 50);
    }
  }
}

/** A lock is stale when its holder, on this host, is gone (or its pid reused), or it stayed empty for seconds. */
function lockIsStale(lockPath: string, holder: string): boolean {
  if (holder === '') {
    // Killed between creating the lock and naming itself in it.
    try {
      return Date.now() - statSync(lockPath).mtimeMs > EMPTY_LOCK_STALE_MS;
    } catch {
      return false;
    }
  }
  const [host, pid, start] = holder.split(' ');
  if (host !== hostname()) return false;
  if (!processAlive(Number(pid))) return true;
  return Boolean(start) && processStart(Number(pid)) !== start;
}

/**
 * Removes a stale lock, safely against other waiters: only the holder of `<lock>.takeover` (itself an exclusive
 * file) may remove it, and only while it still names the same dead holder. A takeover file left by a waiter
 * that died mid-takeover is cleared after a few seconds.
 */
function takeOver(lockPath: string, holder: string): void {
  const token = `${lockPath}.takeover`;
  try {
    closeSync(openSync(token, 'wx', 0o644));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    try {
      if (Date.now() - statSync(token).mtimeMs > EMPTY_LOCK_STALE_MS) unlinkSync(token);
    } catch {
      // someone else cleared it
    }
    return;
  }
  try {
    if (readText(lockPath) === holder) unlinkSync(lockPath);
  } finally {
    unlinkSync(token);
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some filesystems refuse fsync on a directory; the rename is still atomic
  }
}
