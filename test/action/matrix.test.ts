import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressComment } from '../../src/render/markdown.js';
import { timelineOf } from '../../src/render/timeline/timeline-of.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';
import {
  makeWorkspace,
  runStep,
  type StepOptions,
  type StepResult,
  worldLog,
} from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { issuesLabeled } from '../support/fixtures.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import {
  CONTENTS_GET,
  CONTENTS_PUT,
  eventsOf,
  FULL,
  JOBS_GET,
  OWNER,
  REPO,
  readJournal,
  routeLabel,
  validJournal,
} from './world.js';

const FANOUT = Array.from({ length: 8 }, (_, i) => `n${i + 1}`);
const GRAPH = `interlock: 1
name: fan
nodes:
${FANOUT.map(
  (id) => `  - id: ${id}
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> "$EFFECTS"
`,
).join('')}  - id: join
    depends_on: [${FANOUT.join(', ')}]
    run: echo "join $INTERLOCK_ATTEMPT" >> "$EFFECTS"
`;
const RUN = 'fan/issue-7';
const RUN_ID = 4242;

let server: GitHubServer;
const FILES = {
  '.github/interlock.yml': routeLabel('agent:fan', '.github/interlock/fan.yml'),
  '.github/interlock/fan.yml': GRAPH,
};
// Each job has a checkout of its own, as on GitHub; the side effects land outside all of them.
const ws = makeWorkspace(FILES);
const EFFECTS = worldLog();

beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
  const repo = server.state.repo(FULL);
  repo.addIssue({ number: 7, title: 'Fan out', labels: ['agent:fan'] });
  // One workflow run: a plan job, eight matrix jobs of the job key "fanout" on eight runners, a join job.
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: RUN_ID,
    event: 'issues',
    status: 'in_progress',
    jobs: [
      { name: 'plan', runner_name: 'runner-plan', status: 'completed', conclusion: 'success' },
      ...FANOUT.map((id, i) => ({
        name: `fanout (${id})`,
        runner_name: `runner-${i + 1}`,
        status: 'in_progress' as const,
      })),
      { name: 'join', runner_name: 'runner-join', status: 'in_progress' },
    ],
  });
});
afterAll(async () => server?.close());

function job(key: string, runner: string, inputs: Record<string, string>): StepOptions {
  return {
    apiUrl: server.url,
    repository: FULL,
    workspace: makeWorkspace(FILES),
    eventName: 'issues',
    payload: issuesLabeled(OWNER, REPO, 7, 'agent:fan', 'Fan out'),
    inputs,
    job: { runId: RUN_ID, attempt: 1, job: key, runner },
    env: { EFFECTS },
  };
}

