// The gate before a node, guidance, per-node policy and /fail-run's cancel, through the App as Probot documents:
// real webhook payloads received by a Probot with retry and throttle off, against the local GitHub. The run is
// written by the git store's own writer, on a run branch (today's layout) and on the journal branch of before.
import { existsSync } from 'node:fs';
import { sign } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/app/server.js';
import type { Graph } from '../../src/graph/model.js';
import { fold } from '../../src/journal/fold.js';
import { shownText } from '../support/gfm.js';
import { GIT_LAYOUTS, gitLayoutOf } from '../support/seed-journal.js';
import { GATED_WORKFLOW_RUN, type GatedShape, seedGatedRun } from './gated-run.js';
import {
  appServerEnv,
  commentEvent,
  observe,
  PEOPLE,
  quietOctokit,
  receive,
  startWorld,
  WORKFLOW,
  type World,
} from './world.js';

let world: World;
afterEach(async () => world?.close());

const gated = (policy: string) => `interlock: 1
name: fix
nodes:
  - id: plan
    run: echo plan
  - id: deploy
    run: ./deploy.sh
    depends_on: [plan]
    approval: before
    approvals:
${policy}
  - id: notify
    run: ./notify.sh
    depends_on: [deploy]
`;

const RUN_ID = GATED_WORKFLOW_RUN;

/** Puts the gated graph on main and a run started by alice in the world's layout: `deploy` awaits approval. */
const seed = (policy: string, shape: GatedShape = 'awaiting'): Promise<Graph> =>
  seedGatedRun(world, gated(policy), shape);

async function comment(body: string, login: string) {
  const ev = commentEvent(world, { body, login });
  await receive(world, ev);
  return { ev, seen: observe(world, ev.payload.comment.id) };
}

const approvedOf = (w: World) => w.journal().events.filter((e) => e.type === 'NodeApproved');

