import { killAllChildren } from '../os/exec.js';
import { appendToRunnerFile, command, fileCommand } from './commands.js';
import { type ActionIO, buildContext, runAction } from './main.js';
import { postStep } from './post-step.js';
import { reportingIO } from './step-report.js';

const out = (text: string) => process.stdout.write(text);

/**
 * interlock's own log lines may quote untrusted text (an issue title in a failed check, a comment's note): no
 * line of them may start a workflow command, which the runner reads from any stdout line beginning with `::`.
 */
export function logLine(message: string): string {
  return `${message.replace(/^(\s*)::/gm, '$1:\u200b:')}\n`;
}

/** A group title on one line: a newline in it would end the command. */
function groupTitle(title: string): string {
  return title.replace(/[\r\n]+/g, ' ');
}

/** The runner's interface: workflow commands on stdout and the files the runner names. */
export function runnerIO(env: NodeJS.ProcessEnv = process.env): ActionIO {
  const file = (variable: string, text: string) => {
    if (env[variable]) appendToRunnerFile(env, variable, text);
    else out(command('debug', `${variable} is not set; skipped`));
  };
  // Whether the node's last output ended its line: `::endgroup::` is only read at the start of a line.
  let midLine = false;
  return {
    setOutput: (n, v) => file('GITHUB_OUTPUT', fileCommand(n, v)),
    summary: async (md) => file('GITHUB_STEP_SUMMARY', `${md}\n`),
    info: (m) => out(logLine(m)),
    notice: (m) => out(command('notice', m)),
    warning: (m) => out(command('warning', m)),
    error: (m, where) => out(command('error', m, where)),
    saveState: (n, v) => file('GITHUB_STATE', fileCommand(n, v)),
    echo: (chunk) => {
      if (chunk.length) midLine = chunk[chunk.length - 1] !== 0x0a;
      process.stdout.write(chunk);
    },
    // One attempt's log, interlock's lines and the node's output, folds into one group.
    group: (title) => out(`::group::${groupTitle(title)}\n`),
    endGroup: () => {
      out(`${midLine ? '\n' : ''}::endgroup::\n`);
      midLine = false;
    },
  };
}

function setFailed(message: string): void {
  out(command('error', message));
  process.exitCode = 1;
}

/** The main step: try/catch and the step's result; no other logic. */
export async function run(): Promise<void> {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killAllChildren('SIGTERM');
      setFailed(`interlock: ${sig}: the step was cancelled; the post step marks the node interrupted`);
      process.exit(1);
    });
  }
  const report = reportingIO(runnerIO());
  try {
    const result = await runAction(buildContext(process.env, report.io));
    await report.finish({ result });
    // A problem already annotated is not reported a second time as an error: its details go to the log.
    if (result.failed && result.reported) {
      out(logLine(`interlock: ${result.failed}`));
      process.exitCode = 1;
    } else if (result.failed) setFailed(result.failed);
  } catch (e) {
    setFailed(`interlock: ${(e as Error).message}`);
    await report.finish({ error: e as Error }).catch(() => undefined);
  }
}

/** The post step: marks this job's node interrupted when the main step did not finish. */
export async function runPost(): Promise<void> {
  try {
    await postStep(buildContext(process.env, runnerIO()));
  } catch (e) {
    out(command('warning', `interlock post step: ${(e as Error).message}`));
  }
}
