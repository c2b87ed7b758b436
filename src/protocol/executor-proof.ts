/**
 * Whether a local executor is provably gone (recovery's rule 3 for the CLI): proof must be positive. The executor's
 * pid running with the start time the dispatch recorded, or running with a start that cannot be read, is alive;
 * a process still carrying the attempt's tag is the attempt; and a process of the executor's user whose
 * environment cannot be read may be carrying it (a process can make itself unreadable), so it counts as alive
 * too. Only when none of these holds is the executor gone. Pure: src/runner/recovery/liveness.ts gathers the facts.
 */

/** What the shell saw on this host. */
interface LocalFacts {
  pid: number;
  /**
   * The executor's pid: running as the process the dispatch recorded (`same`; also when an old journal recorded
   * no start), running with another start (`reused`), not running (`none`), or running with a start that cannot
   * be read (`unreadable`).
   */
  executor: 'same' | 'reused' | 'none' | 'unreadable';
  /** Live processes whose environment carries the attempt's tag. */
  tagged: readonly number[];
  /** Live processes of the executor's user whose environment could not be read. */
  unreadable: readonly number[];
}

export function localExecutorProof(f: LocalFacts): {
  gone: boolean;
  why: string;
  running?: readonly number[];
} {
  if (f.executor === 'same') return { gone: false, why: `its executor (pid ${f.pid}) is still running` };
  if (f.executor === 'unreadable')
    return {
      gone: false,
      why: `pid ${f.pid} is running and its start time cannot be read, so it cannot be shown to be another process than the executor`,
    };
  if (f.tagged.length)
    return {
      gone: false,
      why: `its command is still running (pid ${f.tagged.join(', ')}) although the executor exited`,
      running: f.tagged,
    };
  if (f.unreadable.length)
    return {
      gone: false,
      why: `the environment of pid ${f.unreadable.join(', ')} (this user's) cannot be read, so it cannot be shown that none of them is the attempt's command`,
    };
  return { gone: true, why: `executor pid ${f.pid} is gone` };
}
