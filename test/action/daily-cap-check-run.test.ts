// The daily cost cap with `store: check-run`, through the bundled action: that store keeps each run on a commit of
// its own and cannot list the others, so only this run's own spend counts against the cap. It asks GitHub nothing
// to count other runs, the step log says what it could not count, and this run's own spend still holds its second
// agent node at the cap, with the note in the escalation.
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
const NAME = 'interlock: capped/pr-5';

let server: GitHubServer;
let repo: RepoState;

beforeAll(async () => {
  server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO, branches: { 'feat-y': { 'y.txt': 'y\n' } } }],
  });
  repo = server.state.repo(FULL);
  repo.addPull({ number: 5, head: 'feat-y', base: 'main', title: 'Feature Y' });
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: 8100,
    event: 'pull_request',
    status: 'in_progress',
    jobs: [{ name: 'interlock', runner_name: 'runner-8100' }],
  });
});
afterAll(async () => server?.close());

describe('the daily cost cap with store: check-run', () => {
  it("counts only this run's own spend, says so, and holds the next agent node at the cap", async () => {
    const mark = server.requests.mark();
    const r = await runStep({
      apiUrl: server.url,
      repository: FULL,
      workspace: makeWorkspace({ '.github/interlock.yml': CONFIG, [GRAPH_FILE]: GRAPH, 'agent.sh': AGENT }),
      eventName: 'pull_request',
      payload: pullRequestOpened(repo, 5),
      inputs: { store: 'check-run', node: 'all' },
      job: { runId: 8100, runner: 'runner-8100' },
    });
    expect(r.outputs, r.stdout + r.stderr).toMatchObject({ status: 'escalated' });
    expect(r.stdout).toContain(
      "other runs' spend is not counted: the check-run store keeps each run on its own commit and cannot list the others",
    );
    // Nothing was asked to count other runs: no listing of run branches, no tree, no blob.
    for (const path of [/\/git\/matching-refs\//, /\/git\/trees\//, /\/git\/blobs\//])
      expect(server.requests.count({ since: mark, path })).toBe(0);
    const run = [...repo.checkRuns.values()].find((c) => c.name === NAME);
    const journal = decodeJournal(run?.output.text ?? '', NAME);
    // draft ran at $0 spent today; its own $3 holds polish.
    expect(eventsOf(journal, 'NodeRecorded', 'draft')).toHaveLength(1);
    expect(eventsOf(journal, 'NodeDispatched', 'polish')).toEqual([]);
    const [held] = eventsOf(journal, 'NodeEscalated', 'polish');
    expect(held!.report.budget).toMatchObject({ limit: { daily_usd: 3 }, spent: { cost_usd: 3 } });
    expect(JSON.stringify(held!.report)).toContain("other runs' spend is not counted");
  });
});
