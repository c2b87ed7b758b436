/**
 * `mode: step`: runs the node asked for (`node: <id>`), the next ready one (`node: next`), or every step until
 * the run stops (`node: all`) through the engine's `runSteps`; then sets the outputs, publishes the progress
 * comment, and fails the step when the node failed (or waits for a person, held or escalated, with `on-held: fail`).
 */

import { type Graph, nodeById } from '../../graph/model.js';
import { jobSummary } from '../../render/markdown.js';
import { GraphChangeRefused } from '../../runner/journal-io/read.js';
import type { OverdueNotice } from '../../runner/overdue.js';
import type { StepResult } from '../../runner/step-result.js';
import { runSteps } from '../../runner/steps.js';
import { confirmWrites } from '../../store/check-run.js';
import type { ActionContext, ActionResult } from '../context/context.js';
import { actionDailyCap } from '../context/daily-cap.js';
import { plannedSetup } from '../context/planned.js';
import type { ResolvedRun } from '../context/resolve-run.js';
import { announceOverdue, publishResult } from '../report/publish.js';
import { stepStatus } from '../report/status.js';
import { writeOutputs } from '../report/step-report.js';
import { stepSetupFor } from '../setup.js';

/** Nodes the journal shows interrupted, in the order they were. */
function interruptedIn(r: StepResult): string[] {
  const out: string[] = [];
  for (const e of r.cur.journal.events)
    if (e.type === 'NodeInterrupted' && !out.includes(e.node)) out.push(e.node);
  return out;
}

/** The step's outputs: the node, its attempts and status, what is ready, the checkpoint, the node's outputs. */
function stepOutputs(last: StepResult, wanted: string | undefined, runId: string): Record<string, string> {
  const nodeId = 'node' in last ? last.node : (wanted ?? '');
  const p = nodeId ? last.cur.state.nodes.get(nodeId) : undefined;
  const outputs: Record<string, string> = {
    'run-id': runId,
    node: nodeId,
    attempt: p ? String(p.attempts) : '',
    status: stepStatus(last, wanted),
    ready: JSON.stringify(last.cur.state.checkpoint.ready_nodes),
    checkpoint: JSON.stringify(last.cur.state.checkpoint),
  };
  if (p?.state === 'completed') for (const [k, v] of Object.entries(p.outputs)) outputs[`output-${k}`] = v;
  return outputs;
}

/**
 * A step refused because the graph changed since the run started (rule 6): nothing was written. Its summary shows
 * the run as it stands (what waits, for whom) and the way on in the Action's words, not the CLI's flag.
 */
async function graphChanged(
  ctx: ActionContext,
  graph: Graph,
  runId: string,
  e: GraphChangeRefused,
): Promise<ActionResult> {
  const why = `the graph changed since the run started (${e.state.accepted_hash} → ${e.to}), so this step wrote nothing: give the step \`allow-graph-change: true\` to go on under the new graph (recorded with who ran the workflow), or start a new run id`;
  const outputs = writeOutputs(ctx.io, {
    'run-id': runId,
    status: 'refused',
    checkpoint: JSON.stringify(e.state.checkpoint),
  });
  await ctx.io.summary(jobSummary(graph, e.state, `Refused: ${why}.`));
  return { outputs, failed: `interlock: refused: ${why}` };
}

export async function stepMode(ctx: ActionContext, run: ResolvedRun): Promise<ActionResult> {
  const { graph, runId, subject } = run;
  const node = ctx.inputs.node;
  const wanted = node === 'next' || node === 'all' ? undefined : node;
  if (wanted && !nodeById(graph, wanted)) {
    return {
      outputs: writeOutputs(ctx.io, { 'run-id': runId, status: 'failed' }),
      failed: `node "${wanted}" is not in ${graph.path}`,
    };
  }
  const base = stepSetupFor(ctx, run);
  const dailyCap = await actionDailyCap(ctx, runId);
  const setup = {
    ...base,
    ...(wanted ? { planned: plannedSetup(ctx, runId) } : {}),
    overdueNotice: (n: OverdueNotice) => announceOverdue(ctx, base, n, subject),
    ...(dailyCap ? { dailyCap } : {}),
  };
  // Every node that came to need a person in this step, not only the last step's: `all` goes on past one.
  const needPerson: string[] = [];
  let last: StepResult;
  try {
    last = await runSteps(setup, node === 'all' ? { all: true } : { node: wanted }, {
      onStep: (r) => {
        ctx.io.info(`interlock: ${r.message}`);
        if (r.kind === 'escalated' || r.kind === 'awaiting-approval') needPerson.push(r.node);
      },
    });
  } catch (e) {
    if (e instanceof GraphChangeRefused) return graphChanged(ctx, graph, runId, e);
    throw e;
  }
  const interrupted = interruptedIn(last);
  const outputs = stepOutputs(last, wanted, runId);
  writeOutputs(ctx.io, outputs);
  ctx.io.saveState('done', 'true');
  const what = { kind: 'step' as const, result: last, interrupted, needPerson, headline: last.message };
  await publishResult(ctx, setup, last.cur, what, subject);
  const lost = await confirmWrites(setup.store, (m) => ctx.io.warning(m));
  if (lost) {
    return { outputs: { ...outputs, ...writeOutputs(ctx.io, { status: 'failed' }) }, failed: lost };
  }
  const status = outputs.status;
  const cp = last.cur.state.checkpoint;
  if (status === 'failed') return { outputs, failed: `${last.message}. Run ${runId} is ${cp.status}.` };
  if ((status === 'held' || status === 'escalated') && ctx.inputs['on-held'] === 'fail') {
    const where = subject.kind === 'ref' ? 'job summary' : `${subject.kind} #${subject.number}`;
    return {
      outputs,
      failed: `${last.message}. Run ${runId} waits for a person: see the comment on the ${where}.`,
    };
  }
  return { outputs };
}
