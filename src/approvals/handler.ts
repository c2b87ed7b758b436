// The entry points both faces call: a comment (`issue_comment`) and a button press (`check_run.requested_action`).
import { staleReadShortMs } from '../journal/freshness.js';
import { issueSubject, subjectOfRun, validRunId } from '../journal/run-id.js';
import { NEEDS_HUMAN_LABEL } from '../render/words.js';
import { isBot, screenEvent } from './authorization/authorize.js';
import { type ParsedComment, parseComment } from './commands/parse.js';
import type { CommentPayload, HandlerDeps, Outcome, RequestedActionPayload } from './deps.js';
import { executeCommand } from './execute.js';
import { nodeOfAction } from './replies/check-run.js';
import { failedReply, refusedReply } from './replies/replies.js';
import type { CommandRequest, Executed } from './request.js';

type Reaction = 'eyes' | '+1' | 'confused';

async function react(deps: HandlerDeps, commentId: number | undefined, content: Reaction): Promise<void> {
  if (commentId === undefined) return;
  try {
    await deps.octokit.rest.reactions.createForIssueComment({ ...deps.repo, comment_id: commentId, content });
  } catch (e) {
    // A reaction is a courtesy: the reply says what happened.
    deps.log?.(`interlock: could not react ${content}: ${(e as Error).message}`);
  }
}

const labelNames = (labels: CommentPayload['issue']['labels']) =>
  (labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? '')));

/** The same command, whatever guidance follows it (editing only the guidance adds no command). */
const sameCommand = (a: ParsedComment, b: ParsedComment) => {
  const bare = (p: ParsedComment) =>
    JSON.stringify(p.kind === 'command' ? { ...p, command: { ...p.command, guidance: undefined } } : p);
  return bare(a) === bare(b);
};

/**
 * Handles an `issue_comment` event: reacts `eyes` as soon as a command is seen, then authorizes it, applies
 * it to the run's journal, dispatches the workflow, replies, and reacts `+1` or `confused`. Both faces call
 * this: the Probot app and the Action's `mode: comment`.
 */
export async function handleComment(deps: HandlerDeps, payload: CommentPayload): Promise<Outcome> {
  const author = payload.comment.user ?? payload.sender;
  const parsed = parseComment(payload.comment.body);
  const screen = screenEvent({
    action: payload.action,
    sender: payload.sender,
    author: payload.comment.user,
  });
  if (!screen.ok) {
    // An edit that adds a command gets told why nothing happens; any other edit, deletion or bot is ignored.
    const before = parseComment(payload.changes?.body?.from);
    if (
      payload.action === 'edited' &&
      !isBot(payload.sender) &&
      !isBot(author) &&
      parsed.kind !== 'none' &&
      !sameCommand(parsed, before)
    ) {
      const why = 'an edited comment is never read as a command: post the command in a new comment';
      await react(deps, payload.comment.id, 'confused');
      await postReply(deps, payload.issue.number, refusedReply(author.login, why));
      return { kind: 'refused', why };
    }
    return { kind: 'ignored', why: screen.why };
  }
  if (parsed.kind === 'none') return { kind: 'ignored', why: 'no command in the comment' };
  await react(deps, payload.comment.id, 'eyes');
  return finish(
    deps,
    {
      parsed,
      login: author.login,
      source: payload.comment.html_url,
      subject: issueSubject(payload.issue),
      labels: labelNames(payload.issue.labels),
      defaultBranch: payload.repository.default_branch ?? 'main',
      causeAt: deps.rerunJob
        ? Date.now()
        : Math.min(Date.now(), Date.parse(payload.comment.created_at ?? '') || Date.now()),
    },
    payload.comment.id,
  );
}

/**
 * Handles a press of "Approve rerun" on a run's check run (`check_run.requested_action`): the same
 * authorization and events as `/approve-rerun`, recorded with the delivery as its source.
 */
