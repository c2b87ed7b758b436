// An approval under GitHub's stale reads (issue 35), through the bundled action's `mode: comment` and through the
// App: the local GitHub answers EVERY read by branch name from the branch as it stood 2 s before
// (`staleProbability: 1`), and each step follows the one before at once. The person's `/approve`, made right
// after the step wrote the hold, is not answered "nothing waits"; the workflow run it dispatches, started right
// after the approval was written, sees it and runs the node once.
import { readFileSync } from 'node:fs';
import type { components } from '@octokit/openapi-types';
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interlockApp } from '../../src/app/probot.js';
import { NEEDS_HUMAN_LABEL } from '../../src/render/words.js';
import { quietOctokit } from '../app/world.js';
import { makeWorkspace, runStep, worldLog } from '../support/action-process.js';
import { issuesLabeled, webhookExample } from '../support/fixtures.js';
import { type GitHubServer, LIKE_GITHUB, startGitHubServer } from '../support/github-server.js';
import { eventsOf, FULL, OWNER, REPO, readJournal, routeLabel, workflowRun } from './world.js';

type CommentCreated = components['schemas']['webhook-issue-comment-created'];
type Face = 'mode: comment' | 'the App';

const GRAPH = `interlock: 1
name: ship
nodes:
  - id: publish
    approval: before
    run: echo "publish $INTERLOCK_ATTEMPT" >> "$EFFECTS"
`;
const FILES = {
  '.github/interlock.yml': `${routeLabel('ship', '.github/interlock/ship.yml')}approvals:\n  permission: write\n`,
  '.github/interlock/ship.yml': GRAPH,
};
const RUN_ID = 'ship/issue-7';

/** A comment bob makes on issue 7 now, and the `issue_comment.created` payload GitHub sends for it. */
function approveNow(server: GitHubServer): CommentCreated {
  const repo = server.state.repo(FULL);
  const made = repo.addComment(7, '/approve publish', 'bob');
  const p = webhookExample('issue_comment', 'created') as unknown as CommentCreated;
  const web = `https://github.com/${FULL}`;
  p.comment = {
    ...p.comment,
    id: made.id,
    body: '/approve publish',
    html_url: `${web}/issues/7#issuecomment-${made.id}`,
    user: { ...p.comment.user!, login: 'bob', type: 'User' },
    created_at: new Date().toISOString(),
  };
  const { pull_request: _, ...issue } = p.issue;
  p.issue = { ...issue, number: 7, html_url: `${web}/issues/7`, labels: [] };
  p.sender = { ...p.sender, login: 'bob', type: 'User' };
  p.repository = {
    ...p.repository,
    name: REPO,
    full_name: FULL,
    html_url: web,
    default_branch: 'main',
    owner: { ...p.repository.owner, login: OWNER },
  };
  delete p.installation;
  return p;
}

describe.each<Face>(['mode: comment', 'the App'])(
  'every read by branch name 2 s stale: /approve through %s',
  (face) => {
    let server: GitHubServer;
    const ws = makeWorkspace(FILES);
    const effects = worldLog();
    beforeAll(async () => {
      server = await startGitHubServer({
        likeGitHub: { staleProbability: 1, staleMs: LIKE_GITHUB.staleMs },
        repos: [
          {
            owner: OWNER,
            name: REPO,
            files: FILES,
            labels: [NEEDS_HUMAN_LABEL],
            collaborators: { alice: 'write', bob: 'maintain' },
            workflows: [{ file: 'interlock.yml', inputs: ['run-id'] }],
          },
        ],
      });
      server.state.repo(FULL).addIssue({ number: 7, title: 'Ship 1.2', labels: ['ship'] });
    });
    afterAll(async () => server?.close());

    const deliver = async (payload: CommentCreated): Promise<void> => {
      if (face === 'mode: comment') {
        const r = await runStep({
          apiUrl: server.url,
          repository: FULL,
          workspace: makeWorkspace({}),
          eventName: 'issue_comment',
          payload: payload as unknown as Record<string, unknown>,
          inputs: { mode: 'comment' },
          job: { runId: workflowRun(server.state.repo(FULL), ['runner-comment']) },
        });
        expect(r.outputs.status, r.stdout).toBe('completed');
        return;
      }
      const probot = new Probot({
        githubToken: 'test',
        baseUrl: server.url,
        logLevel: 'fatal',
        Octokit: quietOctokit(),
      });
      // The local GitHub's reads are at most 2 s stale; the App is told so, as INTERLOCK_STALE_READ_MS tells it.
      await probot.load(interlockApp({ staleWindowMs: LIKE_GITHUB.staleMs }));
      await probot.receive({ id: `delivery-${payload.comment.id}`, name: 'issue_comment', payload } as never);
    };

    it('the hold, the approval right after it, and the dispatched run right after that: publish runs once', async () => {
      const payload = issuesLabeled(OWNER, REPO, 7, 'ship', 'Ship 1.2') as { sender: { login: string } };
      payload.sender = { ...payload.sender, login: 'alice' };
      const held = await runStep({
        apiUrl: server.url,
        repository: FULL,
        workspace: ws,
        eventName: 'issues',
        payload,
        inputs: { node: 'all' },
        job: { runId: workflowRun(server.state.repo(FULL), ['runner-labeled']) },
        env: { EFFECTS: effects },
      });
      expect(held.outputs).toMatchObject({ node: 'publish', status: 'awaiting-approval' });

      await deliver(approveNow(server));
      const writtenAt = Date.now();
      expect(eventsOf(readJournal(server, RUN_ID), 'NodeApproved', 'publish')).toHaveLength(1);
      const reply = server.state
        .repo(FULL)
        .commentsOn(7)
        .find((c) => c.body.startsWith('<!-- interlock:reply'));
      expect(reply?.body).not.toMatch(/refused|nothing|not waiting/i);
      const dispatch = server.state.repo(FULL).dispatches[0]!;
      expect(dispatch.inputs).toEqual({ 'run-id': RUN_ID });

      // Started at once: within the 2 s every read of it is answered from before the approval.
      const startedAfter = Date.now() - writtenAt;
      expect(startedAfter).toBeLessThan(LIKE_GITHUB.staleMs / 2);
      const resumed = await runStep({
        apiUrl: server.url,
        repository: FULL,
        workspace: ws,
        eventName: 'workflow_dispatch',
        payload: { ...webhookExample('workflow_dispatch'), inputs: dispatch.inputs },
        inputs: { node: 'all', 'run-id': RUN_ID },
        job: { runId: dispatch.run_id! },
        env: { EFFECTS: effects },
      });
      expect(resumed.outputs, resumed.stdout).toMatchObject({ node: 'publish', status: 'completed' });
      expect(readFileSync(effects, 'utf8')).toBe('publish 1\n');
      expect(eventsOf(readJournal(server, RUN_ID), 'NodeDispatched', 'publish')).toHaveLength(1);
      // The stand-in did answer from the past, and the steps followed each other within its window.
      expect(server.model.stats.staleAnswers).toBeGreaterThan(0);
      console.info(
        `${face}: ${server.model.stats.staleAnswers} stale answers; the resumed run started ${startedAfter} ms after the approval was written`,
      );
    });
  },
);
