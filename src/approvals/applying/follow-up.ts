/**
 * What follows a person's command once the journal holds it: the workflow dispatch, the reply, and what people see on
 * the subject (the progress comment, the "needs human" label, the check run).
 */
import { statusOf } from '../../github/status.js';
import type { Graph } from '../../graph/model.js';
import type { JournalEvent } from '../../journal/events/events.js';
import type { RunState } from '../../journal/state.js';
import { approvalStanding } from '../../protocol/commands/person-commands.js';
import { progressComment } from '../../render/markdown.js';
import { timelineOf } from '../../render/timeline/timeline-of.js';
import { NEEDS_HUMAN_LABEL } from '../../render/words.js';
import type { RunSnapshot } from '../../runner/journal-io/read.js';
import type { HandlerDeps, Outcome } from '../deps.js';
import { type LoadedRun, loadRun, type RunPlace, stateOf } from '../lookup/load-run.js';
import { publishCheckRun } from '../replies/check-run.js';
import { gateApprovalReply } from '../replies/gate-reply.js';
import { approvalReply, failedRunReply, settledReply } from '../replies/replies.js';
import { rerunFromReply } from '../replies/rerun-reply.js';
import type { CommandRequest, Executed } from '../request.js';
import { dispatchWorkflow, workflowOf } from '../workflow/workflow-dispatch.js';
import type { Target } from './apply.js';
import { type Retried, withinLease } from './retry-dispatch.js';

/** An approval's or a person's settlement's event, whose dispatch a copy of the command would retry (`owedDispatch`). */
const claimsDispatch = (e: JournalEvent) =>
  e.type === 'NodeApproved' ||
  e.type === 'RerunApproved' ||
  e.type === 'RerunFromApproved' ||
  (e.type === 'NodeRecorded' && e.recorded_by !== undefined);

/** The run a person's command was applied to: as loaded, and as the journal now stands. */
interface Applied {
  run: LoadedRun;
  cur: RunSnapshot;
  /** What `/fail-run` did to the workflow run in progress, in words for the reply. */
  cancelled?: string;
  /** The dispatch as a copy of the command would retry it: for a writer whose write took past its lease. */
  retry?: () => Promise<Retried>;
}

/** The workflow dispatch after a command: the workflow run it started, or why none was. */
interface WorkflowDispatch {
  workflowRun?: { link: string; file: string; workflowRunId?: number };
  workflowProblem?: string;
  failed?: true;
}

/** Dispatches the run's workflow so its next step starts; says why not when it cannot. */
async function dispatchRunWorkflow(
  deps: HandlerDeps,
  req: CommandRequest,
  s: Applied,
  node?: string,
): Promise<WorkflowDispatch> {
  const target = workflowOf(s.cur.journal, deps.repo, node);
  if (!target)
    return {
      workflowProblem: 'the run records no workflow of this repository (it was not started by the Action)',
    };
  // Past half its lease a copy of the command may be dispatching already: go the copy's way (issue 50).
  const last = s.cur.journal.events.at(-1);
  if (s.retry && last && claimsDispatch(last) && !withinLease(deps, last.at)) {
    const r = await s.retry();
    if ('dispatched' in r) return { workflowRun: r.dispatched };
    return { workflowProblem: r.why, ...(r.failed ? { failed: true as const } : {}) };
  }
  try {
    const run = await dispatchWorkflow(deps, target, s.run.runId, req.defaultBranch);
    return { workflowRun: { ...run, file: target.file } };
  } catch (e) {
    return {
      failed: true,
      workflowProblem: `GitHub refused to dispatch \`${target.file}\` (${statusOf(e) ?? 'error'}: ${(e as Error).message})`,
    };
  }
}

/** The reply to `/fail-run`: the run failed, and which workflow runs were cancelled. */
function failRunAnswer(
  req: CommandRequest,
  s: Applied,
  reason: string,
): { reply: string; what: string; d: WorkflowDispatch } {
  const runId = s.run.runId;
  return {
    reply: failedRunReply({
      login: req.login,
      runId,
      reason,
      ...(s.cancelled ? { cancelled: s.cancelled } : {}),
    }),
    what: `failed run ${runId}${s.cancelled ? ` (${s.cancelled})` : ''}`,
    d: {},
  };
}

/** The attempt the command named: for a node escalated at the run's budget, the one that was not dispatched. */
function namedAttempt(s: Applied, node: string, attempts: number): number {
  const named = [...s.cur.journal.events]
    .reverse()
    .find((e) => (e.type === 'RerunApproved' || e.type === 'NodeRecorded') && e.node === node);
  return named && 'attempt' in named ? named.attempt : attempts;
}

