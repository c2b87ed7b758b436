/** Whether a local attempt's executor is gone (recovery's probe), and this process described as an executor. */
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import type { RunnerInfo } from '../../journal/events/fields.js';
import type { DispatchInfo } from '../../journal/state.js';
import { processAlive, processesWithTag, processStart } from '../../os/processes.js';
import { localExecutorProof } from '../../protocol/executor-proof.js';
import type { Probe } from '../../protocol/recovery.js';

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
 * Whether a local attempt's executor is provably gone (src/protocol/executor-proof.ts): same host, its pid dead or
 * reused, no process still carrying the attempt's tag (the node's command may outlive a killed CLI) and none of
 * this user's that hides its environment. Other hosts are left alone unless assumeDead.
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
  const start = processAlive(pid) ? processStart(pid) : undefined;
  const executor = !processAlive(pid)
    ? 'none'
    : r.pid_start === undefined
      ? 'same'
      : start === undefined
        ? 'unreadable'
        : start === r.pid_start
          ? 'same'
          : 'reused';
  const own = process.getuid?.();
  const { tagged, unreadable } = r.exec_tag
    ? // A process started before the dispatch (an ssh-agent, say) is none the attempt started; a margin for clocks.
      processesWithTag(r.exec_tag, own === undefined ? [] : [own], (Date.parse(dispatch.at) || 0) - 5000)
    : { tagged: [], unreadable: [] };
  return { ...localExecutorProof({ pid, executor, tagged, unreadable }), observed_ms: observed };
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
