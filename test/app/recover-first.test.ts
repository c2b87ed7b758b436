// The comment handler recovers before it settles: a runner lost without its post step leaves `deploy` in flight;
// `/approve-rerun deploy` asks GitHub whether that attempt's workflow run has ended, records the interruption,
// then the approval. While the run is still going, the reply says so and what to do, in the command's words.
// Through the bundle's `mode: comment` and through the App (Probot receiving the delivery).
import { afterEach, describe, expect, it } from 'vitest';
import { shownText } from '../support/gfm.js';
import { commentEvent, modeCommentStep, observe, PEOPLE, receive, startWorld, type World } from './world.js';

let world: World;
afterEach(async () => world?.close());

/** A run whose `deploy` was dispatched by workflow run 7001 (runner-7001), which GitHub shows as `status`. */
async function lostRunner(status: 'completed' | 'in_progress'): Promise<void> {
  world = await startWorld();
  await world.seedRun({ shape: 'in-flight' });
  const ended = status === 'completed';
  world.repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: 7001,
    event: 'issues',
    status,
    conclusion: ended ? 'cancelled' : null,
    jobs: [
      {
        name: 'interlock',
        runner_name: 'runner-7001',
        status,
        conclusion: ended ? 'cancelled' : null,
        started_at: new Date(Date.now() - 60_000).toISOString(),
        completed_at: ended ? new Date().toISOString() : null,
      },
    ],
  });
}

const commentStep = (payload: Record<string, unknown>) => modeCommentStep(world, payload, 8201);

describe('an approval for a node whose runner was lost', () => {
  it('mode: comment records the interruption first, then the approval', async () => {
    await lostRunner('completed');
    const ev = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer });
    const r = await commentStep(ev.payload);
    expect(r.outputs.status, r.stdout).toBe('completed');
    const types = observe(world).events.map((e) => `${e.type}${'node' in e ? ` ${e.node}` : ''}`);
    expect(types.slice(-2)).toEqual(['NodeInterrupted deploy', 'RerunApproved deploy']);
  });

  it('the App does the same', async () => {
    await lostRunner('completed');
    await receive(world, commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer }));
    const types = observe(world).events.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['NodeInterrupted', 'RerunApproved']);
  });

  it('while its workflow run is still going, the reply says so and to post the same command again later', async () => {
    await lostRunner('in_progress');
    const ev = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer });
    const r = await commentStep(ev.payload);
    expect(r.outputs.status, r.stdout).toBe('refused');
    const { replies, events } = observe(world);
    expect(events.at(-1)).toMatchObject({ type: 'NodeDispatched', node: 'deploy' });
    expect(replies).toHaveLength(1);
    // The reason passes the door (src/render/door.ts): read as GitHub shows it.
    expect(shownText(replies[0])).toContain(
      'node "deploy" is still in flight (workflow run 7001 attempt 1 job "interlock" is still in_progress)',
    );
    expect(replies[0]).toContain('post `/approve-rerun deploy` again');
  });
});
