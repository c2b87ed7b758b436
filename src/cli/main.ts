/**
 * The CLI's entry: picks the verb (each in `commands/`), turns bad input into a message and exit code 2, and
 * stops a node's command on SIGINT/SIGTERM. Never calls process.exit from `main`.
 */
import { formatSourceError, GraphError } from '../graph/errors.js';
import { JournalError } from '../journal/state.js';
import { killAllChildren } from '../os/exec.js';
import { PathRefused } from '../os/workspace-path.js';
import { GraphChangeRefused, RunRefused } from '../runner/journal-io/read.js';
import { cmdPersonCommand } from './commands/person-command.js';
import { cmdRecover } from './commands/recover.js';
import { cmdReplay } from './commands/replay.js';
import { cmdRerunFrom } from './commands/rerun-from.js';
import { cmdRun } from './commands/run.js';
import { cmdStatus } from './commands/status.js';
import { cmdStuck } from './commands/stuck.js';
import { cmdUi } from './commands/ui.js';
import { cmdUsage } from './commands/usage.js';
import { cmdValidate } from './commands/validate.js';
import { EXIT, type Io, UsageError } from './io.js';
import { graphChangeRefusal } from './next-steps.js';
import { VERSION } from './version.js';

const USAGE = `interlock: run workflow graphs deterministically

usage:
  interlock validate <graph>
  interlock run <graph> [--journal F] [--run-id ID] [--node ID | --all] [--event F] [--input k=v]...
                        [--allow-graph-change] [--assume-dead] [--agent-credentials 'ANTHROPIC_API_KEY GEMINI_API_KEY ...']
                        [--quiet | --verbose]
  interlock status [--journal F | --run-id ID] [--json | --mermaid | --timeline [--width N] | --svg FILE]
  interlock recover [--journal F | --run-id ID] [--assume-dead] [--allow-graph-change]
  interlock approve <node> [--by NAME] [--guidance T] [--journal F | --run-id ID]
  interlock approve-rerun <node> [--by NAME] [--reason T] [--guidance T] [--attempt N] [--journal F | --run-id ID]
  interlock settle <node> [--by NAME] --note T [--journal F | --run-id ID]
  interlock fail-run [--by NAME] --reason T [--journal F | --run-id ID]
  interlock rerun-from <node> [--by NAME] [--guidance T] [--journal F | --run-id ID]
  interlock replay <run> <node> [--attempt N] [--graph F] [--verbose]   an agent attempt again, offline, from its recording
  interlock stuck [--dir D] [--older-than 24h] [--json]
  interlock --version | <command> -h
  interlock usage [--dir D] [--days 14] [--json]
  interlock ui [--dir D] [--port N] [--by NAME]   the maintainers' page for local journals, on 127.0.0.1

--by: who decides, recorded in the journal; without it, git's user.name, then the login name (said on stderr)
exit codes: 0 progressed or completed, 1 an attempt failed, 2 bad input, 3 blocked (held, escalated, nothing ready),
            4 a replay departed from its recording
journal: .interlock/runs/<run-id>.json unless --journal is given; run id defaults to the graph's name`;

/** One verb's usage lines (`interlock run -h`), and where every option is told. */
function verbUsage(verb: string): string | undefined {
  const lines: string[] = [];
  for (const line of USAGE.split('\n')) {
    if (line.startsWith(`  interlock ${verb} `)) lines.push(line);
    else if (lines.length && /^ {20,}\S/.test(line)) lines.push(line);
    else if (lines.length) break;
  }
  return lines.length ? `usage:\n${lines.join('\n')}\n\nevery option: docs/cli.md\n` : undefined;
}

async function dispatch(verb: string | undefined, rest: string[], io: Io): Promise<number> {
  const help = verb !== undefined && (rest.includes('-h') || rest.includes('--help')) && verbUsage(verb);
  if (help) {
    io.out(help);
    return EXIT.ok;
  }
  switch (verb) {
    case 'validate':
      return cmdValidate(io, rest);
    case 'run':
      return await cmdRun(io, rest);
    case 'status':
      return await cmdStatus(io, rest);
    case 'recover':
      return await cmdRecover(io, rest);
    case 'approve':
    case 'approve-rerun':
    case 'settle':
    case 'fail-run':
      return await cmdPersonCommand(io, verb, rest);
    case 'rerun-from':
      return await cmdRerunFrom(io, rest);
    case 'replay':
      return await cmdReplay(io, rest);
    case 'stuck':
      return await cmdStuck(io, rest);
    case '--version':
    case '-v':
      io.out(`interlock ${VERSION}\n`);
      return EXIT.ok;
    case 'usage':
      return await cmdUsage(io, rest);
    case 'ui':
      return await cmdUi(io, rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(`${USAGE}\n`);
      return verb === undefined ? EXIT.usage : EXIT.ok;
    default:
      throw new UsageError(`unknown command "${verb}"\n\n${USAGE}`);
  }
}

/** Runs the CLI; returns the exit code. Never calls process.exit. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [verb, ...rest] = argv;
  try {
    return await dispatch(verb, rest, io);
  } catch (e) {
    if (e instanceof GraphError) {
      io.err(`${e.errors.map(formatSourceError).join('\n')}\n`);
      return EXIT.usage;
    }
    if (e instanceof GraphChangeRefused) {
      io.err(`${graphChangeRefusal(verb ?? '', e, argv)}\n`);
      return EXIT.usage;
    }
    const usage = e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (usage || e instanceof JournalError || e instanceof RunRefused || e instanceof PathRefused) {
      io.err(`interlock: ${(e as Error).message}\n`);
      return EXIT.usage;
    }
    throw e;
  }
}

/** Stops the node's command when the CLI is interrupted; the attempt stays in flight for recovery to find. */
export function installSignalHandlers(): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      killAllChildren('SIGTERM');
      process.stderr.write(
        `\ninterlock: ${sig}: stopped; the attempt stays in flight until "interlock recover" marks it interrupted\n`,
      );
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
}
