/** Whether a local attempt's executor is gone (recovery's probe), and this process described as an executor. */
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import type { RunnerInfo } from '../journal/event-fields.js';
import type { DispatchInfo } from '../journal/state.js';
import { processAlive, processesWithTag, processStart } from '../os/processes.js';
import type { Probe } from '../protocol/recovery.js';

/** Describes this process as the executor of an attempt. */
export function localRunner(execTag: string): RunnerInfo {
  const start = processStart(process.pid);
  return {
    kind: 'local',
    host: hostname(),
    pid: process.pid,
    ...(start !== undefined ? { pid_start: start } : {}),
    exec_tag: execTag,
  };
}

/**
 * Whether a local attempt's executor is provably gone: same host, its pid dead or reused, and no process
 * still carrying the attempt's tag (the node's command may outlive a killed CLI). Other hosts are left alone
 * unless assumeDead.
 */
export function probeLocal(
  dispatch: DispatchInfo,
  opts: { assumeDead: boolean; logFile?: (attempt: number) => string },
): Probe {
  const r = dispatch.runner;
  const observed = observedMs(dispatch, opts.logFile?.(dispatch.attempt));
  if (r.kind !== 'local') {
    return opts.assumeDead
      ? { gone: true, why: 'assumed dead (--assume-dead)', observed_ms: observed }
      : {
          gone: false,
          why: `dispatched by a ${r.kind} runner; recover it there, or pass --assume-dead`,
          observed_ms: observed,
        };
  }
  if (r.host !== hostname()) {
    return opts.assumeDead
      ? { gone: true, why: `on host ${r.host}, assumed dead (--assume-dead)`, observed_ms: observed }
      : {
          gone: false,
          why: `in flight on another host (${r.host}); pass --assume-dead if it is known to be gone`,
          observed_ms: observed,
        };
  }
  const pid = r.pid ?? -1;
  const alive = processAlive(pid) && (r.pid_start === undefined || processStart(pid) === r.pid_start);
  if (alive) return { gone: false, why: `its executor (pid ${pid}) is still running`, observed_ms: observed };
  const tagged = r.exec_tag ? processesWithTag(r.exec_tag) : [];
  if (tagged.length) {
    return {
      gone: false,
      why: `its command is still running (pid ${tagged.join(', ')}) although the executor exited`,
      observed_ms: observed,
    };
  }
  return { gone: true, why: `executor pid ${pid} is gone`, observed_ms: observed };
}

/** A lower bound of the time the attempt ran: from dispatch to the last write of its log. */
function observedMs(dispatch: DispatchInfo, logFile: string | undefined): number {
  if (!logFile) return 0;
  try {
    const ms = statSync(logFile).mtimeMs - Date.parse(dispatch.at);
    return Math.max(0, Math.round(ms));
  } catch {
    return 0;
  }
}