export async function handleRequestedAction(
  deps: HandlerDeps,
  payload: RequestedActionPayload,
  deliveryId: string,
): Promise<Outcome> {
  const screen = screenEvent({ action: payload.action, sender: payload.sender });
  if (!screen.ok) return { kind: 'ignored', why: screen.why };
  const identifier = payload.requested_action?.identifier ?? '';
  const runId = payload.check_run.external_id ?? '';
  const subject = subjectOfRun(runId);
  if (!identifier.startsWith('rerun:') || !validRunId(runId) || !subject)
    return { kind: 'ignored', why: 'not an interlock button' };
  const checkUrl =
    payload.check_run.html_url ??
    `${deps.webUrl}/${deps.repo.owner}/${deps.repo.repo}/runs/${payload.check_run.id}`;
  return finish(deps, {
    parsed: { kind: 'command', command: { kind: 'approve-rerun', node: '(button)', runId }, line: 0 },
    login: payload.sender.login,
    source: `${checkUrl}#delivery-${deliveryId}`,
    subject,
    // The event does not show the subject's labels: try removing the label (absent is no error).
    labels: [NEEDS_HUMAN_LABEL],
    defaultBranch: payload.repository.default_branch ?? 'main',
    resolveNode: (graph, journal) => nodeOfAction(graph, identifier, journal),
    // The event does not say when the button was pressed: when it arrived is later, so as safe.
    causeAt: Date.now(),
  });
}

async function postReply(deps: HandlerDeps, issue: number, body: string): Promise<void> {
  await deps.octokit.rest.issues.createComment({ ...deps.repo, issue_number: issue, body });
}

/**
 * The command carried out. A refusal may rest on a read GitHub answered from the past (the hold the person saw
 * not there yet): it is looked at again once a read holds everything written before the command was made, and
 * only then answered.
 */
async function freshExecute(deps: HandlerDeps, req: CommandRequest): Promise<Executed> {
  const began = Date.now();
  const executed = await executeCommand(deps, req);
  const wait = staleReadShortMs(began, req.causeAt, deps.staleWindowMs ?? 0);
  if (executed.outcome.kind !== 'refused' || executed.beforeJournal || wait <= 0) return executed;
  deps.log?.(
    `interlock: refused (${executed.outcome.why}); reading again in ${wait} ms, once GitHub's answers hold what came before the command`,
  );
  await new Promise((res) => setTimeout(res, wait));
  return executeCommand(deps, req);
}

async function finish(deps: HandlerDeps, req: CommandRequest, commentId?: number): Promise<Outcome> {
  let executed: Executed;
  try {
    executed = await freshExecute(deps, req);
  } catch (e) {
    const why = (e as Error).message;
    // The step's (or delivery's) failure says what state the run was left in, as the reply does.
    executed = {
      outcome: {
        kind: 'failed',
        why: `${why}; the command was not applied: nothing more was written than the journal shows, so post it again once GitHub answers`,
      },
      reply: failedReply(req.login, why),
    };
  }
  let outcome = executed.outcome;
  if (executed.reply) {
    try {
      await postReply(deps, req.subject.number, executed.reply);
    } catch (e) {
      outcome = {
        kind: 'failed',
        why: `${outcomeWords(outcome)}; the reply could not be posted: ${(e as Error).message}`,
      };
    }
  }
  await react(deps, commentId, outcome.kind === 'done' || outcome.kind === 'ignored' ? '+1' : 'confused');
  deps.log?.(`interlock: ${outcomeWords(outcome)}`);
  return outcome;
}

/** What came of a command, in one line for logs and the delivery's failure. */
export function outcomeWords(o: Outcome): string {
  switch (o.kind) {
    case 'done':
      return `done: ${o.what}${o.workflowRun ? ` (dispatched ${o.workflowRun}${o.workflowRunId ? `, workflow run ${o.workflowRunId}` : ''})` : ''}`;
    default:
      return `${o.kind}: ${o.why}`;
  }
}
