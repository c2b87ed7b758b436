// The approval handler driven as Probot documents: a Probot with retry and throttle off, `receive` of real
// webhook payloads (from @octokit/webhooks-examples, adjusted), against the local GitHub; the runs written by the
// git store on their own branches (what the bundled action writes today) and on the journal branch of before.
import { afterEach, describe, expect, it } from 'vitest';
import { actionIdentifier, checkRunName } from '../../src/approvals/replies/check-run.js';
import { fold } from '../../src/journal/fold.js';
import { NEEDS_HUMAN_LABEL } from '../../src/render/words.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { journalText } from '../support/journal-text.js';
import { GIT_LAYOUTS } from '../support/seed-journal.js';
import {
  commentEvent,
  example,
  GRAPH_PATH,
  GRAPH_TEXT,
  OWNER,
  observe,
  PEOPLE,
  REPO,
  receive,
  startWorld,
  type World,
} from './world.js';

let world: World;
afterEach(async () => world?.close());
/** The world on the order clock (test/support/clock.ts): these tests are about who may do what, not timing. */
const start = (opts: Parameters<typeof startWorld>[0] = {}) =>
  startWorld({ likeGitHub: ORDER_CLOCK, ...opts });

async function comment(body: string, spec: Parameters<typeof commentEvent>[1] | object = {}) {
  const ev = commentEvent(world, { body, ...spec });
  await receive(world, ev);
  return { ev, seen: observe(world, ev.payload.comment.id) };
}

