/**
 * `runSteps`: the one loop both faces run. `{ node }` (or `{}` for the next ready node) is one step; `{ all: true }`
 * steps until the run completes, ends, blocks or goes stale, and writes each node's record together with the
 * next node's dispatch (one journal write per node). A node asked for that is already completed is answered here.
 */

import { redactSecrets } from '../render/redact.js';
import { dispatchStep, type Following, type StepSetup } from './dispatch.js';
import { runDispatched } from './step.js';
import { alreadyCompleted, type StepResult } from './step-result.js';

type StepsTarget = { node?: string | undefined } | { all: true };

interface StepsOptions {
  /** Told of each step's result as it comes, with the step's wall time. */
  onStep?: (result: StepResult, ms: number) => void;
}

/** The stop rule of `node: all`: nothing more this job can do. */
function stops(r: StepResult): boolean {
  return (
    r.kind === 'run-completed' ||
    r.kind === 'ended' ||
    r.kind === 'blocked' ||
    r.kind === 'stale' ||
    // A gate stops the job only when nothing else is ready: other branches of the graph go on meanwhile.
    (r.kind === 'awaiting-approval' && r.cur.state.checkpoint.ready_nodes.length === 0) ||
    r.cur.state.checkpoint.ended !== null
  );
}

/**
 * A result's words without the step's secrets, as the journal has them: a failure quotes what a node made (a
 * check's output, a commit subject) from before the journal's redaction, and each face prints the words.
 */
function said(r: StepResult, secrets: readonly string[] | undefined): StepResult {
  return secrets?.length ? { ...r, message: redactSecrets(r.message, secrets).value } : r;
}

/** Runs one step, or every step until the run stops; returns the last step's result. */
export async function runSteps(
  setup: StepSetup,
  target: StepsTarget,
  options: StepsOptions = {},
): Promise<StepResult> {
  const all = 'all' in target;
  const only = 'all' in target ? undefined : target.node;
  let pending: Following | undefined;
  while (true) {
    const t0 = Date.now();
    const first = pending ?? (await dispatchStep(setup, only));
    pending = undefined;
    let r: StepResult;
    if ('result' in first) r = first.result;
    else {
      const ran = await runDispatched(setup, first.dispatched, { dispatchNext: all });
      r = ran.result;
      pending = ran.following;
      // A serialized chain's nodes before its last, recorded in the same write.
      for (const e of ran.earlier ?? []) options.onStep?.(said(e, setup.secrets), Date.now() - t0);
    }
    r = said(alreadyCompleted(r, only), setup.secrets);
    options.onStep?.(r, Date.now() - t0);
    if (!all || (stops(r) && !pending)) return r;
  }
}
