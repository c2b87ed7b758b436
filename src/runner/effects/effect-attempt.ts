/** An effect node's attempt, beside attempt.ts's command and prompt attempts. */
import type { ExpressionContext } from '../../expressions/evaluate.js';
import { failpoint } from '../../os/crash-failpoint.js';
import { runProtectedPaths } from '../../protocol/attempt/protected-paths.js';
import type { AttemptOutcome } from '../../protocol/decide.js';
import type { AttemptOptions, AttemptSetup } from '../attempt/attempt.js';
import { runChecks } from '../attempt/checks.js';
import { readAttemptUsage } from '../attempt/usage-read.js';
import { performEffect } from './effect.js';
import { effectMarks } from './secret.js';

/**
 * An effect node's attempt: interlock performs the effect (src/runner/effects/effect.ts), then the node's own checks
 * run against what it made (its outputs in the context), as any node's do.
 */
export async function effectAttempt(
  setup: AttemptSetup,
  opts: AttemptOptions,
  exprCtx: ExpressionContext,
  at: { started: number },
): Promise<AttemptOutcome> {
  const { cur, node, context } = opts;
  const done = await performEffect(
    {
      github: setup.github,
      cwd: setup.cwd,
      runId: cur.journal.run_id,
      idempotencyKey: context.idempotency_key,
      marks: effectMarks(cur.journal, node.id, context.idempotency_key, opts.attempt),
      protectedPaths: setup.protectedPaths ?? (async () => runProtectedPaths(setup.graph)),
    },
    node,
    exprCtx,
  );
  // The effect has acted (or found itself done) and is not yet recorded: recovery asks GitHub again.
  failpoint('after-command', node.id);
  const nodesCtx = exprCtx.nodes as Record<string, { status: string; outputs: Record<string, string> }>;
  const checked = done.failures.length
    ? { evidence: [], failures: [] }
    : await runChecks({
        node,
        context: {
          ...exprCtx,
          nodes: {
            ...nodesCtx,
            [node.instance?.of ?? node.id]: { status: 'in_flight', outputs: done.outputs },
          },
        },
        github: setup.github,
        input: {
          cwd: setup.cwd,
          env: setup.baseEnv,
          grants: setup.isolation.credentials,
          outputs: done.outputs,
          dispatchedAt: opts.dispatchedAt,
        },
      });
  const usage = readAttemptUsage({
    wallMs: Date.now() - at.started,
    agentStdout: undefined,
    warn: () => undefined,
  });
  return {
    failures: [...done.failures, ...checked.failures],
    evidence: [...done.evidence, ...checked.evidence],
    outputs: done.outputs,
    usage,
    output_tail: '',
  };
}
