/**
 * A pull request subject's commits, for the check-run store: its head (where a run's check run goes) and where a
 * run that has not moved to the head yet still is (after a push, or a force-push). Resuming by run id from a
 * `workflow_dispatch` runs at the default branch's sha, not the pull request's head: the head is asked for.
 */
import type { CheckRunHistory } from '../../store/check-run-find.js';
import { pullRequestHistory } from '../../store/check-run-pull.js';
import type { ActionContext } from './context.js';
import type { Subject } from './subject.js';

/**
 * Where the pull request's run may have its check run besides the head: a `synchronize` event's `before`, the
 * pointer in interlock's progress comment, the pull request's earlier commits (asked for only when needed).
 */
export function pullHistory(ctx: ActionContext, subject: Subject): CheckRunHistory {
  if (subject.kind !== 'pr' || !subject.number) return {};
  const before = ctx.payload.action === 'synchronize' ? ctx.payload.before : undefined;
  return pullRequestHistory({
    octokit: ctx.octokit,
    repo: ctx.repo,
    pull: subject.number,
    ...(typeof before === 'string' ? { before } : {}),
  });
}

/** A pull request subject with its head commit, asked of GitHub when the event did not carry it. */
export async function withPullHead(ctx: ActionContext, subject: Subject): Promise<Subject> {
  if (subject.kind !== 'pr' || !subject.number || subject.headSha || ctx.inputs.store !== 'check-run')
    return subject;
  const { data } = await ctx.octokit.rest.pulls.get({ ...ctx.repo, pull_number: subject.number });
  return { ...subject, headSha: data.head.sha };
}

/** A run id's last part as a subject (`pr-30`, `issue-80-2`): only where to look for a check-run journal. */
const RUN_SUBJECT_HINT = /(?:^|\/)(issue|pr)-(\d+)(?:-\d+)?$/;

/**
 * Where a run resumed by id from a `workflow_dispatch` (subject: the ref) keeps its check run: on the pull request
 * its id names, at that pull request's head. The journal read there names the run's real subject.
 */
export async function resumeLookup(ctx: ActionContext, runId: string, subject: Subject): Promise<Subject> {
  if (ctx.inputs.store !== 'check-run' || subject.kind !== 'ref') return subject;
  const m = RUN_SUBJECT_HINT.exec(runId);
  if (m?.[1] !== 'pr') return subject;
  return withPullHead(ctx, { kind: 'pr', number: Number(m[2]), label: `pr-${m[2]}` });
}
