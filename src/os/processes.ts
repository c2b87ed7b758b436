/** Processes on this machine (Linux /proc): alive or not, when one started, which carry (or may carry) an execution tag. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** True when a process with this pid exists (signal 0 probes without sending). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie has exited; only its parent has not reaped it yet.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** The kernel's start time of a process (Linux), which tells a reused pid from the original. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** How often, and how far apart, a process whose environment could not be read is looked at again. */
const SECOND_LOOKS = 5;
const SECOND_LOOK_MS = 50;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Reads a process's environment (`/proc/<pid>/environ`); throws as the read does. */
export type EnvironReader = (pid: string) => string;
const readEnviron: EnvironReader = (pid) => readFileSync(`/proc/${pid}/environ`, 'latin1');

/**
 * What a look for an execution tag found (Linux; nothing elsewhere): the live processes whose environment carries
 * it, and those of `uids` started since `sinceMs` whose environment could not be read (a process may make itself
 * unreadable), which may be carrying it. One that could not be read is looked at again a few times, 50 ms apart:
 * a process passing through (a sudo changing users, a process starting or exiting) is read, or gone, by then, and
 * only one unreadable at every look is counted.
 */
export function processesWithTag(
  tag: string,
  uids: readonly number[] = [],
  sinceMs = 0,
  read: EnvironReader = readEnviron,
): { tagged: number[]; unreadable: number[] } {
  const needle = `INTERLOCK_EXEC_TAG=${tag}`;
  const found = { tagged: [] as number[], unreadable: [] as number[] };
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  let unsure = entries.filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  for (let look = 0; look <= SECOND_LOOKS && unsure.length > 0; look++) {
    if (look > 0) Atomics.wait(pause, 0, 0, SECOND_LOOK_MS);
    const again: string[] = [];
    for (const entry of unsure) {
      const seen = lookAt(entry, needle, uids, sinceMs, read);
      if (seen === 'tagged') found.tagged.push(Number(entry));
      else if (seen === 'unreadable') again.push(entry);
    }
    unsure = again;
  }
  found.unreadable = unsure.map(Number);
  return found;
}

/** One process: carries the tag, cannot be read (and may be the attempt's), or neither. */
function lookAt(
  entry: string,
  needle: string,
  uids: readonly number[],
  sinceMs: number,
  read: EnvironReader,
): 'tagged' | 'unreadable' | 'other' {
  try {
    return read(entry).split('\0').includes(needle) ? 'tagged' : 'other';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return 'other'; // gone meanwhile
    const uid = uidOf(entry);
    // pid 1 (init) is never a process an attempt started.
    const mine = entry !== '1' && (uid === undefined ? existsSync(`/proc/${entry}`) : uids.includes(uid));
    // One that started before `sinceMs` (the dispatch) is no process the attempt started.
    return mine && (startedAtMs(Number(entry)) ?? sinceMs) >= sinceMs ? 'unreadable' : 'other';
  }
}

/** A process's real uid, undefined when it cannot be read. */
function uidOf(pid: string): number | undefined {
  try {
    const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** When a process started (ms since the epoch, to the kernel's clock tick), from its stat and the boot time. */
function startedAtMs(pid: number): number | undefined {
  const ticks = Number(processStart(pid));
  if (!Number.isFinite(ticks)) return undefined;
  try {
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // USER_HZ is 100 on every Linux architecture interlock runs on.
    return Number.isFinite(btime) ? btime * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}
