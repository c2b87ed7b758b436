import { isOwnComment } from '../../github/own-comment.js';
import { statusOf } from '../../github/status.js';
import { parseInstanceId } from '../../graph/schema/for-each.js';
import { attentionFor } from '../../render/gate-attention.js';
import { jobSummary, overdueComment, progressComment, progressMarker } from '../../render/markdown.js';
import { timelineOf } from '../../render/timeline/timeline-of.js';
import { NEEDS_HUMAN_LABEL } from '../../render/words.js';
import type { StepSetup } from '../../runner/dispatch.js';
import type { RunSnapshot } from '../../runner/journal-io/read.js';
import type { OverdueNotice } from '../../runner/overdue.js';
import type { StepResult } from '../../runner/step-result.js';
import { checkRunPointer } from '../../store/check-run.js';
import { updateHeader } from '../../store/header.js';
import type { JournalStore } from '../../store/types.js';
import type { ActionContext } from '../context/context.js';
import { defaultBranchApprovals } from '../context/repo-approvals.js';
import type { Subject } from '../context/subject.js';

type Published =
  | {
      kind: 'step';
      result: StepResult;
      interrupted: string[];
      /** Nodes that escalated or began to wait for approval during the step (`node: all` goes on past them). */
      needPerson?: string[];
      headline: string;
    }
  | { kind: 'plan' | 'recover'; interrupted: string[]; headline: string };

/** Shows the run to people: the job summary, the progress comment, and on a hold or escalation a comment and a label. */
export async function publishResult(
  ctx: ActionContext,
  setup: StepSetup,
  cur: RunSnapshot,
  what: Published,
  subject: Subject,
): Promise<void> {
  const { graph } = setup;
  const state = cur.state;
  const runUrl = `${ctx.env.GITHUB_SERVER_URL}/${ctx.repo.owner}/${ctx.repo.repo}/actions/runs/${ctx.me.workflow_run_id}`;
  const timeline = timelineOf(cur.journal);
  const secrets = setup.secrets ?? [];
  await ctx.io.summary(jobSummary(graph, state, what.headline, { timeline, secrets }));
  if (!subject.number) return;
  const issue_number = subject.number;
  try {
    if (!progressLeftToOthers(what, state))
      await upsertProgress(
        ctx,
        setup.store,
        cur,
        progressComment(graph, state, { workflowRun: runUrl, timeline, secrets }) +
          checkRunPointer(setup.store, cur.journal.run_id),
        issue_number,
      );
    const attention = new Set<string>();
    if (
      what.kind === 'step' &&
      (what.result.kind === 'escalated' || what.result.kind === 'awaiting-approval')
    )
      attention.add(what.result.node);
    if (what.kind === 'step')
      for (const n of what.needPerson ?? []) {
        const now = state.nodes.get(n)?.state;
        if (now === 'escalated' || now === 'awaiting_approval') attention.add(n);
      }
    for (const n of what.interrupted) if (state.nodes.get(n)?.state === 'held') attention.add(n);
    await askForAttention(ctx, { graph, state, secrets }, cur.journal.run_id, [...attention], issue_number);
  } catch (e) {
    // Showing the run must not fail a step whose journal is already written.
    ctx.io.warning(
      `interlock could not update ${subject.kind} #${issue_number} (${(e as Error).message}); the journal is up to date. Give the token issues: write (and pull-requests: write) to see progress there.`,
    );
  }
}

/**
 * A node recorded while other nodes of the run are in flight leaves the progress comment to the last of them to
 * record (its write sees every record before it), as a matrix's jobs would otherwise spend a third of their
 * writes on it. A for_each instance recorded leaves it to the step that joins its node or lists the next
 * instances (a `plan`, or a `node: next` or `all` step): the run cannot go on without one, and it shows the
 * whole wave. What needs a person (a failure, a hold, an escalation) and the run's end are always shown.
 */
function progressLeftToOthers(what: Published, state: RunSnapshot['state']): boolean {
  return (
    what.kind === 'step' &&
    what.result.kind === 'recorded' &&
    what.interrupted.length === 0 &&
    state.checkpoint.ended === null &&
    (state.checkpoint.active_nodes.length > 0 || parseInstanceId(what.result.node) !== undefined)
  );
}

/**
 * The comment that asks a person to decide about a held or escalated node, and the label: once per node and attempt
 * (its hidden marker says which), however many steps see the node waiting.
 */
