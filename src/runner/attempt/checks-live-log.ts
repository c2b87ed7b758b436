/** Where an attempt's evidence commands' output goes, and how a path to it is shown to people. */
import { isAbsolute, relative } from 'node:path';
import type { CommandOutput } from '../../evidence/local.js';
import type { AttemptOptions, AttemptSetup } from './attempt.js';

/** A path as a person finds it: relative to the workspace when inside it. */
export function shownPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/**
 * Where each evidence command's output goes: a log file beside the attempt's (`<node>-<attempt>.check-<n>.log`)
 * when the setup keeps logs, and the setup's live output.
 */
export function checkOutputs(setup: AttemptSetup, opts: AttemptOptions): (check: string) => CommandOutput {
  let n = 0;
  const attemptLog = setup.logFile?.(opts.node.id, opts.attempt);
  const mark = { node: opts.node.id, attempt: opts.attempt, approach: opts.approach.label };
  return (check) => {
    n += 1;
    const logFile = attemptLog ? attemptLog.replace(/(\.log)?$/, `.check-${n}.log`) : undefined;
    const live = setup.checkOutput?.(mark, check);
    const where = logFile ? shownPath(setup.cwd, logFile) : live?.where;
    return {
      ...(logFile ? { logFile } : {}),
      ...(live ? { echo: live.echo, end: live.end } : {}),
      ...(where ? { where } : {}),
    };
  };
}
