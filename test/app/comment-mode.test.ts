// The Action's `mode: comment`, run as a runner runs it: `node dist/index.js` on an issue_comment event file,
// with the job's token, against the local GitHub; the runs written by the git store on their own branches (what
// the bundled action writes today) and on the journal branch of before.
import { afterEach, describe, expect, it } from 'vitest';
import { fold } from '../../src/journal/fold.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { GIT_LAYOUTS, gitLayoutOf } from '../support/seed-journal.js';
import { commentEvent, OWNER, observe, PEOPLE, REPO, startWorld, type World } from './world.js';

let world: World;
afterEach(async () => world?.close());

function step(payload: Record<string, unknown>, eventName = 'issue_comment') {
  return runStep({
    apiUrl: world.server.url,
    repository: `${OWNER}/${REPO}`,
    workspace: makeWorkspace({}),
    eventName,
    payload,
    inputs: { mode: 'comment' },
    job: { runId: 8001 },
  });
}

describe.each(GIT_LAYOUTS)('runs kept on the %s', (layout) => {
  describe('mode: comment (dist/index.js as a child process)', () => {
    it('a held node, a comment, the journal updated, the workflow dispatched, the reply posted', async () => {
      world = await startWorld({ layout });
      await world.seedRun({ progressCommentOn: 1 });
      const ev = commentEvent(world, {
        body: 'Checked the logs.\n/approve-rerun deploy',
        login: PEOPLE.writer,
      });
      const r = await step(ev.payload);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.outputs.status).toBe('completed');
      const seen = observe(world, ev.payload.comment.id);
      expect(seen.approvals).toEqual([
        expect.objectContaining({
          node: 'deploy',
          approved_by: PEOPLE.writer,
          source: ev.payload.comment.html_url,
        }),
      ]);
      expect(fold(world.journal(), world.graph).checkpoint.ready_nodes).toEqual(['deploy']);
      expect(seen.dispatches).toEqual([
        expect.objectContaining({
          workflow_id: 'interlock.yml',
          ref: 'main',
          inputs: { 'run-id': 'fix/issue-1' },
        }),
      ]);
      expect(seen.replies).toHaveLength(1);
      expect(seen.replies[0]).toContain('approved a rerun of `deploy`');
      expect(seen.reactions).toEqual(['eyes', '+1']);
      // The job's token acts as github-actions[bot]: that is who replied and who dispatched.
      const reply = [...world.repo.comments.values()].find((c) => c.body.startsWith('<!-- interlock:reply'));
      expect(reply?.user).toBe('github-actions[bot]');
      expect(seen.dispatches[0]?.actor).toBe('github-actions[bot]');
      // The approval is written where the run is kept, and nowhere else.
      expect(gitLayoutOf(world.repo, 'fix/issue-1')).toBe(layout);
    });

    it('a refused command is an answer, not a failure: the step succeeds with status=refused', async () => {
      world = await startWorld({ layout });
      await world.seedRun();
      const ev = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.reader });
      const r = await step(ev.payload);
      expect(r.code).toBe(0);
      expect(r.outputs.status).toBe('refused');
      expect(observe(world).approvals).toHaveLength(0);
    });

    it('the step fails (exit code 1) when the handler fails: GitHub keeps refusing the dispatch', async () => {
      world = await startWorld({ layout });
      await world.seedRun();
      world.server.faults.inject({
        method: 'POST',
        path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
        every: true,
        fault: { kind: 'status', status: 500 },
      });
      const ev = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer });
      const r = await step(ev.payload);
      expect(r.code).toBe(1);
      expect(r.outputs.status).toBe('failed');
      expect(r.stdout).toMatch(/::error::interlock: failed: .*the workflow was not dispatched/);
      // The approval itself is recorded, and the reply says the dispatch did not happen.
      expect(observe(world).approvals).toHaveLength(1);
      expect(observe(world).replies[0]).toContain('The workflow was not dispatched');
    });

    it('on another event, the step fails and says which event mode: comment needs', async () => {
      world = await startWorld({ layout });
      const r = await step({}, 'push');
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /mode: comment handles issue_comment events; this workflow was triggered by push/,
      );
    });
  });
});
