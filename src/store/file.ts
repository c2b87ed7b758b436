import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { sha256 } from '../graph/load.js';
import type { Journal } from '../journal/events.js';
import { parseJournal, serializeJournal } from '../journal/parse.js';
import { processAlive } from '../runner/liveness.js';
import type { JournalStore, StoredJournal, WriteResult } from './types.js';

const LOCK_WAIT_MS = 15_000;

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
    const me = `${hostname()} ${process.pid}`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    let delay = 2;
    while (true) {
      try {
        const fd = openSync(lockPath, 'wx', 0o644);
        writeSync(fd, me);
        closeSync(fd);
        return () => {
          try {
            unlinkSync(lockPath);
          } catch {
            // already gone: nothing to release
          }
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = readText(lockPath);
      const [host, pid] = (holder ?? '').split(' ');
      if (holder !== null && holder !== '' && host === hostname() && !processAlive(Number(pid))) {
        // The holder died while holding the lock; its write never renamed, so the journal is intact.
        try {
          if (readText(lockPath) === holder) unlinkSync(lockPath);
        } catch {
          // another waiter took it over first
        }
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
