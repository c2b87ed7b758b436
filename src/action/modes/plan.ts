/**
 * `mode: plan` and `mode: recover`: recovery only (mark in-flight attempts whose executor is gone), then report
 * where the run stands and what is ready; no node runs. `plan` stores the run's start when it is not stored yet.
 */

import type { ExpansionDecision } from '../../protocol/expansion.js';
import { recoveryWords } from '../../render/recovery-words.js';
import { recover } from '../../runner/recovery/recover.js';
import type { ActionContext, ActionResult } from '../context/context.js';
import type { ResolvedRun } from '../context/resolve-run.js';
import { publishResult } from '../report/publish.js';
import { checkpointStatus } from '../report/status.js';
import { writeOutputs } from '../report/step-report.js';
import { stepSetupFor } from '../setup.js';

export async function planMode(
  ctx: ActionContext,
  run: ResolvedRun,
  mode: 'plan' | 'recover',
): Promise<ActionResult> {
  const setup = stepSetupFor(ctx, run);
  // `plan` starts the run it plans, so the matrix jobs after it find the journal (and the progress comment's
  // id in it) rather than each creating the journal branch and looking for the comment at once; and it expands
  // and joins for_each nodes (issue 28), so the matrix it feeds gets their instances.
  const r = await recover(setup, { create: mode === 'plan', expansions: mode === 'plan' });
  const cp = r.cur.state.checkpoint;
  for (const id of r.interrupted) ctx.io.info(`interlock: ${recoveryWords(r.cur.state, id)}`);
  for (const l of r.left) ctx.io.info(`interlock: "${l.node}" left alone: ${l.why}`);
  for (const d of r.expansions) ctx.io.info(`interlock: ${expansionWords(d)}`);
  const outputs: Record<string, string> = {
    'run-id': run.runId,
    status: checkpointStatus(cp),
    ready: JSON.stringify(cp.ready_nodes),
    checkpoint: JSON.stringify(cp),
  };
  const headline = `${mode}: ready ${JSON.stringify(cp.ready_nodes)}`;
  await publishResult(ctx, setup, r.cur, { kind: mode, interrupted: r.interrupted, headline }, run.subject);
  return { outputs: writeOutputs(ctx.io, outputs) };
}

/** What plan did with a for_each or sub-graph node (an expansion, its failure, or its join), in words. */
function expansionWords(d: ExpansionDecision): string {
  if (d.kind === 'expand') return `expanded "${d.node}" into ${d.items} instance(s)`;
  if (d.kind === 'join')
    return `joined "${d.node}"${d.tolerated.length ? `, tolerating ${d.tolerated.join(', ')}` : ''}`;
  return `"${d.node}" could not be expanded: ${d.reason}; escalated: it needs a person`;
}
