/**
 * Engines: what interlock adds to an engine's agent command, and what it reads from the engine's own output
 * (usage, session id, the agent's final message, how it ended). Pure: text in, readings out.
 *
 * - `claude-code`: `--output-format stream-json --verbose` (one JSON object a line, the last a `"type":"result"`
 *   object: `subtype` such as `success` or `error_max_turns`, `is_error`, `api_error_status`, `num_turns`,
 *   `result`, `session_id`, `total_cost_usd`, `usage`, `modelUsage`), `--max-turns <n>` with `budget.turns`.
 * - `codex`: `--json` and `-` (the prompt from stdin); JSON lines `thread.started{thread_id}`, `item.*`,
 *   `turn.completed{usage}` (OpenAI's `input_tokens` already include `cached_input_tokens`) or `turn.failed{error}`.
 */
import type { Engine } from '../graph/model.js';
import type { Failure } from '../journal/events.js';
import { readClaude } from './engine-claude.js';
import { readCodex } from './engine-codex.js';
import type { UsageReading } from './usage.js';

export { jsonLines, oneLine, sessionId } from './engine-text.js';

/** What an attempt asks of the engine. */
export interface EngineRun {
  /** `budget.turns`: Claude Code stops itself after this many turns. */
  maxTurns?: number;
}

/** What interlock read from an engine's output. */
export interface EngineReading {
  usage: UsageReading;
  /** The session the attempt made or continued (Claude Code `session_id`, Codex `thread_id`). */
  session_id?: string;
  /** The agent's last message to the user. */
  final_message?: string;
  /** How the agent ended, when that fails the attempt (an API error, its turn limit). */
  failure?: Failure;
}

/** The arguments interlock appends to an engine's agent command. */
export function engineArgs(engine: Engine, run: EngineRun): string[] {
  if (engine === 'codex') return ['--json', '-'];
  return [
    '--output-format',
    'stream-json',
    '--verbose',
    ...(run.maxTurns !== undefined ? ['--max-turns', String(run.maxTurns)] : []),
  ];
}

/** A word for a shell: kept as it is when it is plainly safe, else single-quoted. */
export function shellWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** The agent command with interlock's arguments appended (the agent stays the user's own command line). */
export function engineCommand(agent: string, engine: Engine, run: EngineRun): string {
  return `${agent.trimEnd()} ${engineArgs(engine, run).map(shellWord).join(' ')}`;
}

/** Reads the engine's output (stdout). */
export function readEngine(engine: Engine, stdout: string, run: EngineRun): EngineReading {
  return engine === 'codex' ? readCodex(stdout) : readClaude(stdout, run);
}
