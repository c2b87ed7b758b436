// The reply to `/rerun-from` (issue 28): which nodes run again, which wait for people, and the workflow run.
import { reply } from './replies.js';

interface RerunNews {
  login: string;
  node: string;
  runId: string;
  nodes: string[];
  /** `replay: never` nodes among them that wait for `/approve-rerun`; gated ones wait for `/approve` when reached. */
  held: string[];
  gated: string[];
  /** Set when the run had ended: the new run forked from it. */
  forkedAs?: string;
  carried?: string[];
  workflowRun?: { link: string; file: string };
  workflowProblem?: string;
}

export function rerunFromReply(n: RerunNews): string {
  const list = (ids: string[]) => ids.map((id) => `\`${id}\``).join(', ');
  const where = n.forkedAs
    ? `run \`${n.runId}\` had ended, so @${n.login} forked it as **\`${n.forkedAs}\`**, which starts with the records of ${n.carried?.length ? list(n.carried) : 'no other node'}`
    : `@${n.login} marked them in run \`${n.runId}\``;
  const lines = [`🔁 Rerun from \`${n.node}\`: ${list(n.nodes)} run again as new attempts; ${where}.`];
  if (n.held.length)
    lines.push(
      '',
      `⏸ ${list(n.held)} ${n.held.length > 1 ? 'are' : 'is'} \`replay: never\`: no earlier approval carries over, so each waits for \`/approve-rerun <node>\` (or \`/settle\`).`,
    );
  if (n.gated.length)
    lines.push(
      '',
      `⏸ ${list(n.gated)} ${n.gated.length > 1 ? 'have' : 'has'} \`approval: before\`: each waits for \`/approve\` again.`,
    );
  if (n.workflowRun) lines.push('', `▶️ Dispatched [${n.workflowRun.file}](${n.workflowRun.link}).`);
  else if (n.workflowProblem) lines.push('', `⚠️ Not dispatched: ${n.workflowProblem}.`);
  return reply(lines);
}
