/**
 * The Action's main step: picks the mode, resolves the run, and hands it to the mode. A graph that does not load
 * is reported once, as annotations on its lines. Never calls process.exit and never throws for a node's failure.
 * Each mode is imported when it is entered: a step does not load the approval logic, a comment not the runner.
 */
import { formatSourceError, GraphError } from '../graph/errors.js';
import { type ActionContext, type ActionResult, fromWorkspace } from './context/context.js';
import { resolveRun } from './context/resolve-run.js';
import { fallbackSummary, writeOutputs } from './report/step-report.js';

/** A graph that does not load: one annotation per problem, on its file and line, and no second error line. */
function badGraph(ctx: ActionContext, e: GraphError): ActionResult {
  // Annotations name files from the repository root, as GitHub shows them on the diff.
  const errors = e.errors.map((err) => ({ ...err, file: fromWorkspace(ctx, err.file) }));
  for (const err of errors) ctx.io.error(err.message, err);
  return {
    outputs: writeOutputs(ctx.io, { status: 'failed' }),
    failed: `${[...new Set(errors.map((x) => x.file))].join(', ')} is not valid:\n${errors.map(formatSourceError).join('\n')}`,
    reported: true,
  };
}

/** A stuck-mode failure says what it left: it only reads journals and posts reports. */
function stuckFailed(e: unknown): never {
  throw new Error(
    `${(e as Error).message}; mode: stuck only reads journals and posts reports, so every journal is intact and it reports again on its next schedule`,
  );
}

/** Runs the action; never calls process.exit and never throws for a node's failure. */
export async function runAction(ctx: ActionContext): Promise<ActionResult> {
  const mode = ctx.inputs.mode;
  if (mode === 'stuck') return (await import('./modes/stuck.js')).stuckMode(ctx).catch(stuckFailed);
  if (mode === 'comment') return (await import('./modes/comment.js')).commentMode(ctx);
  let resolved: Awaited<ReturnType<typeof resolveRun>>;
  try {
    resolved = await resolveRun(ctx);
  } catch (e) {
    if (e instanceof GraphError) return badGraph(ctx, e);
    throw e;
  }
  if ('refused' in resolved) {
    ctx.io.notice(`interlock: not started: ${resolved.refused}`);
    if (resolved.commenter) {
      const { replyRefusal } = await import('./report/refusal-reply.js');
      await replyRefusal(ctx, resolved.commenter, resolved.refused);
    }
    const outputs = writeOutputs(ctx.io, { status: 'refused' });
    await ctx.io.summary(fallbackSummary('refused', `Not started: ${resolved.refused}`));
    return { outputs };
  }
  if ('noRoute' in resolved) {
    ctx.io.notice(resolved.noRoute);
    const outputs = writeOutputs(ctx.io, { status: 'no-route' });
    await ctx.io.summary(fallbackSummary('no-route', resolved.noRoute));
    return { outputs };
  }
  const { runId, graph, subject } = resolved;
  ctx.io.saveState('run-id', runId);
  ctx.io.saveState('graph', graph.path);
  ctx.io.saveState('subject', subject.label);
  ctx.io.saveState('subject-sha', subject.headSha ?? '');
  if (mode === 'plan' || mode === 'recover')
    return (await import('./modes/plan.js')).planMode(ctx, resolved, mode);
  return (await import('./modes/step.js')).stepMode(ctx, resolved);
}
