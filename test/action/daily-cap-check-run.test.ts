// The daily cost cap with `store: check-run`, through the bundled action: that store keeps each run in a check run on
// its pull request's head, and the other runs it counts are those on the heads of the repository's pull requests,
// open or closed since the day began (`PullRequestCheckRuns`, issue 45). A run on pull request #6 spends $3 and is
// held at the $3 cap; the pull request is closed (merged, say). A run on pull request #5 then counts that $3 and
// holds its first agent node before dispatching it. Before, this store counted only the run's own spend and #5's
// first node ran past the cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJournal } from '../../src/store/check-run.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { eventsOf, FULL, OWNER, pullRequestOpened, REPO } from './world.js';

const AGENT = `#!/usr/bin/env bash
cat > /dev/null
echo '{"cost_usd": 3, "turns": 1}' > "$INTERLOCK_USAGE"
`;
const GRAPH = `interlock: 1
name: capped
nodes:
  - id: draft
    prompt: draft it
    agent: ./agent.sh
  - id: polish
    depends_on: [draft]
    prompt: polish it
    agent: ./agent.sh
`;
const GRAPH_FILE = '.github/interlock/capped.yml';
const CONFIG = `routes:
  - event: pull_request
    action: opened
    graph: ${GRAPH_FILE}
budget: { daily_usd: 3 }
`;

let server: GitHubServer;
let repo: RepoState;

beforeAll(async () => {
  server = await startGitHubServer({
    repos: [
      { owner: OWNER, name: REPO, branches: { 'feat-y': { 'y.txt': 'y\n' }, 'feat-z': { 'z.txt': 'z\n' } } },
    ],
  });
  repo = server.state.repo(FULL);
  repo.addPull({ number: 5, head: 'feat-y', base: 'main', title: 'Feature Y' });
  repo.addPull({ number: 6, head: 'feat-z', base: 'main', title: 'Feature Z' });
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: 8100,
    event: 'pull_request',
    status: 'in_progress',
    jobs: [{ name: 'interlock', runner_name: 'runner-8100' }],
  });
});
afterAll(async () => server?.close());

const step = (pull: number) =>
  runStep({
    apiUrl: server.url,
    repository: FULL,
    workspace: makeWorkspace({ '.github/interlock.yml': CONFIG, [GRAPH_FILE]: GRAPH, 'agent.sh': AGENT }),
    eventName: 'pull_request',
    payload: pullRequestOpened(repo, pull),
    inputs: { store: 'check-run', node: 'all' },
    job: { runId: 8100, runner: 'runner-8100' },
  });

const journalOf = (pull: number) => {
  const name = `interlock: capped/pr-${pull}`;
  const run = [...repo.checkRuns.values()].find((c) => c.name === name);
  return decodeJournal(run?.output.text ?? '', name);
};

describe('the daily cost cap with store: check-run', () => {
  it("counts the other pull requests' runs of the day, a closed one's too, and holds the first agent node at the cap", async () => {
    const first = await step(6);
    expect(first.outputs, first.stdout + first.stderr).toMatchObject({ status: 'escalated' });
    // Its own $3 held its second node; nothing else had spent.
    expect(eventsOf(journalOf(6), 'NodeRecorded', 'draft')).toHaveLength(1);
    expect(first.stdout).toContain('counted from 0 of 0 runs');
    const six = repo.issue(6)!;
    six.state = 'closed';
    six.updated_at = new Date().toISOString();

    const mark = server.requests.mark();
    const r = await step(5);
    expect(r.outputs, r.stdout + r.stderr).toMatchObject({ status: 'escalated' });
    expect(r.stdout).toMatch(/other runs spent \$3\.00 on \S+ \(UTC\), counted from 1 of 1 runs/);
    // The check-run store was asked: no listing of run branches, no tree, no blob.
    for (const path of [/\/git\/matching-refs\//, /\/git\/trees\//, /\/git\/blobs\//])
      expect(server.requests.count({ since: mark, path })).toBe(0);
    const journal = journalOf(5);
    expect(eventsOf(journal, 'NodeDispatched', 'draft')).toEqual([]);
    const [held] = eventsOf(journal, 'NodeEscalated', 'draft');
    expect(held!.report.budget).toMatchObject({ limit: { daily_usd: 3 } });
    expect(JSON.stringify(held!.report)).not.toContain("other runs' spend is not counted");
  });
});
