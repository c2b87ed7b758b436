import * as core from '@actions/core';
import { killAllChildren } from '../runner/exec.js';
import { type ActionIO, buildContext, runAction } from './main.js';
import { postStep } from './post-step.js';

/** The runner's `@actions/core`, as the action reports through it. */
export function coreIO(): ActionIO {
  return {
    setOutput: (n, v) => core.setOutput(n, v),
    summary: async (md) => {
      if (process.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(md).write();
    },
    info: (m) => core.info(m),
    notice: (m) => core.notice(m),
    warning: (m) => core.warning(m),
    error: (m, where) =>
      core.error(m, where ? { file: where.file, startLine: where.line, startColumn: where.col } : {}),
    saveState: (n, v) => core.saveState(n, v),
    echo: (chunk) => {
      process.stdout.write(chunk);
    },
  };
}

/** The main step: try/catch and the step's result; no other logic. */
export async function run(): Promise<void> {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killAllChildren('SIGTERM');
      core.setFailed(`interlock: ${sig}: the step was cancelled; the post step marks the node interrupted`);
      process.exit(1);
    });
  }
  try {
    const result = await runAction(buildContext(process.env, coreIO()));
    if (result.failed) core.setFailed(result.failed);
  } catch (e) {
    core.setFailed(`interlock: ${(e as Error).message}`);
  }
}

/** The post step: marks this job's node interrupted when the main step did not finish. */
export async function runPost(): Promise<void> {
  try {
    await postStep(buildContext(process.env, coreIO()));
  } catch (e) {
    core.warning(`interlock post step: ${(e as Error).message}`);
  }
}
