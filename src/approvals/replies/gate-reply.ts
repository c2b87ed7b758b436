// The reply to `/approve <node>`: the approvals counted so far, and the dispatch once enough people approved.
import { approveCommand } from '../../render/next-commands.js';
import { type ApprovalStanding, reply, workflowDispatchLine } from './replies.js';

interface GateApprovalNews extends ApprovalStanding {
  guided: boolean;
}

export function gateApprovalReply(n: GateApprovalNews): string {
  const count = `${n.approvers.length} of ${n.required}`;
  const who = n.approvers.map((a) => `@${a}`).join(', ');
  const guided = n.guided ? ' Their guidance is recorded and given to the node as data.' : '';
  if (!n.released) {
    const left = n.required - n.approvers.length;
    return reply([
      `✋ @${n.login} approved \`${n.node}\` in run \`${n.runId}\`: **approvals ${count}** (${who}).${guided}`,
      '',
      `${left} more ${left === 1 ? 'person' : 'people'} must comment \`${approveCommand('comment', n.node, { runId: n.runId })}\` before it runs.`,
    ]);
  }
  return reply([
    `✅ @${n.login} approved \`${n.node}\` in run \`${n.runId}\`: approvals ${count} (${who}); its first attempt comes next.${guided}`,
    '',
    workflowDispatchLine(n.runId, n.workflowRun, n.workflowProblem),
  ]);
}