/** The workflow dispatch a command calls for, the reply, and a line for the log. */
async function answer(
  deps: HandlerDeps,
  req: CommandRequest,
  t: Target,
  s: Applied,
): Promise<{ reply: string; what: string; d: WorkflowDispatch }> {
  const { command } = t;
  const { state } = s.cur;
  const runId = s.run.runId;
  if (command.kind === 'fail-run') return failRunAnswer(req, s, command.reason);
  if (command.kind === 'rerun-from') return rerunAnswer(deps, req, s, command.node);
  const p = state.nodes.get(command.node)!;
  const attempt = namedAttempt(s, command.node, p.attempts);
  if (command.kind === 'approve' || command.kind === 'approve-rerun') {
    const standing = approvalStanding(s.cur.journal, state, command.node);
    const d = standing.released ? await dispatchRunWorkflow(deps, req, s, command.node) : {};
    const news = { login: req.login, node: command.node, runId, ...standing, ...shown(d) };
    const done = `${standing.released ? 'released' : 'approved'} ${command.node}`;
    const count = `(${standing.approvers.length} of ${standing.required})`;
    return command.kind === 'approve'
      ? {
          reply: gateApprovalReply({ ...news, guided: command.guidance !== undefined }),
          what: `${done} before its first attempt ${count}`,
          d,
        }
      : {
          reply: approvalReply({ ...news, attempt, interrupted: p.interrupted }),
          what: `${done} attempt ${attempt} ${count}`,
          d,
        };
  }
  const cp = state.checkpoint;
  const nothingToRun = cp.ended !== null || cp.ready_nodes.length === 0;
  const d = nothingToRun ? {} : await dispatchRunWorkflow(deps, req, s);
  return {
    reply: settledReply({
      login: req.login,
      node: command.node,
      attempt,
      runId,
      note: command.note,
      runStatus: cp.status,
      nothingToRun,
      ...shown(d),
    }),
    what: `settled ${command.node} attempt ${attempt}`,
    d,
  };
}

/** The reply to `/rerun-from` in a run that goes on: the workflow is dispatched when a node is ready. */
async function rerunAnswer(
  deps: HandlerDeps,
  req: CommandRequest,
  s: Applied,
  node: string,
): Promise<{ reply: string; what: string; d: WorkflowDispatch }> {
  const cp = s.cur.state.checkpoint;
  const d = cp.ready_nodes.length ? await dispatchRunWorkflow(deps, req, s) : {};
  const ev = [...s.cur.journal.events].reverse().find((e) => e.type === 'RerunFromApproved');
  const nodes = ev?.type === 'RerunFromApproved' ? ev.nodes : [node];
  const gated = nodes.filter((id) => s.run.graph.nodes.find((n) => n.id === id)?.approval === 'before');
  const held = nodes.filter((id) => cp.held_nodes.includes(id));
  return {
    reply: rerunFromReply({ login: req.login, node, runId: s.run.runId, nodes, held, gated, ...shown(d) }),
    what: `reran from ${node} (${nodes.join(', ')})`,
    d,
  };
}

const shown = (d: WorkflowDispatch) => ({
  ...(d.workflowRun ? { workflowRun: d.workflowRun } : {}),
  ...(d.workflowProblem ? { workflowProblem: d.workflowProblem } : {}),
});

/** The workflow dispatch, the reply, progress comment, label and check run, once the journal holds the command. */
export async function showApplied(
  deps: HandlerDeps,
  req: CommandRequest,
  t: Target,
  s: Applied,
): Promise<Executed> {
  const { reply, what, d } = await answer(deps, req, t, s);
  await updateSubject(deps, req, t, s);
  const outcome: Outcome = d.failed
    ? { kind: 'failed', why: `${what}, but the workflow was not dispatched: ${d.workflowProblem}` }
    : {
        kind: 'done',
        what,
        command: t.command,
        ...(d.workflowRun ? { workflowRun: d.workflowRun.link } : {}),
        ...(d.workflowRun?.workflowRunId ? { workflowRunId: d.workflowRun.workflowRunId } : {}),
      };
  return { outcome, reply };
}

/** The progress comment, the label and the check run; each is a courtesy, so a failure is logged, not thrown. */
export async function updateSubject(
  deps: HandlerDeps,
  req: CommandRequest,
  t: Target,
  s: Applied,
): Promise<void> {
  const { run, cur } = s;
  const warn = (what: string, e: unknown) =>
    deps.log?.(`interlock: could not ${what}: ${(e as Error).message}`);
  if (cur.journal.progress_comment_id) {
    try {
      await deps.octokit.rest.issues.updateComment({
        ...deps.repo,
        comment_id: cur.journal.progress_comment_id,
        body: progressComment(run.graph, cur.state, { timeline: timelineOf(cur.journal) }),
      });
    } catch (e) {
      if (statusOf(e) !== 404) warn('update the progress comment', e);
    }
  }
  if (req.labels.includes(NEEDS_HUMAN_LABEL)) {
    try {
      if (await nothingWaits(deps, cur.state, run.runId, t))
        await deps.octokit.rest.issues.removeLabel({
          ...deps.repo,
          issue_number: req.subject.number,
          name: NEEDS_HUMAN_LABEL,
        });
    } catch (e) {
      if (statusOf(e) !== 404) warn(`remove the label "${NEEDS_HUMAN_LABEL}"`, e);
    }
  }
  if (deps.checkRuns) {
    try {
      await publishCheckRun(deps, req.subject, run.graph, cur.state, run.runId);
    } catch (e) {
      warn('update the check run', e);
    }
  }
}

/** Whether no run of the subject has a held or escalated node any more (an unreadable run counts as waiting). */
async function nothingWaits(
  deps: HandlerDeps,
  state: RunState,
  runId: string,
  t: { mine: string[]; graphs: Map<string, Promise<Graph>>; places?: ReadonlyMap<string, RunPlace> },
): Promise<boolean> {
  const waits = (s: RunState) =>
    !s.checkpoint.ended &&
    s.checkpoint.held_nodes.length +
      s.checkpoint.escalated_nodes.length +
      (s.checkpoint.awaiting_approval_nodes?.length ?? 0) >
      0;
  if (waits(state)) return false;
  for (const other of t.mine) {
    if (other === runId) continue;
    const l = await loadRun(deps, other, t.graphs, t.places);
    const s = l.ok ? stateOf(l.run) : undefined;
    if (!s?.ok || waits(s.state)) return false;
  }
  return true;
}
