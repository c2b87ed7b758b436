// The daily cost cap through the bundled action (node dist/index.js) against the local GitHub. Issue 9's run,
// with no cap configured, spends $3 (its agent reports it through $INTERLOCK_USAGE) and asks GitHub nothing for a
// cap: no tree listing, no blob read. Then, with `budget: { daily_usd: 3 }`, issue 7's run the same day runs its
// plain node and holds its agent node for a person, naming the cap, the day's spend and `/approve-rerun work`;
// once a person comments that, the next step runs it.
import type { components } from '@octokit/openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { webhookExample } from '../support/fixtures.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel, workflowRun } from './world.js';

type CommentCreated = components['schemas']['webhook-issue-comment-created'];

const AGENT = `#!/usr/bin/env bash
cat > /dev/null
echo '{"cost_usd": 3, "turns": 1}' > "$INTERLOCK_USAGE"
`;

const GRAPH = `interlock: 1
name: capped
nodes:
  - id: prep
    run: echo prepped
  - id: work
    depends_on: [prep]
    prompt: do the work
    agent: ./agent.sh
`;
const GRAPH_FILE = '.github/interlock/capped.yml';
const ROUTES = routeLabel('agent:capped', GRAPH_FILE);

let server: GitHubServer;
const CAPPED = `${ROUTES}budget: { daily_usd: 3 }\n`;
const files = (config: string) => ({
  '.github/interlock.yml': config,
  [GRAPH_FILE]: GRAPH,
  'agent.sh': AGENT,
});

beforeAll(async () => {
  server = await startGitHubServer({
    repos: [
      {
        owner: OWNER,
        name: REPO,
        collaborators: { mia: 'maintain' },
        workflows: [{ file: 'interlock.yml', inputs: ['run-id'] }],
        files: files(CAPPED),
      },
    ],
  });
  for (const n of [7, 9])
    server.state.repo(FULL).addIssue({ number: n, title: `Issue ${n}`, labels: ['agent:capped'] });
});
afterAll(async () => server?.close());

/** Requests that list the journal branch or read a blob: what counting other runs asks. */
const countingRequests = (since: number) =>
  server.requests.count({ since, path: /\/git\/trees\// }) +
  server.requests.count({ since, path: /\/git\/blobs\// });

describe('the daily cost cap in the bundled action', () => {
  it('asks GitHub nothing more when no cap is configured', async () => {
    const mark = server.requests.mark();
    const r = await runStep(
      issueStep(server, makeWorkspace(files(ROUTES)), 9, 'agent:capped', { inputs: { node: 'all' } }),
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(countingRequests(mark)).toBe(0);
    expect(r.stdout).not.toContain('daily cost cap');
  });

  it('holds the second run of the day at its agent node, naming the cap, the spend and the command', async () => {
    const ws = makeWorkspace(files(CAPPED));
    // Issue 9's run (no cap then) spent $3 today already: issue 7's run sees it and is held at once.
    const mark = server.requests.mark();
    const first = await runStep(issueStep(server, ws, 7, 'agent:capped', { inputs: { node: 'all' } }));
    expect(first.outputs, first.stdout + first.stderr).toMatchObject({ status: 'escalated' });
    // One listing of the run branches, and the other run's journal read on its branch, once in the step.
    expect(server.requests.count({ since: mark, path: /\/git\/matching-refs\// })).toBe(1);
    expect(server.requests.count({ since: mark, path: /\/contents\/runs\/capped\/issue-9\.json/ })).toBe(1);
    expect(first.stdout).toContain('daily cost cap $3.00: other runs spent $3.00 on');
    expect(first.stdout).toContain('counted from 1 of 1 runs');

    const journal = readJournal(server, 'capped/issue-7');
    expect(eventsOf(journal, 'NodeRecorded', 'prep')).toHaveLength(1);
    expect(eventsOf(journal, 'NodeDispatched', 'work')).toEqual([]);
    const [escalated] = eventsOf(journal, 'NodeEscalated', 'work');
    expect(escalated!.report.budget).toMatchObject({ limit: { daily_usd: 3 }, spent: { cost_usd: 3 } });
    expect(escalated!.report.needed).toContain('The repository is at its daily cost cap ($3.00 spent on');
    expect(escalated!.report.needed).toContain('`/approve-rerun work`');
    const attention = server.state
      .repo(FULL)
      .commentsOn(7)
      .find((c) => c.body.includes('<!-- interlock:attention capped/issue-7 work'));
    expect(attention?.body).toContain('It was not dispatched: the repository is at its daily cost cap.');
    expect(attention?.body).toContain('/approve-rerun work');

    // A person lets it go on: the comment is journaled as an approval, and the next step runs the agent.
    const approved = await approveRerun(7, '/approve-rerun work', 'mia');
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(eventsOf(readJournal(server, 'capped/issue-7'), 'RerunApproved', 'work')).toHaveLength(1);
    const resumed = await runStep(issueStep(server, ws, 7, 'agent:capped', { inputs: { node: 'all' } }));
    expect(resumed.outputs, resumed.stdout + resumed.stderr).toMatchObject({ status: 'completed' });
    const after = readJournal(server, 'capped/issue-7');
    expect(eventsOf(after, 'NodeDispatched', 'work')).toHaveLength(1);
    expect(eventsOf(after, 'NodeEscalated', 'work')).toHaveLength(1);
  });
});

/** A comment on issue `n` as GitHub delivers it (`issue_comment.created`), to a `mode: comment` step. */
function approveRerun(n: number, body: string, login: string) {
  const repo = server.state.repo(FULL);
  const made = repo.addComment(n, body, login);
  const web = `https://github.com/${FULL}`;
  const p = webhookExample('issue_comment', 'created') as unknown as CommentCreated;
  p.comment = {
    ...p.comment,
    id: made.id,
    body,
    html_url: `${web}/issues/${n}#issuecomment-${made.id}`,
    user: { ...p.comment.user!, login, type: 'User' },
  };
  const { pull_request: _, ...issue } = p.issue;
  p.issue = { ...issue, number: n, html_url: `${web}/issues/${n}`, labels: [] };
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
  return runStep({
    apiUrl: server.url,
    repository: FULL,
    workspace: makeWorkspace({}),
    eventName: 'issue_comment',
    payload: p as unknown as Record<string, unknown>,
    inputs: { mode: 'comment' },
    job: { runId: workflowRun(repo, ['runner-comment']) },
  });
}
