/**
 * Engines: what interlock adds to an engine's agent command, and what it reads from the engine's own output
 * (usage, session id, the agent's final message, how it ended). Pure: text in, readings out.
 *
 * - `claude-code`: `--output-format stream-json --verbose` (one JSON object a line, the last a `"type":"result"`
 *   object: `subtype` such as `success` or `error_max_turns`, `is_error`, `api_error_status`, `num_turns`,
 *   `result`, `session_id`, `total_cost_usd`, `usage`, `modelUsage`), `--max-turns <n>` with `budget.turns`.
 * - `codex`: `--json` and `-` (the prompt from stdin), and `-c openai_base_url=…` behind the key proxy; JSON lines `thread.started{thread_id}`, `item.*`,
 *   `turn.completed{usage}` (OpenAI's `input_tokens` already include `cached_input_tokens`) or `turn.failed{error}`.
 * - `gemini`: `--output-format stream-json` and `--skip-trust` (in a folder it does not trust, Gemini CLI quietly
 *   downgrades `--approval-mode yolo`); JSON lines `init{session_id}`, `message`, `tool_use`, `tool_result`, `error`,
 *   `result{status, stats}` (src/protocol/engines/gemini.ts).
 * - `copilot`: `--output-format json` and `--usage-output-file` (its JSON events hold no tokens): the command
 *   prints the usage file after Copilot ends (src/protocol/engines/copilot.ts).
 */
import type { Engine } from '../../graph/model.js';
import type { Failure } from '../../journal/events/fields.js';
import { readClaude } from './claude.js';
import { readCodex } from './codex.js';
import { readCopilot, USAGE_FILE_EVENT } from './copilot.js';
import { readGemini } from './gemini.js';
import type { UsageReading } from './reported-usage.js';
import type { SessionResume } from './sessions.js';

/** What an attempt asks of the engine. */
export interface EngineRun {
  /** `budget.turns`: Claude Code stops itself after this many turns. */
  maxTurns?: number;
  /** The session to continue (`session:`). */
  resume?: SessionResume;
  /**
   * The key proxy's OpenAI base URL: Codex 0.171's own provider reads its base URL from the `openai_base_url`
   * setting, not from OPENAI_BASE_URL, so interlock sets it (`-c`) for the call to go through the proxy.
   */
  openaiBaseUrl?: string;
}

/** What interlock read from an engine's output. */
export interface EngineReading {
  usage: UsageReading;
  /** The session the attempt made or continued (Claude Code `session_id`, Codex `thread_id`, Gemini CLI `session_id`). */
  session_id?: string;
  /** The agent's last message to the user. */
  final_message?: string;
  /** How the agent ended, when that fails the attempt (an API error, its turn limit). */
  failure?: Failure;
}

/** The arguments interlock appends to an engine's agent command. */
export function engineArgs(engine: Engine, run: EngineRun): string[] {
  if (engine === 'codex')
    return [
      ...(run.openaiBaseUrl ? ['-c', `openai_base_url=${JSON.stringify(run.openaiBaseUrl)}`] : []),
      '--json',
      ...(run.resume ? ['resume', run.resume.id] : []),
      '-',
    ];
  if (engine === 'copilot')
    return [
      '--output-format',
      'json',
      ...(run.resume ? ['--resume', run.resume.id] : []),
      '--usage-output-file',
      USAGE_FILE,
    ];
  if (engine === 'gemini')
    return [
      '--output-format',
      'stream-json',
      '--skip-trust',
      ...(run.resume ? ['--resume', run.resume.id] : []),
    ];
  return [
    '--output-format',
    'stream-json',
    '--verbose',
    ...(run.maxTurns !== undefined ? ['--max-turns', String(run.maxTurns)] : []),
    // A fork: this attempt's session is its own, and the one it continued stays as it was.
    ...(run.resume ? ['--resume', run.resume.id, '--fork-session'] : []),
  ];
}

/** A word for a shell: kept as it is when it is plainly safe, else single-quoted. */
export function shellWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** Where Copilot CLI writes its usage: a file in a folder of the command's own, made and removed around it. */
const USAGE_FILE = '"$interlock_usage/usage.json"';

/**
 * The agent command with interlock's arguments appended (the agent stays the user's own command line). Copilot
 * CLI's tokens are only in the file it writes (replacing it, so never an attempt file): the command makes a
 * folder for it, and once Copilot ended prints the file as one `interlock.usage_file` JSON line (a JSON text has
 * no raw line break inside a string, so dropping them keeps it valid) and exits with Copilot's code.
 */
export function engineCommand(agent: string, engine: Engine, run: EngineRun): string {
  const words = engineArgs(engine, run).map((w) => (w === USAGE_FILE ? w : shellWord(w)));
  const line = `${agent.trimEnd()} ${words.join(' ')}`;
  if (engine !== 'copilot') return line;
  const f = USAGE_FILE;
  // Scripts run under `bash -e`: Copilot's failure must not end the script before its usage is printed.
  return [
    'interlock_usage=$(mktemp -d) || exit 1',
    'interlock_status=0',
    `${line} || interlock_status=$?`,
    `if [ -s ${f} ]; then printf '{"type":"${USAGE_FILE_EVENT}","usage":%s}\n' "$(tr -d '\r\n' < ${f})"; fi`,
    'rm -rf -- "$interlock_usage"',
    'exit $interlock_status',
  ].join('\n');
}

/** Reads the engine's output (stdout). */
export function readEngine(engine: Engine, stdout: string, run: EngineRun): EngineReading {
  if (engine === 'gemini') return readGemini(stdout);
  if (engine === 'claude-code') return readClaude(stdout, run);
  const r = engine === 'codex' ? readCodex(stdout) : readCopilot(stdout);
  // On `exec resume` Codex counts the whole thread, and Copilot CLI on `--resume` the whole session: what earlier
  // attempts counted is theirs.
  const prior = run.resume?.prior;
  const u = r.usage.usage;
  if (prior && typeof u.input_tokens === 'number')
    u.input_tokens = Math.max(0, u.input_tokens - prior.input_tokens);
  if (prior && typeof u.output_tokens === 'number')
    u.output_tokens = Math.max(0, u.output_tokens - prior.output_tokens);
  return r;
}
