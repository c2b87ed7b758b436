/**
 * Claude Code's output (`--output-format json` or `stream-json`): its result object says what the attempt used,
 * its session, its final message and how it ended. Pure.
 */
import type { EngineReading, EngineRun } from './engine.js';
import { claudeResultIn, usageFromClaudeResult } from './reported-usage.js';
import { oneLine, sessionId } from './text.js';

export function readClaude(stdout: string, run: EngineRun): EngineReading {
  const r = claudeResultIn(stdout);
  if (!r) {
    return {
      usage: {
        usage: {},
        warnings: ['Claude Code printed no result object: its usage and session are unknown'],
      },
    };
  }
  const id = sessionId(r.session_id);
  const out: EngineReading = {
    usage: usageFromClaudeResult(stdout),
    ...(id ? { session_id: id } : {}),
    ...(typeof r.result === 'string' ? { final_message: r.result } : {}),
  };
  const status = r.api_error_status;
  if (r.is_error === true && typeof status === 'number') {
    out.failure = {
      check: 'agent',
      message: `the model API answered ${status}: ${oneLine(r.result) || 'no message'}`,
    };
  } else if (r.subtype === 'error_max_turns') {
    out.failure = {
      check: 'budget',
      message: `the agent was stopped at its turn budget (--max-turns ${run.maxTurns ?? '?'}) after ${String(r.num_turns ?? '?')} turns, before it finished`,
    };
  } else if (r.is_error === true) {
    out.failure = {
      check: 'agent',
      message: `the agent ended with an error (${oneLine(r.subtype, 60) || 'is_error'}): ${oneLine(r.result) || 'no message'}`,
    };
  }
  return out;
}
