/**
 * The Action's side of a plan's wave (issue 35): how `mode: plan` with `dispatch: ready` names the matrix job that
 * will run each node, and how a `node: <id>` step takes the dispatch its plan journaled for it, once per job.
 */
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitHead } from '../../evidence/local.js';
import type { RunnerInfo } from '../../journal/events/fields.js';
import type { PlannedSetup } from '../../runner/planned-step.js';
import type { ActionContext } from './context.js';

/**
 * The executor a plan names for a node of its wave: the workflow run attempt and the plan's job (`planned_by`),
 * no runner (GitHub picks it when the job starts), a tag of the attempt's own, the commit checked out.
 */
export function waveRunner(ctx: ActionContext): (node: string) => RunnerInfo {
  const head = gitHead(ctx.workspace);
  return () => ({
    kind: 'actions',
    workflow_run_id: ctx.me.workflow_run_id,
    run_attempt: ctx.me.run_attempt,
    planned_by: ctx.me.job,
    exec_tag: randomUUID(),
    ...(ctx.env.GITHUB_WORKFLOW_REF ? { workflow_ref: ctx.env.GITHUB_WORKFLOW_REF } : {}),
    ...(head ? { git_head: head } : {}),
  });
}

/**
 * What a `node: <id>` step needs to take its plan's dispatch. The claim is a file made with O_EXCL in the job's
 * own temporary folder (RUNNER_TEMP lasts the job, so a later step of the same job finds it and never begins the
 * work again), and the step's saved state tells the post step which attempt this job took.
 */
export function plannedSetup(ctx: ActionContext, runId: string): PlannedSetup {
  const taken = new Set<string>();
  const sha = ctx.inputs['journal-sha'];
  return {
    ...(sha ? { at: sha } : {}),
    run: { workflow_run_id: ctx.me.workflow_run_id, run_attempt: ctx.me.run_attempt },
    claim: (node, attempt) => {
      const { workflow_run_id, run_attempt } = ctx.me;
      const claimKey = `${workflow_run_id}\u0000${run_attempt}\u0000${runId}\u0000${node}\u0000${attempt}`;
      if (taken.has(claimKey)) return true;
      const dir = join(ctx.env.RUNNER_TEMP || tmpdir(), 'interlock-claims');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = join(dir, createHash('sha256').update(claimKey).digest('hex'));
      try {
        const excl = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
        closeSync(openSync(file, excl, 0o600));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e;
      }
      taken.add(claimKey);
      ctx.io.saveState('claimed', `${node}#${attempt}`);
      return true;
    },
  };
}
