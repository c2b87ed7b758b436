/** The environment of an attempt's command and checks: the step's, the node's own `env`, and interlock's variables. */
import type { AttemptOptions, AttemptSetup } from './attempt.js';

export function attemptEnv(
  setup: AttemptSetup,
  opts: AttemptOptions,
  own: Record<string, string>,
  files: { outputFile: string; contextFile: string; usageFile: string },
): NodeJS.ProcessEnv {
  const { cur, node, attempt, context } = opts;
  return {
    ...setup.baseEnv,
    ...own,
    INTERLOCK_RUN_ID: cur.journal.run_id,
    INTERLOCK_NODE: node.id,
    INTERLOCK_ATTEMPT: String(attempt),
    INTERLOCK_IDEMPOTENCY_KEY: context.idempotency_key,
    INTERLOCK_OUTPUT: files.outputFile,
    INTERLOCK_CONTEXT: files.contextFile,
    INTERLOCK_USAGE: files.usageFile,
    INTERLOCK_EXEC_TAG: opts.execTag,
    // An isolated node keeps its session's engine folder across nodes (src/os/node-user/node-script.ts).
    ...(node.session && opts.approach.engine
      ? { INTERLOCK_SESSION: node.session.name, INTERLOCK_ENGINE: opts.approach.engine }
      : {}),
  };
}
