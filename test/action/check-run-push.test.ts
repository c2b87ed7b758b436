// The check-run store on a living pull request: a push moves the run to the new head under the same run id (a
// completed node is never run again), the old head's check run is concluded saying where the run went, and a
// run resumed by id from workflow_dispatch (which runs at the default branch) finds the journal on the head.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJournal } from '../../src/store/check-run.js';
import { makeWorkspace, runStep, type StepOptions } from '../support/action-process.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { reviewFiles, runningJob } from './check-run-world.js';
import { eventsOf, FULL, OWNER, pullRequestOpened, REPO } from './world.js';

const RUN = 'review/pr-22';
const NAME = `interlock: ${RUN}`;

let server: GitHubServer;
let repo: RepoState;
const ws = makeWorkspace(reviewFiles(['opened', 'synchronize']));

beforeAll(async () => {
  server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO, branches: { 'feat-y': { 'y.txt': 'y\n' } } }],
  });
  repo = server.state.repo(FULL);
  repo.addPull({ number: 22, head: 'feat-y', base: 'main', title: 'Feature Y' });
});
afterAll(async () => server?.close());

const counter = { next: 7300 };
const job = (event: string) => runningJob(repo, counter, event);

function pullStep(action: 'opened' | 'synchronize'): StepOptions {
  const payload = { ...pullRequestOpened(repo, 22), action };
  return {
    apiUrl: server.url,
    repository: FULL,
    workspace: ws,
    eventName: 'pull_request',
    payload,
    inputs: { store: 'check-run' },
    job: job('pull_request'),
  };
}

const checkRunsOn = (sha: string) =>
  [...repo.checkRuns.values()].filter((c) => c.name === NAME && c.head_sha === sha);

describe('store: check-run, when the pull request gets a new commit', () => {
  let firstHead: string;
  let secondHead: string;

  it('a push moves the run to the new head under the same run id: the completed node is not run again', async () => {
    firstHead = repo.pullHeadSha(repo.issue(22)!);
    const first = await runStep(pullStep('opened'));
    expect(first.outputs).toMatchObject({ 'run-id': RUN, node: 'lint', status: 'completed' });

    repo.commitFiles('feat-y', { 'y.txt': 'y2\n' }, { message: 'a push' });
    secondHead = repo.pullHeadSha(repo.issue(22)!);
    expect(secondHead).not.toBe(firstHead);
    const second = await runStep(pullStep('synchronize'));
    expect(second.code, second.stdout).toBe(0);
    expect(second.outputs).toMatchObject({ 'run-id': RUN, node: 'test', attempt: '1', status: 'completed' });

    const [moved] = checkRunsOn(secondHead);
    const journal = decodeJournal(moved?.output.text ?? '', NAME);
    expect(eventsOf(journal, 'NodeDispatched', 'lint')).toHaveLength(1);
    expect(eventsOf(journal, 'RunStarted')).toHaveLength(1);
  });

  it("the old head's check run is concluded neutral, saying the run moved to the new head", () => {
    const [old] = checkRunsOn(firstHead);
    expect(old).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(old?.output.summary).toContain(`moved to the new head ${secondHead}`);
    expect(checkRunsOn(secondHead)).toHaveLength(1);
  });

  it('resuming by run-id from workflow_dispatch (at the default branch) finds the journal on the pull request head', async () => {
    const r = await runStep({
      apiUrl: server.url,
      repository: FULL,
      workspace: ws,
      eventName: 'workflow_dispatch',
      payload: { inputs: { 'run-id': RUN } },
      inputs: { store: 'check-run', 'run-id': RUN },
      job: job('workflow_dispatch'),
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ 'run-id': RUN, node: 'ship', status: 'completed' });
    expect(r.stdout).not.toContain('no route');
    const journal = decodeJournal(checkRunsOn(secondHead)[0]?.output.text ?? '', NAME);
    expect(eventsOf(journal, 'NodeRecorded', 'ship')).toHaveLength(1);
  });

  it('resuming by a run-id that has no journal says so and fails, instead of answering no-route', async () => {
    const r = await runStep({
      apiUrl: server.url,
      repository: FULL,
      workspace: ws,
      eventName: 'workflow_dispatch',
      payload: { inputs: { 'run-id': 'review/pr-99' } },
      inputs: { 'run-id': 'review/pr-99' },
      job: job('workflow_dispatch'),
    });
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(r.stdout).toContain('run-id "review/pr-99": no journal at');
    expect(r.summary).toContain('no journal at');
  });
});
