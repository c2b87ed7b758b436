/**
 * What an attempt used: the measured wall time, the usage a prompt node's agent printed as its JSON result, and
 * the JSON the node wrote to `$INTERLOCK_USAGE`. What does not parse is left out with a warning, never a failure
 * (a file a node broke, a link or past its bound, fails the attempt where it is read: src/runner/attempt/files.ts).
 */
import type { Usage } from '../../journal/events/fields.js';
import {
  attemptUsage,
  type UsageReading,
  usageFromClaudeResult,
  usageFromFile,
} from '../../protocol/engines/reported-usage.js';

/** How much of a prompt node's stdout is kept to find the agent's result (its last line). */
export const AGENT_STDOUT_BYTES = 1_000_000;

interface UsageSources {
  wallMs: number;
  /** The end of a prompt node's stdout; undefined for `run` nodes. */
  agentStdout: string | undefined;
  /** What an engine's output said it used (read instead of the stdout). */
  agent?: UsageReading;
  /** What the node wrote to `$INTERLOCK_USAGE` (read through src/os/node-user/node-files.ts); undefined: no file. */
  usageText?: string;
  /** Where each warning goes (the attempt's log). */
  warn: (message: string) => void;
}

function fileReading(text: string | undefined): UsageReading {
  if (!text?.trim()) return { usage: {}, warnings: [] };
  return usageFromFile(text, '$INTERLOCK_USAGE');
}

/** The attempt's usage; the file's fields win over the agent result's. */
export function readAttemptUsage(src: UsageSources): Usage {
  const agent =
    src.agent ??
    (src.agentStdout !== undefined ? usageFromClaudeResult(src.agentStdout) : { usage: {}, warnings: [] });
  const file = fileReading(src.usageText);
  for (const w of [...agent.warnings, ...file.warnings]) src.warn(`interlock: usage ignored: ${w}`);
  return attemptUsage(src.wallMs, agent, file);
}
