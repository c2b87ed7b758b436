// The attempt boundary the faces mark (log groups, and later stop-commands tokens): the closing hook always runs.
import { describe, expect, it } from 'vitest';
import { type AttemptSetup, withinAttempt } from '../../src/runner/attempt/attempt.js';

type Hooks = Pick<AttemptSetup, 'attemptStarted' | 'attemptEnded'>;

function recorder(): { setup: Hooks; calls: string[] } {
  const calls: string[] = [];
  const setup: Hooks = {
    attemptStarted: (m) => calls.push(`start ${m.node}#${m.attempt} ${m.approach}`),
    attemptEnded: (m) => calls.push(`end ${m.node}#${m.attempt} ${m.approach}`),
  };
  return { setup, calls };
}

describe('the attempt boundary', () => {
  const mark = { node: 'build', attempt: 2, approach: 'default' };

  it('opens before the work and closes after it', async () => {
    const { setup, calls } = recorder();
    await withinAttempt(setup, mark, async () => {
      calls.push('work');
    });
    expect(calls).toEqual(['start build#2 default', 'work', 'end build#2 default']);
  });

  it('closes when the work throws, and the error still reaches the caller', async () => {
    const { setup, calls } = recorder();
    await expect(
      withinAttempt(setup, mark, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(calls).toEqual(['start build#2 default', 'end build#2 default']);
  });
});
