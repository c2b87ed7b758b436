// The replies interlock posts on the subject: what was done, refused or asked; untrusted text (a person's note or
// reason, a refusal that quotes a command) passes the door (src/render/door.ts).

import type { Graph } from '../../graph/model.js';
import type { RunState } from '../../journal/state.js';
import { throughDoor } from '../../render/door.js';
import { statusBlock } from '../../render/markdown.js';
import { approveRerunCommand } from '../../render/next-commands.js';
import { statusWord } from '../../render/words.js';
import type { Command } from '../commands/parse.js';

/** Marks interlock's replies, so people and tools can tell them apart. */
export const REPLY_MARKER = '<!-- interlock:reply -->';

const MAX_REPLY = 60_000;

export function reply(lines: string[]): string {
  const text = [REPLY_MARKER, ...lines].join('\n');
  return text.length > MAX_REPLY ? `${text.slice(0, MAX_REPLY)}\n\n…(cut: too long for a comment)` : text;
}

/** Echoes a person's free text as a quote, one line, cut short. */
function quoted(text: string): string {
  return `> ${throughDoor(text, 'line', { max: 300 })}`;
}

/** interlock's reason, which may quote what a comment said (a node, a run id): through the door, its code kept. */
const reasonText = (why: string) => throughDoor(why, 'prose', { max: 1000 });

export function refusedReply(login: string, reason: string): string {
  return reply([`@${login} interlock did not act on this comment: ${reasonText(reason)}.`]);
}

export function failedReply(login: string, why: string): string {
  return reply([
    `@${login} interlock could not finish this command: ${reasonText(why)}`,
    '',
    'Nothing more was written than the journal shows; post the command again once the cause is fixed.',
  ]);
}

/** What an approval's reply tells, whether it opened a gate (`/approve`) or a hold (`/approve-rerun`). */
export interface ApprovalStanding {
  login: string;
  node: string;
  runId: string;
  approvers: string[];
  required: number;
  released: boolean;
  workflowRun?: { link: string; file: string };
  workflowProblem?: string;
}

export interface ApprovalNews extends ApprovalStanding {
  attempt: number;
  interrupted: boolean;
}

export function approvalReply(n: ApprovalNews): string {
  const count = `${n.approvers.length} of ${n.required}`;
  const who = n.approvers.map((a) => `@${a}`).join(', ');
  if (!n.released) {
    const left = n.required - n.approvers.length;
    return reply([
      `✋ @${n.login} approved a rerun of \`${n.node}\` (attempt ${n.attempt}) in run \`${n.runId}\`: **approvals ${count}** (${who}).`,
      '',
      `${left} more ${left === 1 ? 'person' : 'people'} with permission must comment \`${approveRerunCommand('comment', n.node, { runId: n.runId })}\` before it runs again.`,
    ]);
  }
  return reply([
    `✅ @${n.login} approved a rerun of \`${n.node}\` in run \`${n.runId}\`: approvals ${count} (${who}).`,
    '',
    n.interrupted
      ? `Attempt ${n.attempt} was interrupted and may have partly run; attempt ${n.attempt + 1} comes next and is told so.`
      : `Attempt ${n.attempt} failed; attempt ${n.attempt + 1} comes next.`,
    '',
    workflowDispatchLine(n.runId, n.workflowRun, n.workflowProblem),
  ]);
}

/**
 * A copy of an approval's delivery found it journaled with no workflow run (the App stopped between the two), and
 * dispatched the workflow itself (issue 50).
 */
export function retriedDispatchReply(n: {
  login: string;
  runId: string;
  workflowRun?: { link: string; file: string };
  workflowProblem?: string;
}): string {
  return reply([
    `🔁 @${n.login}'s approval in run \`${n.runId}\` was journaled, but its workflow was never dispatched (what journaled it, the App or a comment job, stopped in between).`,
    '',
    workflowDispatchLine(n.runId, n.workflowRun, n.workflowProblem),
  ]);
}

export function workflowDispatchLine(
  runId: string,
  workflowRun?: { link: string; file: string },
  problem?: string,
): string {
  if (workflowRun)
    return `Dispatched [\`${workflowRun.file}\`](${workflowRun.link}) with \`run-id: ${runId}\`.`;
  return `⚠️ The workflow was not dispatched: ${problem ?? 'the run records no workflow'}. Run it with \`run-id: ${runId}\` to go on.`;
}

export function settledReply(n: {
  login: string;
  node: string;
  attempt: number;
  runId: string;
  note: string;
  runStatus: string;
  workflowRun?: { link: string; file: string };
  workflowProblem?: string;
  nothingToRun: boolean;
}): string {
  return reply([
    `✅ @${n.login} settled \`${n.node}\` (attempt ${n.attempt}) in run \`${n.runId}\` as done:`,
    '',
    quoted(n.note),
    '',
    n.nothingToRun
      ? `The run is ${n.runStatus}.`
      : workflowDispatchLine(n.runId, n.workflowRun, n.workflowProblem),
  ]);
}

export function failedRunReply(n: {
  login: string;
  runId: string;
  reason: string;
  /** What became of the run's workflow run in progress (`/fail-run` cancels it), when there was one. */
  cancelled?: string;
}): string {
  return reply([
    `❌ @${n.login} ended run \`${n.runId}\` as failed:`,
    '',
    quoted(n.reason),
    ...(n.cancelled ? ['', n.cancelled] : []),
  ]);
}

export function statusReply(
  runs: Array<{ runId: string; graph?: Graph; state?: RunState; problem?: string }>,
): string {
  const lines: string[] = [];
  for (const r of runs) {
    if (!r.graph || !r.state) {
      lines.push(`### \`${r.runId}\``, '', `⚠️ ${reasonText(r.problem ?? 'could not be read')}`, '');
      continue;
    }
    const cp = r.state.checkpoint;
    lines.push(
      `### \`${r.runId}\` · ${statusWord(cp.status)}`,
      '',
      ...statusBlock(r.graph, r.state, { diagram: 'shown' }),
      '',
    );
  }
  return reply(lines);
}

/** The command as it would be written for one run id, for the "which run?" reply. */
export function commandFor(command: Command, runId: string): string {
  switch (command.kind) {
    case 'approve-rerun':
    case 'approve':
    case 'rerun-from':
      return `/${command.kind} ${command.node} ${runId}`;
    case 'settle':
      return `/settle --run=${runId} ${command.node} ${command.note.replace(/\s+/g, ' ')}`;
    case 'fail-run':
      return `/fail-run --run=${runId} ${command.reason.replace(/\s+/g, ' ')}`;
    case 'status':
      return `/interlock status ${runId}`;
  }
}

export function whichRunReply(login: string, what: string, command: Command, runIds: string[]): string {
  return reply([
    `@${login} ${what} has ${runIds.length} interlock runs; say which one by commenting one of:`,
    '',
    '```',
    ...runIds.map((id) => commandFor(command, id)),
    '```',
  ]);
}