describe.each(GIT_LAYOUTS)('runs kept on the %s', (layout) => {
  describe('/approve-rerun', () => {
    it('records the approval with who, when, the comment URL and graph hash, dispatches the workflow, replies', async () => {
      world = await start({ layout });
      await world.seedRun({ progressCommentOn: 1 });
      const { ev, seen } = await comment('/approve-rerun deploy', { login: PEOPLE.writer });
      expect(seen.approvals).toEqual([
        expect.objectContaining({
          type: 'RerunApproved',
          node: 'deploy',
          attempt: 1,
          approved_by: PEOPLE.writer,
          source: ev.payload.comment.html_url,
          graph_hash: world.graph.hash,
          required: 1,
          at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        }),
      ]);
      expect(seen.dispatches).toEqual([
        expect.objectContaining({
          workflow_id: 'interlock.yml',
          ref: 'main',
          inputs: { 'run-id': 'fix/issue-1' },
        }),
      ]);
      expect(seen.reactions).toEqual(['eyes', '+1']);
      expect(seen.replies).toHaveLength(1);
      expect(seen.replies[0]).toContain(`@${PEOPLE.writer} approved a rerun of \`deploy\``);
      expect(seen.replies[0]).toContain('approvals 1 of 1');
      expect(seen.replies[0]).toMatch(
        /Dispatched \[`interlock.yml`\]\(https:\/\/github.com\/acme\/widgets\/actions\/runs\/\d+\)/,
      );
      const cp = fold(world.journal(), world.graph).checkpoint;
      expect(cp.held_nodes).toEqual([]);
      expect(cp.ready_nodes).toEqual(['deploy']);
    });

    it('updates the progress comment in place and removes the needs-human label', async () => {
      world = await start({ layout });
      await world.seedRun({ progressCommentOn: 1 });
      const progressId = world.journal().progress_comment_id!;
      const before = world.repo.comments.size;
      await comment('/approve-rerun deploy');
      const progress = world.repo.comments.get(progressId)!.body;
      expect(progress).toContain('<!-- interlock:progress fix/issue-1 -->');
      expect(progress).toMatch(/\| deploy \| ready \(rerun\) \|/);
      // One new comment (the reply) besides the one commented: the progress comment was edited, not re-posted.
      expect(world.repo.comments.size).toBe(before + 2);
      expect(world.repo.issue(1)!.labels).not.toContain(NEEDS_HUMAN_LABEL);
    });

    it('with two approvers required, the first approval is recorded and nothing is dispatched: 1 of 2', async () => {
      world = await start({ layout, approvals: '  required: 2\n' });
      await world.seedRun();
      const first = await comment('/approve-rerun deploy', { login: PEOPLE.writer });
      expect(first.seen.approvals).toHaveLength(1);
      expect(first.seen.dispatches).toHaveLength(0);
      expect(first.seen.replies[0]).toContain('approvals 1 of 2');
      expect(world.repo.issue(1)!.labels).toContain(NEEDS_HUMAN_LABEL);
      const second = await comment('/approve-rerun deploy', { login: PEOPLE.writer2 });
      expect(second.seen.approvals.map((e) => e.approved_by)).toEqual([PEOPLE.writer, PEOPLE.writer2]);
      expect(second.seen.dispatches).toHaveLength(1);
      expect(second.seen.replies[1]).toContain(`approvals 2 of 2 (@${PEOPLE.writer}, @${PEOPLE.writer2})`);
      expect(fold(world.journal(), world.graph).checkpoint.ready_nodes).toEqual(['deploy']);
    });

    it('two approvals arriving at once both land (compare-and-swap re-decides) and one dispatch follows', async () => {
      world = await start({ layout, approvals: '  required: 2\n' });
      await world.seedRun();
      const a = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer });
      const b = commentEvent(world, { body: '/approve-rerun deploy', login: PEOPLE.writer2 });
      await Promise.all([receive(world, a), receive(world, b)]);
      const seen = observe(world);
      expect(seen.approvals.map((e) => e.approved_by).sort()).toEqual([PEOPLE.writer, PEOPLE.writer2].sort());
      expect(seen.dispatches).toHaveLength(1);
      expect(world.server.requests.count({ method: 'PUT', status: 409 })).toBeGreaterThanOrEqual(1);
    });

    it('an escalated node gets one more attempt', async () => {
      world = await start({ layout });
      await world.seedRun({ shape: 'escalated' });
      const { seen } = await comment('/approve-rerun deploy');
      expect(seen.approvals).toEqual([expect.objectContaining({ node: 'deploy', attempt: 2 })]);
      expect(seen.dispatches).toHaveLength(1);
      expect(fold(world.journal(), world.graph).checkpoint.ready_nodes).toEqual(['deploy']);
    });

    it('on a pull request, the run is found by pr-<n>', async () => {
      world = await start({ layout });
      world.repo.addPull({ number: 3, head: 'fix-branch' });
      await world.seedRun({ runId: 'fix/pr-3', subject: 'pr-3' });
      const { seen } = await comment('/approve-rerun deploy', { issue: 3, pr: true, labels: [] });
      expect(world.journal('fix/pr-3').events.at(-1)).toMatchObject({
        type: 'RerunApproved',
        node: 'deploy',
      });
      expect(seen.dispatches[0]?.inputs).toEqual({ 'run-id': 'fix/pr-3' });
    });
  });

  describe('/settle and /fail-run', () => {
    it('/settle records the node as done by the person, with the note and the comment URL, and moves on', async () => {
      world = await start({ layout });
      await world.seedRun();
      const { ev, seen } = await comment('/settle deploy the release v1.2 is on the registry', {
        login: PEOPLE.admin,
      });
      expect(seen.events.at(-1)).toMatchObject({
        type: 'NodeRecorded',
        node: 'deploy',
        attempt: 1,
        recorded_by: PEOPLE.admin,
        note: 'the release v1.2 is on the registry',
        evidence: [
          {
            check: 'person',
            passed: true,
            observed: `${PEOPLE.admin}: the release v1.2 is on the registry (${ev.payload.comment.html_url})`,
          },
        ],
      });
      expect(seen.dispatches).toHaveLength(1);
      expect(fold(world.journal(), world.graph).checkpoint.ready_nodes).toEqual(['notify']);
      expect(seen.replies[0]).toContain('settled `deploy` (attempt 1)');
    });

    it('/fail-run ends the run as failed with the reason and the comment URL', async () => {
      world = await start({ layout });
      await world.seedRun();
      const { ev, seen } = await comment('/fail-run the customer withdrew the request', {
        login: PEOPLE.maintainer,
      });
      expect(seen.events.at(-1)).toMatchObject({
        type: 'RunFailed',
        by: PEOPLE.maintainer,
        reason: `the customer withdrew the request (${ev.payload.comment.html_url})`,
      });
      expect(seen.dispatches).toHaveLength(0);
      expect(fold(world.journal(), world.graph).checkpoint.status).toBe('failed');
      expect(world.repo.issue(1)!.labels).not.toContain(NEEDS_HUMAN_LABEL);
    });
  });

  describe('when the graph or the configuration changed', () => {
    it('/fail-run still ends a run whose graph changed, and the journal records who moved it to the new graph', async () => {
      world = await start({ layout });
      await world.seedRun();
      world.repo.commitFiles('main', { [GRAPH_PATH]: GRAPH_TEXT.replace('echo plan', 'echo plan v2') });
      await comment('/fail-run the graph was rewritten', { login: PEOPLE.admin });
      expect(world.journal().events.slice(-2)).toEqual([
        expect.objectContaining({ type: 'GraphChangeAllowed', from: world.graph.hash, by: PEOPLE.admin }),
        expect.objectContaining({ type: 'RunFailed', by: PEOPLE.admin }),
      ]);
    });

    it('a command refused under a changed graph writes nothing, /fail-run on an ended run included (issue 45)', async () => {
      world = await start({ layout });
      await world.seedRun({ shape: 'escalated' });
      world.repo.commitFiles('main', { [GRAPH_PATH]: GRAPH_TEXT.replace('echo plan', 'echo plan v2') });
      const before = journalText(world.repo, 'fix/issue-1');
      for (const body of [
        '/approve-rerun deploy',
        '/settle deploy it is out',
        '/approve deploy',
        '/rerun-from plan',
      ]) {
        const { seen } = await comment(body, { login: PEOPLE.admin });
        expect(seen.reactions, body).toEqual(['eyes', 'confused']);
        expect(journalText(world.repo, 'fix/issue-1'), body).toBe(before);
      }
      // An ended run: /fail-run is refused, and the leave to go on under the new graph is not written either (the
      // release before wrote GraphChangeAllowed here).
      await world.seedRun({ runId: 'fix/issue-2', subject: 'issue-2', shape: 'failed' });
      const ended = journalText(world.repo, 'fix/issue-2');
      const { seen } = await comment('/fail-run again', { login: PEOPLE.admin, issue: 2 });
      expect(seen.reactions).toEqual(['eyes', 'confused']);
      expect(seen.replies.at(-1)).toContain('the run has already ended');
      expect(journalText(world.repo, 'fix/issue-2')).toBe(ended);
    });

    it('an invalid .github/interlock.yml fails the delivery, and the reply names the file, line and problem', async () => {
      world = await start({ layout });
      await world.seedRun();
      world.repo.commitFiles('main', { '.github/interlock.yml': 'approvals:\n  required: 0\n' });
      const ev = commentEvent(world, { body: '/approve-rerun deploy' });
      await expect(receive(world, ev)).rejects.toThrow(/the configuration file is not valid/);
      const seen = observe(world, ev.payload.comment.id);
      expect(seen.approvals).toHaveLength(0);
      expect(seen.replies[0]).toMatch(/\.github\/interlock\.yml:2:\d+: .*required/);
      expect(seen.reactions).toEqual(['eyes', 'confused']);
    });
  });

  describe('/interlock status', () => {
    it('replies with the node table and the Mermaid diagram, and changes nothing', async () => {
      world = await start({ layout });
      await world.seedRun();
      const before = world.journal().events.length;
      const { seen } = await comment('/interlock status', { login: PEOPLE.reader });
      expect(seen.replies[0]).toContain('| node | state | attempts | time | last evidence |');
      expect(seen.replies[0]).toMatch(/\| deploy \| held \| 1 \|/);
      expect(seen.replies[0]).toContain('```mermaid\nflowchart TD');
      expect(world.journal().events).toHaveLength(before);
      expect(seen.reactions).toEqual(['eyes', '+1']);
    });

    it('shows every run of the subject', async () => {
      world = await start({ layout });
      await world.seedRun();
      await world.seedRun({ runId: 'hotfix/issue-1' });
      const { seen } = await comment('/interlock status');
      expect(seen.replies[0]).toContain('### `fix/issue-1`');
      expect(seen.replies[0]).toContain('### `hotfix/issue-1`');
    });
  });

  describe('several runs on one subject', () => {
    it('without a run id, the reply lists the runs and the exact command for each; nothing is written', async () => {
      world = await start({ layout });
      await world.seedRun();
      await world.seedRun({ runId: 'hotfix/issue-1' });
      const { seen } = await comment('/approve-rerun deploy');
      expect(seen.approvals).toHaveLength(0);
      expect(seen.replies[0]).toContain('has 2 interlock runs');
      expect(seen.replies[0]).toContain(
        '/approve-rerun deploy fix/issue-1\n/approve-rerun deploy hotfix/issue-1',
      );
      expect(seen.reactions).toEqual(['eyes', 'confused']);
    });

    it('with a run id, only that run is approved', async () => {
      world = await start({ layout });
      await world.seedRun();
      await world.seedRun({ runId: 'hotfix/issue-1' });
      await comment('/approve-rerun deploy hotfix/issue-1');
      expect(observe(world, undefined, 'hotfix/issue-1').approvals).toHaveLength(1);
      expect(observe(world, undefined, 'fix/issue-1').approvals).toHaveLength(0);
    });

    it('/settle takes the run id as --run=', async () => {
      world = await start({ layout });
      await world.seedRun();
      await world.seedRun({ runId: 'hotfix/issue-1' });
      await comment('/settle --run=hotfix/issue-1 deploy checked by hand');
      expect(world.journal('hotfix/issue-1').events.at(-1)).toMatchObject({
        type: 'NodeRecorded',
        node: 'deploy',
      });
      expect(world.journal('fix/issue-1').events.at(-1)).toMatchObject({ type: 'NodeInterrupted' });
    });
  });

  describe('the "Approve rerun" button (check_run.requested_action)', () => {
    async function pr() {
      world = await start({ layout });
      world.repo.addPull({ number: 3, head: 'fix-branch' });
      await world.seedRun({ runId: 'fix/pr-3', subject: 'pr-3' });
    }

    function press(login: string, delivery = 'd-1') {
      const p = example('check_run', 'requested_action') as {
        check_run: { id: number; external_id: string; html_url: string; name: string };
        requested_action: { identifier: string };
        sender: { login: string; type: string };
        repository: Record<string, unknown>;
        installation?: unknown;
      };
      p.check_run = {
        ...p.check_run,
        external_id: 'fix/pr-3',
        name: checkRunName('fix/pr-3'),
        html_url: `https://github.com/${OWNER}/${REPO}/runs/${p.check_run.id}`,
      };
      p.requested_action = { identifier: actionIdentifier(world.graph, 'deploy') };
      p.sender = { ...p.sender, login, type: 'User' };
      p.repository = {
        ...p.repository,
        name: REPO,
        full_name: `${OWNER}/${REPO}`,
        html_url: `https://github.com/${OWNER}/${REPO}`,
        default_branch: 'main',
        owner: { ...(p.repository.owner as object), login: OWNER },
      };
      delete p.installation;
      return world.probot.receive({ id: delivery, name: 'check_run', payload: p as never });
    }

    it('a person with permission approves through the button; it is recorded with the delivery as source', async () => {
      await pr();
      await press(PEOPLE.writer);
      const j = world.journal('fix/pr-3');
      expect(j.events.at(-1)).toMatchObject({
        type: 'RerunApproved',
        node: 'deploy',
        approved_by: PEOPLE.writer,
        source: expect.stringMatching(/^https:\/\/github.com\/acme\/widgets\/runs\/\d+#delivery-d-1$/),
      });
      expect(world.repo.dispatches).toHaveLength(1);
      // The run shows as a check run on the pull request's head, now without a button.
      const runs = [...world.repo.checkRuns.values()].filter((c) => c.name === checkRunName('fix/pr-3'));
      expect(runs).toHaveLength(1);
      expect(runs[0]!.actions).toEqual([]);
    });

    it('the same authorization as a comment: a reader pressing it is refused and nothing is written', async () => {
      await pr();
      const before = world.journal('fix/pr-3').events.length;
      await press(PEOPLE.reader);
      expect(world.journal('fix/pr-3').events).toHaveLength(before);
      expect(world.repo.dispatches).toHaveLength(0);
      const replies = observe(world).replies;
      expect(replies[0]).toContain('has read permission; this command needs write');
    });

    it('the same delivery twice approves once; the redelivery is ignored, with no second reply', async () => {
      await pr();
      await press(PEOPLE.writer, 'd-7');
      const replies = observe(world).replies.length;
      await press(PEOPLE.writer, 'd-7');
      expect(world.journal('fix/pr-3').events.filter((e) => e.type === 'RerunApproved')).toHaveLength(1);
      expect(world.repo.dispatches).toHaveLength(1);
      // Without the redelivery check the node, released by the first press, refuses the second with a reply.
      expect(observe(world).replies).toHaveLength(replies);
    });
  });

  describe('check runs for pull requests (push to the journal branch)', () => {
    it('a held node of a pull request run shows as a check run with an "Approve rerun" button', async () => {
      world = await start({ layout });
      world.repo.addPull({ number: 3, head: 'fix-branch' });
      await world.seedRun({ runId: 'fix/pr-3', subject: 'pr-3' });
      const p = example('push') as Record<string, unknown>;
      await world.probot.receive({
        id: 'push-1',
        name: 'push',
        payload: {
          ...p,
          ref: 'refs/heads/interlock-journal',
          commits: [{ added: [], modified: ['runs/fix/pr-3.json'], removed: [] }],
          repository: {
            ...(p.repository as object),
            name: REPO,
            full_name: `${OWNER}/${REPO}`,
            html_url: `https://github.com/${OWNER}/${REPO}`,
            owner: { ...(p.repository as { owner: object }).owner, login: OWNER, name: OWNER },
          },
        } as never,
      });
      const runs = [...world.repo.checkRuns.values()];
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        name: 'interlock fix/pr-3',
        external_id: 'fix/pr-3',
        conclusion: 'action_required',
        actions: [{ label: 'Approve rerun', identifier: actionIdentifier(world.graph, 'deploy') }],
      });
      expect(runs[0]!.head_sha).toBe(world.repo.branchSha('fix-branch'));
    });
  });

  describe('what the graph path in the journal may name', () => {
    it('is read from the default branch through the contents API', async () => {
      world = await start({ layout });
      await world.seedRun();
      await comment('/approve-rerun deploy');
      expect(
        world.server.requests.count({ path: new RegExp(`/contents/${GRAPH_PATH.replace('.', '\\.')}$`) }),
      ).toBe(1);
    });
  });
});
