import { killAllChildren } from '../os/exec.js';
import { appendToRunnerFile, command, fileCommand } from './commands.js';
import { type ActionIO, buildContext, runAction } from './main.js';
import { postStep } from './post-step.js';

const out = (text: string) => process.stdout.write(text);

/**
 * interlock's own log lines may quote untrusted text (an issue title in a failed check, a comment's note): no
 * line of them may start a workflow command, which the runner reads from any stdout line beginning with `::`.
 */
export function logLine(message: string): string {
  return `${message.replace(/^(\s*)::/gm, '$1:\u200b:')}\n`;
}

/** The runner's interface: workflow commands on stdout and the files the runner names. */
export function runnerIO(env: NodeJS.ProcessEnv = process.env): ActionIO {
  const file = (variable: string, text: string) => {
    if (env[variable]) appendToRunnerFile(env, variable, text);
    else out(command('debug', `${variable} is not set; skipped`));
  };
  return {
    setOutput: (n, v) => file('GITHUB_OUTPUT', fileCommand(n, v)),
    summary: async (md) => file('GITHUB_STEP_SUMMARY', `${md}\n`),
    info: (m) => out(logLine(m)),
    notice: (m) => out(command('notice', m)),
    warning: (m) => out(command('warning', m)),
    error: (m, where) => out(command('error', m, where)),
    saveState: (n, v) => file('GITHUB_STATE', fileCommand(n, v)),
    echo: (chunk) => {
      process.stdout.write(chunk);
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
  try {
    const result = await runAction(buildContext(process.env, runnerIO()));
    if (result.failed) setFailed(result.failed);
  } catch (e) {
    setFailed(`interlock: ${(e as Error).message}`);
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