export async function askForAttention(
  ctx: ActionContext,
  run: { graph: StepSetup['graph']; state: RunSnapshot['state']; secrets?: readonly string[] },
  runId: string,
  nodes: string[],
  issue_number: number,
): Promise<void> {
  if (!nodes.length) return;
  const existing = await ctx.octokit.paginate(ctx.octokit.rest.issues.listComments, {
    ...ctx.repo,
    issue_number,
    per_page: 100,
  });
  let asked = false;
  const gated = nodes.some((n) => run.state.nodes.get(n)?.state === 'awaiting_approval');
  const opts = {
    ...(gated ? { repoApprovals: await defaultBranchApprovals(ctx) } : {}),
    ...(run.secrets ? { secrets: run.secrets } : {}),
  };
  for (const node of nodes) {
    const body = attentionFor(run.graph, run.state, node, runId, opts);
    const marker = body.slice(0, body.indexOf('\n'));
    if (existing.some((c) => isOwnComment(c, marker))) continue;
    await ctx.octokit.rest.issues.createComment({ ...ctx.repo, issue_number, body });
    asked = true;
  }
  if (asked)
    await ctx.octokit.rest.issues.addLabels({ ...ctx.repo, issue_number, labels: [NEEDS_HUMAN_LABEL] });
}

/**
 * An attempt past a soft bound, told while it runs: the progress comment shows it, a comment says it once per
 * node and attempt (its hidden marker), and the needs-human label goes on. Never fails the attempt.
 */
export async function announceOverdue(
  ctx: ActionContext,
  setup: StepSetup,
  n: OverdueNotice,
  subject: Subject,
): Promise<void> {
  if (!subject.number) return;
  const issue_number = subject.number;
  const runId = n.cur.journal.run_id;
  const secrets = setup.secrets ?? [];
  try {
    await upsertProgress(
      ctx,
      setup.store,
      n.cur,
      progressComment(setup.graph, n.cur.state, { timeline: timelineOf(n.cur.journal), secrets }),
      issue_number,
    );
    const body = overdueComment(runId, n.node, n.attempt, n.message, secrets);
    const marker = body.slice(0, body.indexOf('\n'));
    const existing = await ctx.octokit.paginate(ctx.octokit.rest.issues.listComments, {
      ...ctx.repo,
      issue_number,
      per_page: 100,
    });
    if (existing.some((c) => isOwnComment(c, marker))) return;
    await ctx.octokit.rest.issues.createComment({ ...ctx.repo, issue_number, body });
    await ctx.octokit.rest.issues.addLabels({ ...ctx.repo, issue_number, labels: [NEEDS_HUMAN_LABEL] });
  } catch (e) {
    ctx.io.warning(
      `interlock could not tell ${subject.kind} #${issue_number} that "${n.node}" is overdue (${(e as Error).message})`,
    );
  }
}

/**
 * One progress comment per run, updated in place: its id lives in the journal's header. Before the header has
 * it (a plan job, or jobs that raced), the comment is found by its hidden marker, among comments by bots (the
 * marker is plain text anyone could paste), so no step leaves a second one behind.
 */
export async function upsertProgress(
  ctx: ActionContext,
  store: JournalStore,
  cur: RunSnapshot,
  body: string,
  issue_number: number,
): Promise<number> {
  const stored = cur.journal.progress_comment_id;
  let id = stored ?? (await findProgressComment(ctx, issue_number, cur.journal.run_id));
  if (id) {
    try {
      await ctx.octokit.rest.issues.updateComment({ ...ctx.repo, comment_id: id, body });
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
      id = undefined;
    }
  }
  let created = false;
  if (!id) {
    id = (await ctx.octokit.rest.issues.createComment({ ...ctx.repo, issue_number, body })).data.id;
    created = true;
  }
  if (id === stored) return id;
  const final = await updateHeader(store, {
    first: cur,
    // Another job stored one first: keep theirs.
    change: (j) =>
      j.progress_comment_id === id || (j.progress_comment_id && j.progress_comment_id !== stored)
        ? undefined
        : { ...j, progress_comment_id: id },
    message: (j) => `interlock: ${j.run_id} progress comment ${id}`,
  });
  if (created && final?.progress_comment_id && final.progress_comment_id !== id)
    await ctx.octokit.rest.issues.deleteComment({ ...ctx.repo, comment_id: id });
  return final?.progress_comment_id ?? id;
}

async function findProgressComment(
  ctx: ActionContext,
  issue_number: number,
  runId: string,
): Promise<number | undefined> {
  const marker = progressMarker(runId);
  const comments = await ctx.octokit.paginate(ctx.octokit.rest.issues.listComments, {
    ...ctx.repo,
    issue_number,
    per_page: 100,
  });
  return comments.find((c) => isOwnComment(c, marker))?.id;
}
