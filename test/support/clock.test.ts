import { describe, expect, it } from 'vitest';
import { GITHUB_CLOCK, ORDER_CLOCK, staleWindowOf, stepClockEnv } from './clock.js';
import { startGitHubServer } from './github-server.js';

describe("what a step is told of the local GitHub's clock", () => {
  it('the order clock is the default four times faster (unless INTERLOCK_TEST_CLOCK=github)', () => {
    expect(GITHUB_CLOCK).toEqual({ contentsWriteMs: 300, staleMs: 2000 });
    expect(ORDER_CLOCK).toEqual(
      process.env.INTERLOCK_TEST_CLOCK === 'github' ? GITHUB_CLOCK : { contentsWriteMs: 75, staleMs: 500 },
    );
  });

  it('on a clock four times faster: its stale window, and a line-up slot shorter by as much as its write', async () => {
    const server = await startGitHubServer({ likeGitHub: { contentsWriteMs: 75, staleMs: 500 } });
    try {
      expect(stepClockEnv(server.url)).toEqual({
        INTERLOCK_STALE_READ_MS: '500',
        INTERLOCK_LINE_UP_SLOT_MS: '500',
      });
      expect(staleWindowOf(server)).toBe(500);
    } finally {
      await server.close();
    }
    // A server that stopped is not known any more: the default window.
    expect(stepClockEnv(server.url)).toEqual({ INTERLOCK_STALE_READ_MS: '2000' });
  });

  it('on the default clock: its 2 s window, and the product’s own slot (unset)', async () => {
    for (const likeGitHub of [undefined, GITHUB_CLOCK, { staleProbability: 0 }]) {
      const server = await startGitHubServer(likeGitHub ? { likeGitHub } : {});
      try {
        expect(stepClockEnv(server.url)).toEqual({ INTERLOCK_STALE_READ_MS: '2000' });
      } finally {
        await server.close();
      }
    }
  });

  it('a server with no stale reads keeps the default window its suites were written with', async () => {
    const server = await startGitHubServer({ likeGitHub: false });
    try {
      expect(stepClockEnv(server.url)).toEqual({ INTERLOCK_STALE_READ_MS: '2000' });
    } finally {
      await server.close();
    }
  });

  it('on any other clock: its window, and the slot scaled as its write (150 ms: 1 s)', async () => {
    const server = await startGitHubServer({ likeGitHub: { staleMs: 800, contentsWriteMs: 150 } });
    try {
      expect(stepClockEnv(server.url)).toEqual({
        INTERLOCK_STALE_READ_MS: '800',
        INTERLOCK_LINE_UP_SLOT_MS: '1000',
      });
    } finally {
      await server.close();
    }
  });
});
