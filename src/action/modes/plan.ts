/**
 * `mode: plan` and `mode: recover`: recovery only (mark in-flight attempts whose executor is gone), then report
 * where the run stands and what is ready; no node runs. `plan` stores the run's start when it is not stored yet.
 */

import { sameCredentialsUnder } from '../../os/node-user/node-credentials.js';
import type { ExpansionDecision } from '../../protocol/expansion.js';
import { recoveryWords } from '../../render/recovery-words.js';
import { dailyCapNow } from '../../runner/daily-cap.js';
import { recover, type WaveOptions } from '../../runner/recovery/recover.js';
import type { ActionContext, ActionResult } from '../context/context.js';
import { actionDailyCap } from '../context/daily-cap.js';
import { waveRunner } from '../context/planned.js';
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
  // `dispatch: ready` (issue 35): the same write dispatches the ready nodes for the matrix jobs after it.
  const wave = mode === 'plan' && ctx.inputs.dispatch === 'ready' ? await waveOptions(ctx, run) : undefined;
  const r = await recover(setup, {
    create: mode === 'plan',
    expansions: mode === 'plan',
    ...(wave ? { wave } : {}),
  });
  const cp = r.cur.state.checkpoint;
  if (r.planned.length)
    ctx.io.info(`interlock: dispatched ${r.planned.length} node(s) for the matrix: ${r.planned.join(', ')}`);
  for (const id of r.interrupted) ctx.io.info(`interlock: ${recoveryWords(r.cur.state, id)}`);
  for (const l of r.left) ctx.io.info(`interlock: "${l.node}" left alone: ${l.why}`);
  for (const d of r.expansions) ctx.io.info(`interlock: ${expansionWords(d)}`);
  const outputs: Record<string, string> = {
    'run-id': run.runId,
    status: checkpointStatus(cp),
    // The matrix's nodes: those this plan dispatched for it, then those still ready (each job decides its own).
    ready: JSON.stringify([...r.planned, ...cp.ready_nodes]),
    checkpoint: JSON.stringify(cp),
    ...(r.commit ? { 'journal-sha': r.commit } : {}),
  };
  const headline = `${mode}: ready ${JSON.stringify(cp.ready_nodes)}`;
  await publishResult(ctx, setup, r.cur, { kind: mode, interrupted: r.interrupted, headline }, run.subject);
  return { outputs: writeOutputs(ctx.io, outputs) };
}

/** How the wave's dispatches name their jobs, and the daily cost cap they are decided under (when one is set). */
async function waveOptions(ctx: ActionContext, run: ResolvedRun): Promise<WaveOptions> {
  const source = await actionDailyCap(ctx, run.runId);
  const dailyCap = source ? await dailyCapNow({ dailyCap: source }) : undefined;
  return {
    runnerOf: waveRunner(ctx),
    opts: {
      sameCredentials: sameCredentialsUnder(ctx.isolation.credentials),
      ...(dailyCap ? { dailyCap } : {}),
    },
  };
}

/** What plan did with a for_each or sub-graph node (an expansion, its failure, or its join), in words. */
function expansionWords(d: ExpansionDecision): string {
  if (d.kind === 'expand') return `expanded "${d.node}" into ${d.items} instance(s)`;
  if (d.kind === 'join')
    return `joined "${d.node}"${d.tolerated.length ? `, tolerating ${d.tolerated.join(', ')}` : ''}`;
  return `"${d.node}" could not be expanded: ${d.reason}; escalated: it needs a person`;
}
