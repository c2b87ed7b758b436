// Recovery's rule 3 for a local executor (issue 34): gone only by positive proof. No I/O.
import { describe, expect, it } from 'vitest';
import { localExecutorProof } from '../../src/protocol/executor-proof.js';

const none = { pid: 42, executor: 'none' as const, tagged: [], unreadable: [] };

describe('rule 3, local: an executor is gone only when nothing says it may still run', () => {
  it('is gone when its pid runs no more (or runs another process) and nothing carries or may carry its tag', () => {
    expect(localExecutorProof(none)).toEqual({ gone: true, why: 'executor pid 42 is gone' });
    expect(localExecutorProof({ ...none, executor: 'reused' }).gone).toBe(true);
  });
  it('is alive while its pid runs with the recorded start, or with a start that cannot be read', () => {
    expect(localExecutorProof({ ...none, executor: 'same' }).gone).toBe(false);
    expect(localExecutorProof({ ...none, executor: 'unreadable' })).toEqual({
      gone: false,
      why: 'pid 42 is running and its start time cannot be read, so it cannot be shown to be another process than the executor',
    });
  });
  it('is alive while a process carries its tag', () => {
    expect(localExecutorProof({ ...none, tagged: [7] }).why).toMatch(/still running \(pid 7\)/);
  });
  it('is alive while a process of its user hides its environment: it may be the command', () => {
    expect(localExecutorProof({ ...none, executor: 'reused', unreadable: [8, 9] })).toEqual({
      gone: false,
      why: "the environment of pid 8, 9 (this user's) cannot be read, so it cannot be shown that none of them is the attempt's command",
    });
  });
});
