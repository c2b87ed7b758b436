import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_RUN_TEXT_LIMIT, decodeJournal } from '../../src/store/check-run.js';
import { makeWorkspace, runStep, type StepOptions } from '../support/action-process.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { eventsOf, FULL, JOURNAL_BRANCH, OWNER, pullRequestOpened, REPO, validJournal } from './world.js';

const CONFIG = `routes:
  - event: pull_request
    action: opened
    graph: .github/interlock/review.yml
`;
const GRAPH = `interlock: 1
name: review
nodes:
  - id: build
    run: echo "build $INTERLOCK_ATTEMPT" >> effects.log
  - id: test
    depends_on: [build]
    run: echo "test $INTERLOCK_ATTEMPT" >> effects.log
  - id: big
    depends_on: [test]
    run: echo "blob=$(head -c 60000 /dev/urandom | base64 -w0)" >> "$INTERLOCK_OUTPUT"
    outputs: [blob]
`;
const GRAPH_FILE = '.github/interlock/review.yml';
const RUN = 'review/pr-21';
const NAME = `interlock: ${RUN}`;

let server: GitHubServer;
let repo: RepoState;
let headSha: string;
let runNo = 7000;
const ws = makeWorkspace({ '.github/interlock.yml': CONFIG, [GRAPH_FILE]: GRAPH });

beforeAll(async () => {
  server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO, branches: { 'feat-x': { 'x.txt': 'x\n' } } }],
  });
  repo = server.state.repo(FULL);
  repo.addPull({ number: 21, head: 'feat-x', base: 'main', title: 'Feature X' });
  headSha = repo.pullHeadSha(repo.issue(21)!);
});
afterAll(async () => server?.close());

/** One step of a workflow on the pull request, one at a time (a concurrency group per run, as documented). */
function step(): StepOptions {
  const runId = ++runNo;
  repo.addWorkflowRun({
    workflow: 'review.yml',
    id: runId,
    event: 'pull_request',
    status: 'in_progress',
    jobs: [{ name: 'interlock', runner_name: `runner-${runId}` }],
  });
  return {
    apiUrl: server.url,
    repository: FULL,
    workspace: ws,
    eventName: 'pull_request',
    payload: pullRequestOpened(repo, 21),
    inputs: { store: 'check-run' },
    job: { runId, runner: `runner-${runId}` },
  };
}

function checkRuns() {
  return [...repo.checkRuns.values()].filter((c) => c.name === NAME);
}

function storedJournal() {
  const [run] = checkRuns();
  if (!run) throw new Error(`no check run ${NAME}`);
  return decodeJournal(run.output.text ?? '', NAME);
}

describe('store: check-run on a pull request', () => {
  it('keeps the journal in a check run named after the run on the head commit, with a summary', async () => {
    const r = await runStep(step());
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ 'run-id': RUN, node: 'build', status: 'completed' });
    const runs = checkRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ head_sha: headSha, status: 'in_progress', app: 'github-actions' });
    const journal = storedJournal();
    validJournal(journal, join(ws, GRAPH_FILE));
    expect(journal.events.map((e) => e.type)).toEqual(['RunStarted', 'NodeDispatched', 'NodeRecorded']);
    // People see the run in the Checks tab: a table of nodes and a diagram, not the encoded journal.
    expect(runs[0]!.output.title).toContain(RUN);
    expect(runs[0]!.output.summary).toContain('| node | state |');
    expect(runs[0]!.output.summary).toMatch(/\| build \| .*completed/);
    expect(runs[0]!.output.summary).toContain('```mermaid');
    // Nothing went to a journal branch, and the pull request has its progress comment.
    expect(repo.refs.has(`refs/heads/${JOURNAL_BRANCH}`)).toBe(false);
    expect(
      repo.commentsOn(21).filter((c) => c.body.includes(`<!-- interlock:progress ${RUN} -->`)),
    ).toHaveLength(1);
  });

  it('proceeds over later steps in the same check run, updated in place', async () => {
    const mark = server.requests.mark();
    const r = await runStep(step());
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ node: 'test', attempt: '1', status: 'completed' });
    console.info(`check-run store, one later step: ${JSON.stringify(server.requests.countByKind(mark))}`);
    expect(checkRuns()).toHaveLength(1);
    const journal = storedJournal();
    validJournal(journal, join(ws, GRAPH_FILE));
    expect(journal.events.map((e) => `${e.type} ${'node' in e ? e.node : ''}`.trim())).toEqual([
      'RunStarted',
      'NodeDispatched build',
      'NodeRecorded build',
      'NodeDispatched test',
      'NodeRecorded test',
    ]);
    expect(checkRuns()[0]!.output.summary).toMatch(/\| test \| .*completed/);
  });

  it(`a result too big for a check run (over ${CHECK_RUN_TEXT_LIMIT} characters) is recorded as failed with that reason, never left in flight`, async () => {
    const r = await runStep(step());
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ node: 'big', attempt: '1', status: 'failed' });
    const error = r.stdout.split('\n').find((l) => l.startsWith('::error::'));
    expect(error).toContain(`over GitHub's limit of ${CHECK_RUN_TEXT_LIMIT}`);
    expect(error).toContain('use the git store (store: git)');
    expect(r.summary).toContain('big');
    // The journal records the attempt failed, saying why and that its outputs were dropped: nothing in flight.
    const journal = storedJournal();
    const state = validJournal(journal, join(ws, GRAPH_FILE));
    const [failed] = eventsOf(journal, 'NodeFailed', 'big');
    expect(failed?.attempt).toBe(1);
    expect(failed?.failures[0]?.check).toBe('journal');
    expect(failed?.failures[0]?.message).toContain(`over GitHub's limit of ${CHECK_RUN_TEXT_LIMIT}`);
    expect(failed?.failures[0]?.message).toContain('its outputs (blob) were dropped');
    expect(eventsOf(journal, 'NodeRecorded', 'big')).toEqual([]);
    expect(state.checkpoint.active_nodes).toEqual([]);
    expect(checkRuns()).toHaveLength(1);
  });

  it('a later step does not recover the too-big attempt as interrupted: the failure stands as attempt 1', async () => {
    const r = await runStep(step());
    expect(r.outputs.status, r.stdout).toBeDefined();
    const journal = storedJournal();
    expect(eventsOf(journal, 'NodeInterrupted', 'big')).toEqual([]);
    expect(eventsOf(journal, 'NodeFailed', 'big')[0]?.attempt).toBe(1);
  });
});
