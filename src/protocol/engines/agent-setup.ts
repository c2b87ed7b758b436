/**
 * The agent command's own failure, in words (issue 38): when the agent's CLI fails before or instead of working
 * (not found, a usage error of its own, an API error it prints), the attempt's failure carries the first lines of
 * its stderr, not only `exited 127`. A command that is not found or cannot run, and an engine CLI that refuses
 * its arguments, are setup errors: the node is escalated at once with the fix (`decideResult`), since the same
 * setup fails the same way on every retry. Pure: exit code and text in, failures out.
 */
import type { Engine } from '../../graph/model.js';
import type { Failure } from '../../journal/events/fields.js';
import { engineArgs } from './engine.js';

/** The failure's `check` that marks a setup error: `decideResult` escalates at once on it. */
export const SETUP_CHECK = 'agent setup';

/** How many lines of stderr a failure quotes, and how long each may be. */
const HEAD_LINES = 3;
const LINE_CHARS = 240;

/** Lines an agent CLI prints on every run, which say nothing about why it failed. */
const NOISE = [
  /^WARNING: proceeding, even though we could not/,
  /^Reading (additional )?(input|prompt) from stdin/,
];

/** The first lines of stderr that say something, ANSI and noise left out, each bounded. */
export function stderrHead(stderr: string): string {
  return stderr
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !NOISE.some((n) => n.test(l)))
    .slice(0, HEAD_LINES)
    .map((l) => (l.length > LINE_CHARS ? `${l.slice(0, LINE_CHARS - 1)}…` : l))
    .join('\n');
}

/** The agent's command as the node gives it, without interlock's arguments. */
interface AgentExit {
  exitCode: number | null;
  stderr: string;
  agent: string;
  engine?: Engine | undefined;
}

/** A usage error as clap (Codex, Copilot CLI), commander (Claude Code) and yargs (Gemini CLI) print it. */
const USAGE_ERROR =
  /^(error: (the argument .* cannot be used multiple times|unexpected argument|unknown option|too many arguments|invalid value|a value is required|the following required arguments|unknown command|option .* argument missing)|Unknown arguments?: |Invalid values?:|.*Error: Invalid approval mode: )/im;

/** Gemini CLI's exit code when it has no auth it can use (`FATAL_AUTHENTICATION_ERROR`). */
const GEMINI_NO_AUTH = 41;

/** The flags interlock appends for an engine that the agent line gives as well (`validate` warns of them). */
export function duplicateEngineFlags(agent: string, engine: Engine): string[] {
  const words = agent.split(/\s+/);
  const appended = engineArgs(engine, { maxTurns: 1 }).filter((a) => a.startsWith('--'));
  return [...new Set(appended.filter((flag) => words.some((w) => w === flag || w.startsWith(`${flag}=`))))];
}

/** The fix for a setup error, or undefined when the failure may be the work's own (retries go on). */
function agentSetupFix(x: AgentExit): string | undefined {
  const program = x.agent.trim().split(/\s+/)[0] ?? x.agent;
  if (x.exitCode === 127)
    return `the agent command "${program}" was not found: install it where the node runs (on the PATH of the node's user), or give its full path in \`agent:\``;
  if (x.exitCode === 126)
    return `the agent command "${program}" could not be run (not executable, or not a program): check its path and mode in \`agent:\``;
  if (x.engine === 'gemini' && x.exitCode === GEMINI_NO_AUTH)
    return 'Gemini CLI found no auth it can use: give it GEMINI_API_KEY, and with GOOGLE_GEMINI_BASE_URL set (the key proxy sets it) select the key in its settings, `{"security":{"auth":{"selectedType":"gemini-api-key"}}}` in $GEMINI_CLI_HOME/.gemini/settings.json (see docs/agents.md)';
  if (x.engine === 'copilot' && /^Error: No authentication information found/m.test(x.stderr))
    return 'Copilot CLI has no GitHub login and no model provider: give it COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_TYPE, COPILOT_PROVIDER_API_KEY and COPILOT_MODEL (a provider of your own, see docs/agents.md), or COPILOT_GITHUB_TOKEN';
  if (x.engine === 'copilot' && /^BYOK providers require an explicit model/m.test(x.stderr))
    return 'Copilot CLI with a provider of your own needs a model: set COPILOT_MODEL (or pass --model in `agent:`)';
  if (!x.engine || !USAGE_ERROR.test(x.stderr)) return undefined;
  const twice = duplicateEngineFlags(x.agent, x.engine);
  const appended = engineArgs(x.engine, {}).join(' ');
  return twice.length
    ? `\`engine: ${x.engine}\` appends \`${appended}\` itself: remove ${twice.map((f) => `\`${f}\``).join(', ')} from \`agent:\``
    : `the ${x.engine} CLI refused its arguments: fix \`agent:\` (interlock appends \`${appended}\` for \`engine: ${x.engine}\`)`;
}

/**
 * The agent command's exit failure in words: the first lines of its stderr after `exited N`; a setup error
 * (`SETUP_CHECK`) says the fix. Undefined when the command did not fail with an exit code.
 */
export function agentExitFailure(exit: Failure, x: AgentExit): Failure {
  const head = stderrHead(x.stderr);
  const said = head ? `${exit.message}: ${head.split('\n').join(' · ')}` : exit.message;
  const fix = agentSetupFix(x);
  if (!fix) return { ...exit, message: said };
  return { ...exit, check: SETUP_CHECK, message: `${said}. A setup error, not retried: ${fix}` };
}
