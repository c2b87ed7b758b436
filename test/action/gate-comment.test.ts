// The gate before a node settled by comments, through the bundled action's `mode: comment` (a runner runs
// `node dist/index.js` on the `issue_comment` event) and, for comparison, through the App as Probot receives
// the same payloads: a step leaves `publish` awaiting approval, `/approve publish` comments arrive as GitHub's
// `issue_comment.created` payloads, and the workflow run they dispatch runs the node exactly once, with the
// guidance byte for byte. The refusals a maintainer meets on the way are answered on the issue, write nothing,
// and read the same from both faces.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { components } from '@octokit/openapi-types';
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interlockApp } from '../../src/app/probot.js';
import { quietOctokit } from '../app/world.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { ORDER_CLOCK, staleWindowOf } from '../support/clock.js';
import { issuesLabeled, webhookExample } from '../support/fixtures.js';
import { shownText } from '../support/gfm.js';
import type { GitHubServer } from '../support/github-server.js';
import { SHIP_ROUTES, startShipRepository } from './gate-world.js';
import { eventsOf, FULL, OWNER, REPO, readJournal, workflowRun } from './world.js';

type CommentCreated = components['schemas']['webhook-issue-comment-created'];

const GRAPH = `interlock: 1
name: ship
nodes:
  - id: build
    run: echo built > built.txt
  - id: publish
    depends_on: [build]
    approval: before
    approvals:
      required: 2
      prevent_self_approval: true
    agent: cat > prompt.txt; cp "$INTERLOCK_CONTEXT" context.json
    prompt: Publish the release.
    validates:
      - file: prompt.txt
`;

const CONFIG = `${SHIP_ROUTES}approvals:
  permission: write
`;

/** alice labels the issue (so she started the run); bob and carol maintain; rita only reads. */
const PEOPLE = { starter: 'alice', first: 'bob', second: 'carol', reader: 'rita' } as const;
const RUN_ID = 'ship/issue-7';
const GUIDANCE = 'Publish to the staging registry first.\n  $(touch CANARY) `touch CANARY2` ; touch CANARY3';

type Face = 'mode: comment' | 'the App';

/** Every reply each face posted, in order: the two faces must answer the same comments in the same words. */
const replies: Record<Face, string[]> = { 'mode: comment': [], 'the App': [] };

/** One repository with the graph, people and workflow the story needs, on a GitHub of its own. */
function startRepository(): Promise<{ server: GitHubServer; ws: string }> {
  // The order clock (test/support/clock.ts): the story is about who may settle what, not GitHub's timing.
  return startShipRepository(GRAPH, {
    likeGitHub: ORDER_CLOCK,
    config: CONFIG,
    repo: {
      collaborators: {
        [PEOPLE.starter]: 'write',
        [PEOPLE.first]: 'maintain',
        [PEOPLE.second]: 'write',
        [PEOPLE.reader]: 'read',
      },
      workflows: [{ file: 'interlock.yml', inputs: ['run-id'] }],
    },
  });
}

/** The step of the workflow alice's label started (`issues.labeled`, sent by her). */
function labeledStep(server: GitHubServer, ws: string) {
  const payload = issuesLabeled(OWNER, REPO, 7, 'ship', 'Ship 1.2') as { sender: { login: string } };
  payload.sender = { ...payload.sender, login: PEOPLE.starter };
  const runner = 'runner-labeled';
  return runStep({
    apiUrl: server.url,
    repository: FULL,
    workspace: ws,
    eventName: 'issues',
    payload,
    inputs: { node: 'all' },
    job: { runId: workflowRun(server.state.repo(FULL), [runner]), runner },
  });
}

