/**
 * The environment of an attempt's command and checks: the step's, the node's own `env`, and interlock's variables.
 * The one builder for a single node's attempt and a serialized chain's call (issue 36: it was built twice); a chain
 * adds the folder of its nodes' outputs files and its nodes' ids.
 */
import type { AttemptOptions, AttemptSetup } from './attempt.js';

/** The attempt's own files, and for a chain's call, what the chain adds. */
interface AttemptEnvFiles {
  outputFile: string;
  contextFile: string;
  usageFile: string;
  /** A serialized chain's call: `$INTERLOCK_OUTPUTS` (each node's outputs file in it) and `$INTERLOCK_CHAIN`. */
  chain?: { outputsDir: string; nodes: readonly string[] };
}

export function attemptEnv(
  setup: AttemptSetup,
  opts: AttemptOptions,
  own: Record<string, string>,
  files: AttemptEnvFiles,
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
    ...(files.chain
      ? { INTERLOCK_OUTPUTS: files.chain.outputsDir, INTERLOCK_CHAIN: files.chain.nodes.join(',') }
      : {}),
    INTERLOCK_CONTEXT: files.contextFile,
    INTERLOCK_USAGE: files.usageFile,
    INTERLOCK_EXEC_TAG: opts.execTag,
    // An isolated node keeps its session's engine folder across nodes (src/os/node-user/node-script.ts).
    ...(node.session && opts.approach.engine
      ? { INTERLOCK_SESSION: node.session.name, INTERLOCK_ENGINE: opts.approach.engine }
      : {}),
  };
}
