/**
 * What an attempt used: the measured wall time, the usage a prompt node's agent printed as its JSON result, and
 * the JSON the node wrote to `$INTERLOCK_USAGE`. What cannot be read is left out with a warning, never a failure.
 */
import { readFileSync } from 'node:fs';
import type { Usage } from '../journal/event-fields.js';
import { attemptUsage, type UsageReading, usageFromClaudeResult, usageFromFile } from '../protocol/usage.js';

/** How much of a prompt node's stdout is kept to find the agent's result (its last line). */
export const AGENT_STDOUT_BYTES = 1_000_000;

/** More than any usage object needs: a bigger file is not read. */
const MAX_USAGE_FILE = 64 * 1024;

export interface UsageSources {
  wallMs: number;
  /** The end of a prompt node's stdout; undefined for `run` nodes. */
  agentStdout: string | undefined;
  /** What an engine's output said it used (read instead of the stdout). */
  agent?: UsageReading;
  /** The `$INTERLOCK_USAGE` file. */
  usageFile: string;
  /** Where each warning goes (the attempt's log). */
  warn: (message: string) => void;
}

function fileReading(path: string): UsageReading {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { usage: {}, warnings: [] };
  }
  if (text.length > MAX_USAGE_FILE)
    return {
      usage: {},
      warnings: [`$INTERLOCK_USAGE: ${text.length} bytes, more than ${MAX_USAGE_FILE}; ignored`],
    };
  return usageFromFile(text, '$INTERLOCK_USAGE');
}

/** The attempt's usage; the file's fields win over the agent result's. */
export function readAttemptUsage(src: UsageSources): Usage {
  const agent =
    src.agent ??
    (src.agentStdout !== undefined ? usageFromClaudeResult(src.agentStdout) : { usage: {}, warnings: [] });
  const file = fileReading(src.usageFile);
  for (const w of [...agent.warnings, ...file.warnings]) src.warn(`interlock: usage ignored: ${w}`);
  return attemptUsage(src.wallMs, agent, file);
}
