/**
 * A form of the maintainers' page (issue 37) carried out through the same code path and rules as the comment
 * command it stands for (`executeCommand`: configuration, permission and listing, the node's policy,
 * `approvals.required`, no self-approval, the run lookup, the commit, the workflow dispatch), bound to what the
 * page showed, and leaving an attributed comment on the issue or pull request ("approved from the interlock page
 * by @alice", with the guidance). A second submit of the same form is the same delivery: applied once.
 */
import { MAX_GUIDANCE_CHARS } from '../journal/events/gates.js';
import { subjectOfRun, validRunId } from '../journal/run-id.js';
import type { PageBinding } from '../protocol/commands/page-binding.js';
import { fenceFor } from '../render/excerpt.js';
import { NEEDS_HUMAN_LABEL } from '../render/words.js';
import { type Command, MAX_TEXT_CHARS } from './commands/parse.js';
import type { HandlerDeps, Outcome } from './deps.js';
import { executeCommand } from './execute.js';
import { failedReply } from './replies/replies.js';
import type { Executed } from './request.js';

export const PAGE_ACTIONS = ['approve', 'approve-rerun', 'settle', 'fail-run'] as const;
export type PageActionKind = (typeof PAGE_ACTIONS)[number];

/** One submitted form. */
export interface PageAction extends PageBinding {
  login: string;
  runId: string;
  action: PageActionKind;
  /** The guidance (approvals), what was checked (settle) or the reason (fail-run). */
  text: string;
  /** The form's own URL (the page and its form id): the delivery, applied once. */
  source: string;
  defaultBranch: string;
}

/** The comment command a form stands for, or why the form is refused. */
export function pageCommand(a: PageAction): { ok: true; command: Command } | { ok: false; why: string } {
  const text = a.text.replace(/\r\n?/g, '\n').trim();
  const runId = a.runId;
  switch (a.action) {
    case 'approve':
    case 'approve-rerun':
      if ([...text].length > MAX_GUIDANCE_CHARS)
        return { ok: false, why: `the guidance is over ${MAX_GUIDANCE_CHARS} characters: shorten it` };
      return {
        ok: true,
        command: { kind: a.action, node: a.node, runId, ...(text ? { guidance: text } : {}) },
      };
    case 'settle':
    case 'fail-run': {
      const what = a.action === 'settle' ? 'what you checked' : 'a reason';
      if (!text) return { ok: false, why: `${a.action} needs ${what}` };
      if (text.length > MAX_TEXT_CHARS)
        return { ok: false, why: `${what} is over ${MAX_TEXT_CHARS} characters` };
      const line = text.replace(/\s+/g, ' ');
      return {
        ok: true,
        command:
          a.action === 'settle'
            ? { kind: 'settle', node: a.node, note: line, runId }
            : { kind: 'fail-run', reason: line, runId },
      };
    }
  }
}

const DID: Record<PageActionKind, string> = {
  approve: 'approved',
  'approve-rerun': 'approved a rerun of',
  settle: 'settled',
  'fail-run': 'failed the run',
};

/** The attribution that heads the comment, with the person's text as a fenced block (no Markdown, no mention). */
function attribution(a: PageAction): string {
  const what = a.action === 'fail-run' ? `\`${a.runId}\`` : `\`${a.node}\` in run \`${a.runId}\``;
  const text = a.text.trim();
  const label = a.action === 'settle' ? 'What was checked' : a.action === 'fail-run' ? 'Reason' : 'Guidance';
  const fence = fenceFor(text);
  return [
    `🖱️ ${DID[a.action]} ${what} from the interlock page by @${a.login}.`,
    ...(text ? ['', `${label}:`, '', `${fence}text`, text, fence] : []),
  ].join('\n');
}

/** Carries out one form: refused, done (the comment posted), or ignored (the same form submitted again). */
export async function handlePageAction(deps: HandlerDeps, a: PageAction): Promise<Outcome> {
  const subject = subjectOfRun(a.runId);
  if (!validRunId(a.runId) || !subject)
    return { kind: 'refused', why: `run "${a.runId}" names no issue or pull request` };
  const made = pageCommand(a);
  if (!made.ok) return { kind: 'refused', why: made.why };
  let executed: Executed;
  try {
    executed = await executeCommand(deps, {
      parsed: { kind: 'command', command: made.command, line: 0 },
      login: a.login,
      source: a.source,
      subject,
      labels: [NEEDS_HUMAN_LABEL],
      defaultBranch: a.defaultBranch,
      bound: { node: a.node, waits: a.waits, attempt: a.attempt, graphHash: a.graphHash },
    });
  } catch (e) {
    const why = (e as Error).message;
    executed = {
      outcome: { kind: 'failed', why: `${why}; nothing more was written than the journal shows` },
      reply: failedReply(a.login, why),
    };
  }
  const outcome = executed.outcome;
  // A refusal is shown on the page only: nobody asked on the issue, so nothing is said there.
  if (outcome.kind !== 'done' && outcome.kind !== 'failed') return outcome;
  const body = [attribution(a), ...(executed.reply ? ['', executed.reply] : [])].join('\n');
  try {
    await deps.octokit.rest.issues.createComment({ ...deps.repo, issue_number: subject.number, body });
  } catch (e) {
    return {
      kind: 'failed',
      why: `${outcomeText(outcome)}; the comment could not be posted: ${(e as Error).message}`,
    };
  }
  return outcome;
}

function outcomeText(o: Outcome): string {
  return o.kind === 'done' ? `done: ${o.what}` : `${o.kind}: ${o.why}`;
}
