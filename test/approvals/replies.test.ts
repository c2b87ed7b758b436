/** Replies: what people read, with untrusted text that cannot mention, format or break out. */
import { describe, expect, it } from 'vitest';
import {
  type ApprovalNews,
  approvalReply,
  commandFor,
  failedRunReply,
  REPLY_MARKER,
  refusedReply,
  whichRunReply,
} from '../../src/approvals/replies/replies.js';

describe('replies', () => {
  it('start with the marker that tells them apart from people’s comments', () => {
    expect(refusedReply('bob', 'no')).toBe(
      `${REPLY_MARKER}\n@bob interlock did not act on this comment: no.`,
    );
  });

  it('echo a reason as one quoted line whose @mentions notify no one', () => {
    const body = failedRunReply({ login: 'bob', runId: 'fix/issue-1', reason: 'ask @alice\n\n# now' });
    expect(body).toContain('> ask @\u200balice \\# now');
    expect(body).not.toContain('@alice');
  });

  const news = (more: Partial<ApprovalNews>): ApprovalNews => ({
    login: 'bob',
    node: 'deploy',
    attempt: 1,
    runId: 'fix/issue-1',
    approvers: ['bob'],
    required: 1,
    released: true,
    interrupted: false,
    ...more,
  });

  it('say how many more approvals a rerun needs before it runs', () => {
    const body = approvalReply(news({ required: 3, released: false, interrupted: true }));
    expect(body).toContain('**approvals 1 of 3** (@bob)');
    expect(body).toContain('2 more people with permission must comment `/approve-rerun deploy`');
  });

  it('say when the workflow was not dispatched and how to go on', () => {
    const body = approvalReply(news({ workflowProblem: 'no workflow' }));
    expect(body).toContain(
      '⚠️ The workflow was not dispatched: no workflow. Run it with `run-id: fix/issue-1` to go on.',
    );
  });

  it('list, for "which run?", the command written for each run', () => {
    const settle = { kind: 'settle' as const, node: 'deploy', note: 'checked\nby hand' };
    expect(commandFor(settle, 'fix/issue-1')).toBe('/settle --run=fix/issue-1 deploy checked by hand');
    const body = whichRunReply('bob', 'issue #1', { kind: 'approve-rerun', node: 'deploy' }, [
      'a/issue-1',
      'b/issue-1',
    ]);
    expect(body).toContain('```\n/approve-rerun deploy a/issue-1\n/approve-rerun deploy b/issue-1\n```');
  });
});
