// A copy of an approval (GitHub's redelivery, a replica's second delivery) arriving while GitHub still answers reads
// by branch name from before the approval was written (issue 50): the copy reads the journal without the approval,
// decides to write it again, and its write is refused, read after read, although the journal it reads "did not
// change". The App's commit waits out its own stale window (`INTERLOCK_STALE_READ_MS`) before it gives up on such
// stalls, as the Action's steps do, so the copy finds the approval in a read past the window: a duplicate, written
// once, dispatched once. In process, through Probot's `receive`, against the local GitHub answering every read by
// branch name `staleMs` in the past.
import { afterEach, describe, expect, it } from 'vitest';
import { journalText } from '../support/journal-text.js';
import { commentEvent, observe, PEOPLE, receive, startWorld, type World } from './world.js';

let world: World | undefined;
const saved = process.env.INTERLOCK_STALE_READ_MS;
afterEach(async () => {
  await world?.close();
  world = undefined;
  if (saved === undefined) delete process.env.INTERLOCK_STALE_READ_MS;
  else process.env.INTERLOCK_STALE_READ_MS = saved;
});

/** GitHub's reads `staleMs` stale, the App's window `windowMs`: an approval, then at once a copy of its delivery. */
async function approvalThenCopy(staleMs: number, windowMs = staleMs) {
  process.env.INTERLOCK_STALE_READ_MS = String(windowMs);
  world = await startWorld({ likeGitHub: { staleProbability: 1, staleMs } });
  await world.seedRun({ progressCommentOn: 1 });
  const ev = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer });
  await receive(world, ev);
  const first = observe(world, ev.payload.comment.id);
  expect([first.approvals.length, first.dispatches.length]).toEqual([1, 1]);
  const before = journalText(world.repo, 'fix/issue-1');
  const copy = await receive(world, ev).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  return { ev, copy, unchanged: journalText(world.repo, 'fix/issue-1') === before };
}

describe('a copy of an approval while every read by branch name answers from before it', () => {
  it('within the App stale window (GitHub 4 s stale, the window 4 s): the copy is a duplicate, nothing twice', async () => {
    const { ev, copy, unchanged } = await approvalThenCopy(4000);
    expect(copy?.message).toBeUndefined();
    expect(unchanged).toBe(true);
    const seen = observe(world!, ev.payload.comment.id);
    expect(seen.approvals).toHaveLength(1);
    expect(seen.dispatches).toHaveLength(1);
    expect(seen.events.filter((e) => e.type === 'WorkflowDispatchRetried')).toEqual([]);
  }, 60_000);

  it('past the window (GitHub 4 s stale, the window 1 s): the copy gives up, says so, and writes nothing', async () => {
    const { ev, copy, unchanged } = await approvalThenCopy(4000, 1000);
    expect(copy?.message).toMatch(/the write was refused \d+ times although the journal did not change/);
    expect(unchanged).toBe(true);
    const seen = observe(world!, ev.payload.comment.id);
    expect([seen.approvals.length, seen.dispatches.length]).toEqual([1, 1]);
  }, 60_000);
});