describe.each(GIT_LAYOUTS)('runs kept on the %s', (layout) => {
  describe('/approve <node>: a gated node runs only after enough people approved, exactly once', () => {
    it('the first of two approvals is recorded with its guidance, and nothing is dispatched', async () => {
      world = await startWorld({ layout });
      await seed('      required: 2');
      const guidance = 'Deploy to staging first.\n$(touch /tmp/interlock-canary) `id`';
      const { ev, seen } = await comment(`/approve deploy\n${guidance}`, PEOPLE.writer);
      expect(approvedOf(world)).toEqual([
        expect.objectContaining({
          node: 'deploy',
          approved_by: PEOPLE.writer,
          source: ev.payload.comment.html_url,
          required: 2,
          guidance,
        }),
      ]);
      expect(seen.dispatches).toHaveLength(0);
      expect(seen.replies[0]).toContain('approvals 1 of 2');
      // The App wrote the approval where the run is kept, and nowhere else.
      expect(gitLayoutOf(world.repo, 'fix/issue-1')).toBe(layout);
    });

    it('the second approval, by another person, dispatches the workflow once; a third is refused', async () => {
      world = await startWorld({ layout });
      const graph = await seed('      required: 2');
      await comment('/approve deploy', PEOPLE.writer);
      await comment('/approve deploy', PEOPLE.writer2);
      expect(world.repo.dispatches).toHaveLength(1);
      expect(fold(world.journal(), graph).checkpoint.ready_nodes).toEqual(['deploy']);
      const { seen } = await comment('/approve deploy', PEOPLE.maintainer);
      expect(shownText(seen.replies.at(-1))).toContain('node "deploy" is pending, not awaiting approval');
      expect(world.repo.dispatches).toHaveLength(1);
    });
  });

  describe('approval policy of a node', () => {
    it('prevent_self_approval refuses the person who started the run, even an admin, and writes nothing', async () => {
      world = await startWorld({ layout });
      await seed('      prevent_self_approval: true');
      const { seen } = await comment('/approve deploy', PEOPLE.admin);
      expect(shownText(seen.replies.at(-1))).toContain(
        `@${PEOPLE.admin} started this run and cannot approve it (prevent_self_approval)`,
      );
      expect(approvedOf(world)).toEqual([]);
    });

    it("a node's approvers override the repository's: a writer who is not listed is refused, a team member approves", async () => {
      world = await startWorld({ layout });
      await seed('      approvers: [acme-org/releasers]');
      const refused = await comment('/approve deploy', PEOPLE.writer);
      expect(shownText(refused.seen.replies.at(-1))).toContain(
        `@${PEOPLE.writer} is not among this node's approvers`,
      );
      expect(approvedOf(world)).toEqual([]);
      // The repository lets the team approve whatever their permission; the node asks for the same team.
      await comment('/approve deploy', PEOPLE.teamActive);
      expect(approvedOf(world)).toEqual([expect.objectContaining({ approved_by: PEOPLE.teamActive })]);
    });

    it("at a level that names only approvers, an admin's team membership is looked up: a member approves, others not", async () => {
      world = await startWorld({ layout });
      await seed('      approvers: [acme-org/releasers]\n      required: 2');
      const refused = await comment('/approve deploy', PEOPLE.admin);
      expect(shownText(refused.seen.replies.at(-1))).toContain(
        `@${PEOPLE.admin} is not among this node's approvers`,
      );
      expect(approvedOf(world)).toEqual([]);
      world.server.state.setTeamMember('acme-org', 'releasers', PEOPLE.admin);
      await comment('/approve deploy', PEOPLE.admin);
      expect(approvedOf(world)).toEqual([expect.objectContaining({ approved_by: PEOPLE.admin })]);
    });
  });

  describe('/fail-run stops the work', () => {
    it('records the run as failed first, then cancels the workflow run in progress, and says so', async () => {
      world = await startWorld({ layout });
      await seed('      required: 1', 'in-flight');
      world.repo.addWorkflowRun({ workflow: WORKFLOW, id: RUN_ID, status: 'in_progress' });
      const { seen } = await comment('/fail-run the plan is wrong', PEOPLE.maintainer);
      expect(seen.events.at(-1)).toMatchObject({ type: 'RunFailed', by: PEOPLE.maintainer });
      const run = world.repo.workflowRuns.get(RUN_ID)!;
      expect(world.repo.latestAttempt(run)).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
      expect(seen.replies.at(-1)).toContain(
        `The journal records the run as failed first; then interlock cancelled workflow run ${RUN_ID}.`,
      );
    });
  });

  describe('the gate through the App server, over signed HTTP deliveries', () => {
    const SECRET = 'gate-webhook-secret';

    async function deliver(url: string, ev: ReturnType<typeof commentEvent>, delivery: string) {
      const body = JSON.stringify({
        ...ev.payload,
        installation: { id: world.server.state.app.installationId },
      });
      return fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issue_comment',
          'x-github-delivery': delivery,
          'x-hub-signature-256': await sign(SECRET, body),
        },
        body,
      });
    }

    it('two signed approvals (one of them redelivered) release the node once, with the guidance as data', async () => {
      world = await startWorld({ layout });
      await seed('      required: 2');
      const app = await startServer(appServerEnv(world, SECRET), { Octokit: quietOctokit() });
      try {
        const guidance = 'Use the blue-green script.\n$(touch /tmp/interlock-gate-canary)';
        const first = commentEvent(world, { body: `/approve deploy\n${guidance}`, login: PEOPLE.writer });
        expect((await deliver(app.url, first, 'g1')).status).toBe(200);
        // GitHub redelivers the same delivery: it is no second approval.
        expect((await deliver(app.url, first, 'g1')).status).toBe(200);
        expect(world.repo.dispatches).toHaveLength(0);
        const second = commentEvent(world, { body: '/approve deploy', login: PEOPLE.writer2 });
        expect((await deliver(app.url, second, 'g2')).status).toBe(200);
        expect(approvedOf(world)).toEqual([
          expect.objectContaining({ approved_by: PEOPLE.writer, guidance }),
          expect.objectContaining({ approved_by: PEOPLE.writer2 }),
        ]);
        expect(world.repo.dispatches).toHaveLength(1);
        expect(existsSync('/tmp/interlock-gate-canary')).toBe(false);
      } finally {
        await app.close();
      }
    });
  });
});
