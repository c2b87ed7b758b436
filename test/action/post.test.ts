import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep, type StepOptions, startStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import {
  endWorkflowRun,
  eventsOf,
  FULL,
  issueStep,
  JOBS_GET,
  journalText,
  OWNER,
  REPO,
  readJournal,
  routeLabel,
  validJournal,
  waitForFile,
} from './world.js';

const GRAPH = `interlock: 1
name: post
nodes:
  - id: work
    replay: never
    run: |
      echo "work $INTERLOCK_ATTEMPT" >> effects.log
      if [ -f slow ]; then echo $$ > pid; touch started; sleep 30; fi
  - id: after
    depends_on: [work]
    run: echo "after $INTERLOCK_ATTEMPT" >> effects.log
`;
const GRAPH_FILE = '.github/interlock/post.yml';

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
});
afterAll(async () => server?.close());

function world(issue: number) {
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:post', GRAPH_FILE),
    [GRAPH_FILE]: GRAPH,
  });
  server.state.repo(FULL).addIssue({ number: issue, title: 'Post step', labels: ['agent:post'] });
  return {
    ws,
    opts: (extra: Partial<StepOptions> = {}) => issueStep(server, ws, issue, 'agent:post', extra),
  };
}

/** Whether a process group has ended, polled until a deadline (a signal takes a moment to land). */
async function groupGone(pgid: number, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

const attention = (issue: number) =>
  server.state
    .repo(FULL)
    .commentsOn(issue)
    .filter((c) => c.body.startsWith(`<!-- interlock:attention post/issue-${issue} work 1 -->`));

const effects = (ws: string) => readFileSync(join(ws, 'effects.log'), 'utf8');

describe('the post step', () => {
  it('after the main step was cancelled mid-node, records NodeInterrupted at once: a never node is held', async () => {
    const { ws, opts } = world(51);
    writeFileSync(join(ws, 'slow'), '');
    const main = opts();
    const running = startStep(main);
    await waitForFile(join(ws, 'started'));
    running.child.kill('SIGTERM'); // what the runner sends when a workflow run is cancelled
    const cancelled = await running.done;
    rmSync(join(ws, 'slow'));
    expect(cancelled.code).toBe(1);
    expect(cancelled.stdout).toContain('::error::interlock: SIGTERM');
    // The node's own process group went down with the step.
    expect(await groupGone(Number(readFileSync(join(ws, 'pid'), 'utf8')))).toBe(true);
    expect(cancelled.state).toMatchObject({
      'run-id': 'post/issue-51',
      graph: GRAPH_FILE,
      subject: 'issue-51',
    });
    expect(cancelled.state.done).toBeUndefined();
    expect(readJournal(server, 'post/issue-51').events.at(-1)).toMatchObject({
      type: 'NodeDispatched',
      node: 'work',
    });

    // The post step runs in the same job, while GitHub still shows the job as running: it needs not ask.
    const mark = server.requests.mark();
    const post = await runStep({ ...main, entry: 'post.js', state: cancelled.state });
    expect(post.code).toBe(0);
    expect(post.stderr).toBe('');
    expect(post.stdout).toContain('::warning::interlock: "work" was interrupted when the step stopped');
    expect(server.requests.count({ since: mark, kind: JOBS_GET })).toBe(0);
    const journal = readJournal(server, 'post/issue-51');
    const state = validJournal(journal, join(ws, GRAPH_FILE));
    expect(eventsOf(journal, 'NodeInterrupted')).toEqual([
      expect.objectContaining({
        node: 'work',
        attempt: 1,
        by: `interlock post step (workflow run ${main.job.runId} attempt 1)`,
      }),
    ]);
    expect(eventsOf(journal, 'NodeInterrupted')[0]!.observed_usage.wall_ms).toBeGreaterThan(0);
    expect(state.checkpoint.held_nodes).toEqual(['work']);
    // A person is asked at once, with the commands that settle it, and the issue is labelled.
    expect(attention(51)).toHaveLength(1);
    expect(attention(51)[0]!.body).toContain('/approve-rerun work');
    expect(server.state.repo(FULL).issue(51)!.labels).toContain('interlock: needs human');

    // Later workflow runs find it held: nothing runs again, and nobody is asked twice.
    endWorkflowRun(server.state.repo(FULL), main.job.runId);
    for (let i = 0; i < 2; i++) {
      const next = await runStep(opts({ inputs: { 'on-held': 'succeed' } }));
      expect(next.code).toBe(0);
      expect(next.outputs.status).toBe('held');
    }
    expect(effects(ws)).toBe('work 1\n');
    expect(attention(51)).toHaveLength(1);
    expect(eventsOf(readJournal(server, 'post/issue-51'), 'NodeInterrupted')).toHaveLength(1);
  });

  it('after the main step finished, does nothing at all', async () => {
    const { ws, opts } = world(52);
    const main = opts();
    const done = await runStep(main);
    expect(done.outputs).toMatchObject({ node: 'work', status: 'completed' });
    expect(done.state.done).toBe('true');
    const before = journalText(server, 'post/issue-52');
    const mark = server.requests.mark();
    const post = await runStep({ ...main, entry: 'post.js', state: done.state });
    expect(post.code).toBe(0);
    expect(post.stdout).toBe('');
    expect(server.requests.count({ since: mark })).toBe(0);
    expect(journalText(server, 'post/issue-52')).toBe(before);
    expect(effects(ws)).toBe('work 1\n');
  });
});