describe('a matrix fan-out: eight jobs at once on one journal', () => {
  it('plan mode outputs the eight ready nodes as JSON for strategy.matrix', async () => {
    const r = await runStep(job('plan', 'runner-plan', { mode: 'plan' }));
    expect(r.code).toBe(0);
    expect(r.outputs['run-id']).toBe(RUN);
    expect(JSON.parse(r.outputs.ready!)).toEqual(FANOUT);
    // The plan starts the run, so the eight jobs find the journal branch, the journal and the progress comment's
    // id rather than each creating the branch and looking for the comment at once.
    const journal = readJournal(server, RUN);
    expect(journal.events.map((e) => e.type)).toEqual(['RunStarted']);
    const progress = server.state
      .repo(FULL)
      .commentsOn(7)
      .filter((c) => c.body.includes(`<!-- interlock:progress ${RUN} -->`));
    expect(journal.progress_comment_id).toBe(progress[0]?.id);
  });

  let results: StepResult[];
  let mark: number;
  it('eight jobs started at once lose no event, dispatch every node exactly once and run each side effect once', async () => {
    mark = server.requests.mark();
    results = await Promise.all(
      FANOUT.map((id, i) => runStep(job('fanout', `runner-${i + 1}`, { node: id }))),
    );
    for (const [i, r] of results.entries()) {
      expect(r.stderr, FANOUT[i]).toBe('');
      expect(r.code, `${FANOUT[i]}: ${r.stdout}`).toBe(0);
      expect(r.outputs).toMatchObject({ node: FANOUT[i], attempt: '1', status: 'completed' });
    }
    const journal = readJournal(server, RUN);
    const state = validJournal(journal, join(ws, '.github/interlock/fan.yml'));
    expect(eventsOf(journal, 'RunStarted')).toHaveLength(1);
    expect(eventsOf(journal, 'NodeInterrupted')).toEqual([]);
    for (const [i, id] of FANOUT.entries()) {
      const dispatched = eventsOf(journal, 'NodeDispatched', id);
      expect(dispatched, id).toHaveLength(1);
      expect(dispatched[0]!.runner).toMatchObject({
        workflow_run_id: RUN_ID,
        run_attempt: 1,
        job: 'fanout',
        runner_name: `runner-${i + 1}`,
      });
      expect(eventsOf(journal, 'NodeRecorded', id), id).toHaveLength(1);
    }
    expect(journal.events).toHaveLength(1 + 2 * FANOUT.length);
    expect([...state.checkpoint.completed_nodes].sort()).toEqual(FANOUT);
    expect(state.checkpoint.ready_nodes).toEqual(['join']);
    const effects = readFileSync(EFFECTS, 'utf8').trim().split('\n').sort();
    expect(effects).toEqual(FANOUT.map((id) => `${id} 1`).sort());
  });

  it('every conflict is re-read and decided again: no write is ever sent twice', () => {
    const puts = server.requests.filter({ since: mark, kind: CONTENTS_PUT });
    const conflicts = puts.filter((p) => p.status === 409 || p.status === 422);
    const reads = server.requests.count({ since: mark, kind: CONTENTS_GET });
    const bodies = puts.map((p) => JSON.stringify(p.body));
    const probes = server.requests.count({ since: mark, kind: JOBS_GET });
    console.info(
      `matrix of ${FANOUT.length}: ${puts.length} journal writes, ${conflicts.length} conflicts (${conflicts.filter((p) => p.status === 409).length} × 409, ${conflicts.filter((p) => p.status === 422).length} × 422), ${reads} journal reads, ${probes} job look-ups by recovery, ${server.requests.count({ since: mark })} requests in all`,
    );
    // A blind retry would resend the very same compare-and-swap body after its conflict. (Event writes are
    // unique to their job; two jobs storing the same progress comment id from the same version are not.)
    const resent = conflicts.filter(
      (c) =>
        !String((c.body as { message?: string }).message).includes('progress comment') &&
        bodies.lastIndexOf(JSON.stringify(c.body)) > puts.indexOf(c),
    );
    expect(resent.map((c) => `${c.status} ${c.seq}`)).toEqual([]);
    // A job for one node recovers only that node and what it depends on: it asks nothing about its siblings' jobs.
    expect(probes).toBe(0);
    // Each job reads once, then once more after each of its conflicts.
    expect(reads).toBeGreaterThanOrEqual(FANOUT.length + conflicts.length);
  });

  it('the run keeps one progress comment on the issue, whatever the jobs raced', () => {
    const progress = server.state
      .repo(FULL)
      .commentsOn(7)
      .filter((c) => c.body.includes(`<!-- interlock:progress ${RUN} -->`));
    expect(progress).toHaveLength(1);
    expect(readJournal(server, RUN).progress_comment_id).toBe(progress[0]!.id);
    // Jobs that recorded while others were in flight left the comment to the last: it shows all eight recorded.
    const file = join(ws, '.github/interlock/fan.yml');
    const graph = { ...loadGraphFile(file), path: '.github/interlock/fan.yml' };
    const state = validJournal(readJournal(server, RUN), file);
    expect(progress[0]!.body).toBe(
      progressComment(graph, state, {
        workflowRun: `https://github.com/${FULL}/actions/runs/${RUN_ID}`,
        timeline: timelineOf(readJournal(server, RUN)),
      }),
    );
  });

  it('the join node runs after all eight, in a later job', async () => {
    const r = await runStep(job('join', 'runner-join', { node: 'next' }));
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ node: 'join', status: 'completed' });
    const journal = readJournal(server, RUN);
    validJournal(journal, join(ws, '.github/interlock/fan.yml'));
    const joinAt = journal.events.findIndex((e) => e.type === 'NodeDispatched' && e.node === 'join');
    const lastRecorded = Math.max(
      ...journal.events.map((e, i) => (e.type === 'NodeRecorded' && e.node !== 'join' ? i : -1)),
    );
    expect(joinAt).toBeGreaterThan(lastRecorded);
    expect(eventsOf(journal, 'RunCompleted')).toHaveLength(1);
    expect(readFileSync(EFFECTS, 'utf8').match(/^join/gm)).toHaveLength(1);
  });
});