/** A comment made on issue 7, and the `issue_comment.created` payload GitHub sends for it. */
function commentCreated(server: GitHubServer, body: string, login: string): CommentCreated {
  const repo = server.state.repo(FULL);
  const made = repo.addComment(7, body, login);
  const p = webhookExample('issue_comment', 'created') as unknown as CommentCreated;
  const web = `https://github.com/${FULL}`;
  p.comment = {
    ...p.comment,
    id: made.id,
    body,
    html_url: `${web}/issues/7#issuecomment-${made.id}`,
    user: { ...p.comment.user!, login, type: 'User' },
    created_at: new Date().toISOString(),
  };
  const { pull_request: _, ...issue } = p.issue;
  p.issue = {
    ...issue,
    number: 7,
    html_url: `${web}/issues/7`,
    labels: repo.issue(7)!.labels.map((name) => ({ ...p.issue.labels![0]!, name })),
  };
  p.sender = { ...p.sender, login, type: 'User' };
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

interface Answer {
  /** The step's `status` output (mode: comment only). */
  status?: string;
  reply?: string;
  /** The reaction interlock left last on the comment: `+1` or `confused`. */
  reaction?: string;
}

/** Delivers a comment to the face: a `mode: comment` step with the job's token, or Probot's `receive`. */
function deliverer(
  face: Face,
  server: GitHubServer,
): (payload: CommentCreated) => Promise<string | undefined> {
  if (face === 'mode: comment')
    return async (payload) => {
      const r = await runStep({
        apiUrl: server.url,
        repository: FULL,
        workspace: makeWorkspace({}),
        eventName: 'issue_comment',
        payload: payload as unknown as Record<string, unknown>,
        inputs: { mode: 'comment' },
        job: { runId: workflowRun(server.state.repo(FULL), ['runner-comment']) },
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      return r.outputs.status;
    };
  const probot = new Probot({
    githubToken: 'test',
    baseUrl: server.url,
    logLevel: 'fatal',
    Octokit: quietOctokit(),
  });
  // The local GitHub's reads are at most this stale, as INTERLOCK_STALE_READ_MS tells a deployed App.
  const loaded = probot.load(interlockApp({ staleWindowMs: staleWindowOf(server) }));
  return async (payload) => {
    await loaded;
    await probot.receive({ id: `delivery-${payload.comment.id}`, name: 'issue_comment', payload } as never);
    return undefined;
  };
}

/** One face's run of the story: its GitHub, the runner's workspace, and how a comment reaches the face. */
interface Story {
  face: Face;
  server: GitHubServer;
  ws: string;
  deliver: ReturnType<typeof deliverer>;
}

/** Comments on issue 7 as `login` and delivers it; what the face answered. */
async function comment(story: Story, body: string, login: string): Promise<Answer> {
  const repo = story.server.state.repo(FULL);
  const payload = commentCreated(story.server, body, login);
  const before = repo.commentsOn(7).length;
  const status = await story.deliver(payload);
  const reply = repo
    .commentsOn(7)
    .slice(before)
    .find((c) => c.body.startsWith('<!-- interlock:reply'));
  replies[story.face].push(reply?.body ?? '(no reply)');
  const reaction = repo.comments.get(Number(payload.comment.id))?.reactions.at(-1)?.content;
  return {
    ...(status ? { status } : {}),
    ...(reply ? { reply: reply.body } : {}),
    ...(reaction ? { reaction } : {}),
  };
}

/** What an answered command shows: the step's status (mode: comment only) and the reaction. */
function expectAnswer(story: Story, a: Answer, kind: 'refused' | 'completed'): void {
  if (story.face === 'mode: comment') expect(a.status).toBe(kind);
  expect(a.reaction).toBe(kind === 'refused' ? 'confused' : '+1');
}

/** The workflow run an approval dispatched (`workflow_dispatch` with the run id), or another like it. */
function dispatchedStep(story: Story, runId: number) {
  const dispatch = story.server.state.repo(FULL).dispatches[0]!;
  const payload = webhookExample('workflow_dispatch') as Record<string, unknown>;
  return runStep({
    apiUrl: story.server.url,
    repository: FULL,
    workspace: story.ws,
    eventName: 'workflow_dispatch',
    payload: { ...payload, inputs: dispatch.inputs },
    inputs: { node: 'all', 'run-id': RUN_ID },
    job: { runId },
  });
}

describe.each<Face>(['mode: comment', 'the App'])(
  '/approve through %s releases a gated node once',
  (face) => {
    const story = {} as Story;
    beforeAll(async () => {
      Object.assign(story, { face, ...(await startRepository()) });
      story.deliver = deliverer(face, story.server);
    });
    afterAll(async () => story.server?.close());
    const repo = () => story.server.state.repo(FULL);
    const journal = () => readJournal(story.server, RUN_ID);
    const approvals = () => eventsOf(journal(), 'NodeApproved', 'publish');

    it('a step leaves publish awaiting approval and runs nothing of it', async () => {
      const r = await labeledStep(story.server, story.ws);
      expect(r.stderr).toBe('');
      expect(r.outputs).toMatchObject({ node: 'publish', status: 'awaiting-approval' });
      expect(journal().events[0]).toMatchObject({ started_by: PEOPLE.starter });
      expect(eventsOf(journal(), 'NodeDispatched', 'publish')).toEqual([]);
    });

    it("a reader's /approve is refused with a reply on the issue, and nothing is written", async () => {
      const a = await comment(story, '/approve publish', PEOPLE.reader);
      expectAnswer(story, a, 'refused');
      expect(shownText(a.reply)).toContain(`@${PEOPLE.reader} has read permission; this command needs write`);
      expect(approvals()).toEqual([]);
    });

    it('the person who started the run is refused under prevent_self_approval', async () => {
      const a = await comment(story, '/approve publish', PEOPLE.starter);
      expectAnswer(story, a, 'refused');
      expect(shownText(a.reply)).toContain(
        `@${PEOPLE.starter} started this run and cannot approve it (prevent_self_approval)`,
      );
      expect(approvals()).toEqual([]);
    });

    it('the first approval is recorded with its guidance byte for byte, and nothing is dispatched', async () => {
      const a = await comment(story, `/approve publish\n${GUIDANCE}`, PEOPLE.first);
      expectAnswer(story, a, 'completed');
      expect(approvals()).toEqual([
        expect.objectContaining({ approved_by: PEOPLE.first, required: 2, guidance: GUIDANCE }),
      ]);
      expect(a.reply).toContain('approvals 1 of 2');
      expect(repo().dispatches).toEqual([]);
    });

    it('the same person approving again is refused: the policy needs two different people', async () => {
      const a = await comment(story, '/approve publish', PEOPLE.first);
      expectAnswer(story, a, 'refused');
      expect(shownText(a.reply)).toContain(
        `${PEOPLE.first} has already approved "publish" (1 of 2 approvals)`,
      );
      expect(approvals()).toHaveLength(1);
      expect(repo().dispatches).toEqual([]);
    });

    it('a second person approves: the workflow is dispatched once with the run id', async () => {
      const a = await comment(story, '/approve publish', PEOPLE.second);
      expectAnswer(story, a, 'completed');
      expect(approvals().map((e) => e.approved_by)).toEqual([PEOPLE.first, PEOPLE.second]);
      expect(repo().dispatches).toEqual([
        expect.objectContaining({ workflow_id: 'interlock.yml', inputs: { 'run-id': RUN_ID } }),
      ]);
      expect(eventsOf(journal(), 'NodeDispatched', 'publish')).toEqual([]);
    });

    it('the dispatched run runs publish once; its prompt and context carry the guidance byte for byte, inert', async () => {
      const r = await dispatchedStep(story, repo().dispatches[0]!.run_id);
      expect(r.stderr).toBe('');
      expect(r.outputs).toMatchObject({ node: 'publish', status: 'completed' });
      const prompt = readFileSync(join(story.ws, 'prompt.txt'), 'utf8');
      expect(prompt).toContain(`guidance from ${PEOPLE.first}:\n${GUIDANCE}\n`);
      const context = JSON.parse(readFileSync(join(story.ws, 'context.json'), 'utf8'));
      expect(context.guidance).toEqual([{ by: PEOPLE.first, text: GUIDANCE }]);
      for (const canary of ['CANARY', 'CANARY2', 'CANARY3'])
        expect(existsSync(join(story.ws, canary))).toBe(false);
      const again = await dispatchedStep(story, workflowRun(repo(), ['runner-again']));
      expect(again.outputs.status).toBe('run-completed');
      expect(eventsOf(journal(), 'NodeDispatched', 'publish')).toHaveLength(1);
    });
  },
);

describe('both faces', () => {
  it('answer the same comments with the same replies', () => {
    expect(replies['the App']).toHaveLength(5);
    // The dispatched run's number is the local GitHub's next id, which differs between the two servers.
    const runLinks = (list: string[]) =>
      list.map((r) => r.replace(/\/actions\/runs\/\d+/g, '/actions/runs/N'));
    expect(runLinks(replies['the App'])).toEqual(runLinks(replies['mode: comment']));
  });
});
