/** An attempt's evidence checks, given what its command left (outputs) and where it ran (its namespace). */
import type { ExpressionContext } from '../../expressions/evaluate.js';
import type { AttemptOptions, AttemptSetup } from './attempt.js';
import { runChecks } from './checks.js';
import { checkOutputs } from './checks-live-log.js';
import type { AttemptNetwork } from './network.js';

/** The node's evidence checks; they may name this attempt's own outputs: nodes.<this node>.outputs.<name>. */
export function attemptChecks(
  setup: AttemptSetup,
  opts: AttemptOptions,
  a: {
    exprCtx: ExpressionContext;
    env: NodeJS.ProcessEnv;
    outputs: Record<string, string>;
    network: AttemptNetwork;
  },
): ReturnType<typeof runChecks> {
  const { node } = opts;
  const nodesCtx = a.exprCtx.nodes as Record<string, { status: string; outputs: Record<string, string> }>;
  return runChecks({
    node,
    context: {
      ...a.exprCtx,
      nodes: { ...nodesCtx, [node.instance?.of ?? node.id]: { status: 'in_flight', outputs: a.outputs } },
    },
    github: setup.github,
    input: {
      cwd: setup.cwd,
      env: a.env,
      grants: setup.isolation.credentials,
      outputs: a.outputs,
      dispatchedAt: opts.dispatchedAt,
      ...(opts.gitBase ? { gitBase: opts.gitBase } : {}),
      commandOutput: checkOutputs(setup, opts),
      ...(a.network.kind === 'namespaced' ? { network: a.network.scope } : {}),
    },
  });
}
