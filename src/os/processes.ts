/** Processes on this machine (Linux /proc): alive or not, when one started, which carry an execution tag. */
import { readdirSync, readFileSync } from 'node:fs';

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

/** Pids of live processes whose environment carries this execution tag (Linux; empty elsewhere). */
export function processesWithTag(tag: string): number[] {
  const needle = `INTERLOCK_EXEC_TAG=${tag}`;
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (env.split('\0').includes(needle)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
