/**
 * The engine's step setup for the CLI: this process as the executor, recovery by local liveness, each attempt's
 * output kept in `<journal>.logs/<node>-<attempt>.log` and echoed indented; and the event file given with --event.
 */

import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileNameOf } from '../graph/schema/subgraph.js';
import { payloadSubject, subjectLabel } from '../journal/run-id.js';
import type { Isolation } from '../os/isolation.js';
import { secretValues } from '../os/node-user/node-credentials.js';
import { readTuning } from '../os/tuning.js';
import type { StepSetup } from '../runner/dispatch.js';
import type { RunSetup } from '../runner/journal-io/read.js';
import { localRunner, probeLocal } from '../runner/recovery/liveness.js';
import { type Io, person, UsageError } from './io.js';
import { cliLive } from './live-file.js';

interface CliStepOptions {
  journalFile: string;
  /** Treat every in-flight attempt's executor as gone (--assume-dead). */
  assumeDead: boolean;
  /** Echo the node's output as it comes. */
  live: boolean;
  /** The agent's raw stream in the terminal too (`--verbose`); its steps are printed either way. */
  verbose?: boolean;
}

/** Echoes whole lines of a node's output, indented under interlock's own lines. */
export function lineEcho(io: Io): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const l of lines) io.err(`  │ ${l}\n`);
  };
}

/**
 * The CLI's isolation: it grants no node a credential, so the GitHub tokens of the person's environment are
 * withheld from every node (`node-credentials` is the Action's input).
 */
export const CLI_ISOLATION: Isolation = { credentials: new Map() };

export function stepSetup(io: Io, base: RunSetup, opts: CliStepOptions): StepSetup {
  const logDir = `${opts.journalFile.replace(/\.json$/, '')}.logs`;
  const logFile = (node: string, attempt: number) => join(logDir, `${fileNameOf(node)}-${attempt}.log`);
  return {
    ...base,
    lineUpSlotMs: readTuning(io.env).INTERLOCK_LINE_UP_SLOT_MS,
    isolation: CLI_ISOLATION,
    cwd: io.cwd,
    baseEnv: io.env,
    runner: localRunner,
    probe: (node, d) => probeLocal(d, { assumeDead: opts.assumeDead, logFile: (a) => logFile(node, a) }),
    recoveredBy: `interlock recover (${person(io, undefined)})`,
    logFile: (node, attempt) => {
      mkdirSync(logDir, { recursive: true });
      return logFile(node, attempt);
    },
    say: (m) => io.err(`interlock: ${m}\n`),
    secrets: secretValues(io.env),
    redacted: (m) => io.err(`interlock: warning: ${m}\n`),
    live: () => cliLive(io, opts.journalFile),
    ...(opts.live ? { echo: lineEcho(io), echoAgentStream: opts.verbose === true } : {}),
  };
}

export function parseInputs(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--input "${item}" must be key=value`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/** Reads the event file given with --event, for the `github` expression context. */
export function readEvent(
  io: Io,
  file: string | undefined,
): { github: unknown; subject: string; intent: string } {
  if (!file) return { github: null, subject: 'local', intent: 'cli' };
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(readFileSync(resolve(io.cwd, file), 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`--event ${file}: cannot read it as JSON (${(e as Error).message})`);
  }
  const ref = payloadSubject(payload);
  const action = typeof payload.action === 'string' ? payload.action : undefined;
  return {
    github: { event: payload },
    subject: ref ? subjectLabel(ref) : 'local',
    intent: `cli${action ? ` (${action})` : ''}`,
  };
}
