/**
 * The attention comment of a node that waits for approval before it runs (`approval: before`): what it will do
 * (its command or prompt), the evidence that will prove it, its replay rule, who may approve, and the commands.
 */
import { type Graph, nodeById } from '../graph/model.js';
import type { RunState } from '../journal/state.js';
import { effectivePolicy, policyWords, type RepoApprovals } from '../protocol/policy.js';
import { throughDoor } from './door.js';
import { attentionComment } from './markdown.js';
import { approveCommand, failRunCommand, settleCommand } from './next-commands.js';

/** A fenced block that no backtick run inside the text can close, through the door (a prompt may quote outputs). */
function fenced(text: string, lang: string, secrets: readonly string[] = []): string {
  return throughDoor(text, 'block', { secrets, lang });
}

/** What the comment may know beyond the run: the repository's approval rules, when the face has them. */
interface AttentionOptions {
  repoApprovals?: RepoApprovals | undefined;
  /** The step's secrets, which no published text carries (src/render/door.ts). */
  secrets?: readonly string[];
}

/** What an attention comment is about: the run's graph and state, the node that waits, the run id, the options. */
type AttentionArgs = [graph: Graph, state: RunState, node: string, runId: string, opts?: AttentionOptions];

/** The comment that asks people to approve (or settle, or fail) a gated node. */
function gateAttentionComment(...[graph, state, node, runId, opts = {}]: AttentionArgs): string {
  const n = nodeById(graph, node);
  const work = n?.approaches[0];
  const policy = effectivePolicy(opts.repoApprovals, n);
  const evidence = n?.validates.length ? n.validates.map((c) => `- \`${JSON.stringify(c)}\``) : ['- (none)'];
  return [
    `<!-- interlock:attention ${runId} ${node} 0 -->`,
    `✋ **interlock: \`${node}\` waits for approval before it runs** (\`approval: before\`): ${policyWords(policy, state.started?.started_by)}.`,
    '',
    work?.run !== undefined ? 'It will run:' : 'It will give the agent this prompt:',
    '',
    fenced(work?.run ?? work?.prompt ?? '', work?.run !== undefined ? 'bash' : '', opts.secrets),
    '',
    'Evidence checked after it:',
    ...evidence,
    '',
    `Replay rule: \`${n?.replay ?? 'never'}\`${n?.replay === 'safe' ? ' (an interrupted attempt runs again)' : ' (an interrupted attempt is held for a person)'}.`,
    '',
    'Comment one of these, on a line of its own; lines after `/approve` are guidance the node receives as data:',
    '',
    '```',
    approveCommand('comment', node, { runId }),
    settleCommand('comment', node, { runId }),
    failRunCommand('comment', { runId }),
    '```',
    '',
    `Run \`${runId}\`.`,
  ].join('\n');
}

/** The attention comment for any node that waits for people: the gate's, or a hold's or an escalation's. */
export function attentionFor(...args: AttentionArgs): string {
  const [, state, node, runId, opts] = args;
  return state.nodes.get(node)?.state === 'awaiting_approval'
    ? gateAttentionComment(...args)
    : attentionComment(state, node, runId, opts?.secrets);
}
