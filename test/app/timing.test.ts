// How long the handler takes per comment against the local GitHub, and how many API requests it makes.
// Figures go to the console with INTERLOCK_PRINT_TIMING=1; the test itself checks every approval landed.
import { performance } from 'node:perf_hooks';
import { afterAll, expect, it } from 'vitest';
import { commentEvent, observe, PEOPLE, receive, startWorld, type World } from './world.js';

let world: World;
afterAll(async () => world?.close());

const ROUNDS = 25;

it(`the handler approves ${ROUNDS} held nodes one after another; median time and requests per comment`, async () => {
  // 28 approvals back to back in seconds on one installation token pass GitHub's 80 content-creating requests a
  // minute, and Probot's client here does not wait (quietOctokit): this measures the handler's time per comment,
  // so the secondary limit is off; stale reads and raced writes stay on.
  world = await startWorld({ likeGitHub: { secondaryLimit: false } });
  const times: number[] = [];
  const requests: number[] = [];
  for (let i = 0; i < ROUNDS + 3; i++) {
    await world.seedRun({ progressCommentOn: 1 });
    const ev = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer });
    const mark = world.server.requests.mark();
    const t0 = performance.now();
    await receive(world, ev);
    const ms = performance.now() - t0;
    expect(observe(world).approvals).toHaveLength(1);
    // The first rounds warm up modules and connections.
    if (i >= 3) {
      times.push(ms);
      requests.push(world.server.requests.stats(mark).total);
    }
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  if (process.env.INTERLOCK_PRINT_TIMING)
    console.log(
      `handler: median ${median.toFixed(1)} ms per comment (min ${times[0]!.toFixed(1)}, max ${times.at(-1)!.toFixed(1)}), ${requests[0]} API requests per approval`,
      world.server.requests.countByKind(world.server.requests.mark() - requests.at(-1)!),
    );
  expect(world.repo.dispatches).toHaveLength(ROUNDS + 3);
  expect(median).toBeLessThan(2_000);
  // Each round's seed is a write of the git store through the local GitHub (a slow contents write, as GitHub's).
}, 120_000);
