// A plan that dispatches its wave (`dispatch: ready`, issue 35), through the bundled action under the like-GitHub
// model: the plan journals every ready node's dispatch in its one write, each matrix job reads the journal at the
// plan's commit, takes its dispatch and writes only its record. On the order clock (test/support/clock.ts: a 75 ms
// write, reads 500 ms stale, and the steps told a 500 ms window and line-up slot) twenty jobs take seconds, not a
// minute; the model's behaviours (branch races, stale reads, the secondary limit) are those of the default.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep, type StepOptions, startStep, worldLog } from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { issuesLabeled } from '../support/fixtures.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import {
  CONTENTS_PUT,
  eventsOf,
  FULL,
  OWNER,
  REPO,
  readJournal,
  routeLabel,
  validJournal,
  waitForFile,
} from './world.js';

const N = 20;
const FAN = Array.from({ length: N }, (_, i) => `n${i + 1}`);
const graphOf = (name: string, nodes: string[]) => `interlock: 1
name: ${name}
nodes:
${nodes.map((id) => `  - id: ${id}\n    run: echo "${name} $INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> "$EFFECTS"\n`).join('')}`;
const FILES = {
  '.github/interlock.yml': [
    routeLabel('agent:fan', '.github/interlock/fan.yml'),
    routeLabel('agent:two', '.github/interlock/two.yml').replace('routes:\n', ''),
    routeLabel('agent:slow', '.github/interlock/slow.yml').replace('routes:\n', ''),
  ].join(''),
  '.github/interlock/fan.yml': graphOf('fan', FAN),
  '.github/interlock/two.yml': graphOf('two', ['a', 'b']),
  '.github/interlock/slow.yml': `interlock: 1
name: slow
nodes:
  - id: s
    run: echo $$ > pid; touch started; sleep 300
`,
};
const WORKFLOW_RUN = 5151;
const SECOND_RUN = 5252;
const THIRD_RUN = 5353;
const EFFECTS = worldLog();
let server: GitHubServer;

beforeAll(async () => {
  server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO }],
    likeGitHub: ORDER_CLOCK,
  });
  const repo = server.state.repo(FULL);
  repo.addIssue({ number: 7, title: 'Fan out', labels: ['agent:fan'] });
  repo.addIssue({ number: 8, title: 'Two', labels: ['agent:two'] });
  repo.addIssue({ number: 9, title: 'Slow', labels: ['agent:slow'] });
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: THIRD_RUN,
    event: 'issues',
    status: 'in_progress',
    jobs: [{ name: 'fanout (s)', runner_name: 'runner-s', status: 'in_progress' }],
  });
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: WORKFLOW_RUN,
    event: 'issues',
    status: 'in_progress',
    jobs: [
      { name: 'plan', runner_name: 'runner-plan', status: 'completed', conclusion: 'success' },
      ...FAN.map((id, i) => ({
        name: `fanout (${id})`,
        runner_name: `runner-${i + 1}`,
        status: 'in_progress' as const,
      })),
    ],
  });
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: SECOND_RUN,
    event: 'issues',
    status: 'in_progress',
    jobs: [
      { name: 'plan', runner_name: 'runner-p', status: 'completed', conclusion: 'success' },
      { name: 'fanout (a)', runner_name: 'runner-a', status: 'in_progress' },
      { name: 'fanout (b)', status: 'queued' },
      { name: 'plan again', runner_name: 'runner-q', status: 'in_progress' },
    ],
  });
});
afterAll(async () => server?.close());

function job(
  issue: number,
  run: { id: number; attempt?: number; key: string; runner: string },
  inputs: Record<string, string>,
  env: Record<string, string> = {},
): StepOptions {
  const label = { 7: 'agent:fan', 8: 'agent:two', 9: 'agent:slow' }[issue]!;
  return {
    apiUrl: server.url,
    repository: FULL,
    workspace: makeWorkspace(FILES),
    eventName: 'issues',
    payload: issuesLabeled(OWNER, REPO, issue, label, 'Fan out'),
    inputs,
    job: { runId: run.id, attempt: run.attempt ?? 1, job: run.key, runner: run.runner },
    env: { EFFECTS, ...env },
  };
}

const effectsOf = (name: string) =>
  readFileSync(EFFECTS, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`${name} `));

describe('a plan dispatches its wave: each matrix job writes only its record', () => {
  let sha = '';
  it('the plan journals the twenty dispatches in its one write, before any job starts, and names its commit', async () => {
    const r = await runStep(
      job(7, { id: WORKFLOW_RUN, key: 'plan', runner: 'runner-plan' }, { mode: 'plan', dispatch: 'ready' }),
    );
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.outputs.ready!)).toEqual(FAN);
    sha = r.outputs['journal-sha'] ?? '';
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const journal = readJournal(server, 'fan/issue-7');
    expect(journal.events.map((e) => e.type)).toEqual(['RunStarted', ...FAN.map(() => 'NodeDispatched')]);
    for (const [place, id] of FAN.entries()) {
      const runner = eventsOf(journal, 'NodeDispatched', id)[0]!.runner;
      expect(runner).toMatchObject({
        kind: 'actions',
        workflow_run_id: WORKFLOW_RUN,
        run_attempt: 1,
        planned_by: 'plan',
      });
      expect(runner.wave).toEqual({ place, size: N });
      // The plan cannot know which runner GitHub gives the job: the dispatch names none.
      expect(runner.runner_name).toBeUndefined();
    }
  });

  it('twenty jobs at once: 20 of 20 recorded once, each side effect once, at most 6 requests a step', async () => {
    const mark = server.requests.mark();
    const results = await Promise.all(
      FAN.map((id, i) =>
        runStep(
          job(
            7,
            { id: WORKFLOW_RUN, key: 'fanout', runner: `runner-${i + 1}` },
            { node: id, 'journal-sha': sha },
          ),
        ),
      ),
    );
    for (const [i, r] of results.entries()) {
      expect(r.code, `${FAN[i]}: ${r.stdout}`).toBe(0);
      expect(r.outputs).toMatchObject({ node: FAN[i], attempt: '1', status: 'completed' });
    }
    const journal = readJournal(server, 'fan/issue-7');
    const state = validJournal(journal, join(makeWorkspace(FILES), '.github/interlock/fan.yml'));
    for (const id of FAN) {
      expect(eventsOf(journal, 'NodeDispatched', id), id).toHaveLength(1);
      expect(eventsOf(journal, 'NodeRecorded', id), id).toHaveLength(1);
    }
    expect(state.checkpoint.status).toBe('completed');
    expect(effectsOf('fan').sort()).toEqual(FAN.map((id) => `fan ${id} 1`).sort());
    // No job wrote a dispatch: every landed journal write of theirs is a record.
    const puts = server.requests.filter({ since: mark, kind: CONTENTS_PUT }).filter((p) => p.status < 300);
    const messages = puts.map((p) => String((p.body as { message?: string }).message));
    expect(messages.filter((m) => m.includes('NodeDispatched'))).toEqual([]);
    const perStep = server.requests.count({ since: mark }) / N;
    console.info(
      `plan wave of ${N}: ${perStep.toFixed(1)} requests a step, ${JSON.stringify(server.model.stats)}`,
    );
    expect(perStep).toBeLessThanOrEqual(6);
  });
});

/** The claim file a job's step makes when it takes a plan's dispatch (src/action/context/planned.ts). */
function claimed(dir: string, runId: string, node: string): void {
  const key = `${SECOND_RUN}\u00001\u0000${runId}\u0000${node}\u00001`;
  mkdirSync(join(dir, 'interlock-claims'), { recursive: true });
  writeFileSync(join(dir, 'interlock-claims', createHash('sha256').update(key).digest('hex')), '');
}

describe("a plan's dispatch is never begun twice, and a job that never ran it leaves it held", () => {
  let sha = '';
  it('a later step of the job that took it, and a job of another run attempt, leave it alone', async () => {
    const plan = await runStep(
      job(8, { id: SECOND_RUN, key: 'plan', runner: 'runner-p' }, { mode: 'plan', dispatch: 'ready' }),
    );
    expect(plan.code, plan.stdout).toBe(0);
    sha = plan.outputs['journal-sha']!;
    // An earlier step of this job took "a" (its claim is in the job's RUNNER_TEMP) and was killed mid-work.
    const temp = mkdtempSync(join(tmpdir(), 'interlock-job-'));
    claimed(temp, 'two/issue-8', 'a');
    const again = await runStep(
      job(
        8,
        { id: SECOND_RUN, key: 'fanout', runner: 'runner-a' },
        { node: 'a', 'journal-sha': sha },
        { RUNNER_TEMP: temp },
      ),
    );
    expect(again.outputs.status).toBe('not-ready');
    // Re-running the failed job makes run attempt 2: attempt 1's dispatch is not its to take.
    const rerun = await runStep(
      job(
        8,
        { id: SECOND_RUN, attempt: 2, key: 'fanout', runner: 'runner-b2' },
        { node: 'b', 'journal-sha': sha },
      ),
    );
    expect(rerun.outputs.status).toBe('not-ready');
    expect(effectsOf('two')).toEqual([]);
    const journal = readJournal(server, 'two/issue-8');
    expect(eventsOf(journal, 'NodeRecorded')).toEqual([]);
    expect(eventsOf(journal, 'NodeInterrupted')).toEqual([]);
  });

  it('once every other job of the attempt ended, the next plan holds both (replay: never)', async () => {
    const repo = server.state.repo(FULL);
    repo.updateWorkflowRun(SECOND_RUN, {
      jobs: [
        { name: 'fanout (a)', status: 'completed', conclusion: 'cancelled' },
        { name: 'fanout (b)', status: 'completed', conclusion: 'cancelled' },
      ],
    });
    const plan = await runStep(
      job(8, { id: SECOND_RUN, key: 'plan-again', runner: 'runner-q' }, { mode: 'plan', dispatch: 'ready' }),
    );
    expect(plan.code, plan.stdout).toBe(0);
    const journal = readJournal(server, 'two/issue-8');
    expect(
      eventsOf(journal, 'NodeInterrupted')
        .map((e) => e.node)
        .sort(),
    ).toEqual(['a', 'b']);
    const state = validJournal(journal, join(makeWorkspace(FILES), '.github/interlock/two.yml'));
    expect(state.checkpoint.held_nodes).toEqual(['a', 'b']);
    expect(JSON.parse(plan.outputs.ready!)).toEqual([]);
    expect(effectsOf('two')).toEqual([]);
  });
});

describe("a job stopped in the work of its plan's dispatch", () => {
  it('its post step marks the node interrupted: the job took it, though the dispatch names no runner', async () => {
    const plan = await runStep(
      job(9, { id: THIRD_RUN, key: 'plan', runner: 'runner-p' }, { mode: 'plan', dispatch: 'ready' }),
    );
    expect(plan.code, plan.stdout).toBe(0);
    const main = job(
      9,
      { id: THIRD_RUN, key: 'fanout', runner: 'runner-s' },
      { node: 's', 'journal-sha': plan.outputs['journal-sha']! },
    );
    const running = startStep(main);
    await waitForFile(join(main.workspace, 'started'));
    running.child.kill('SIGTERM'); // what the runner sends when a workflow run is cancelled
    const cancelled = await running.done;
    expect(cancelled.state.claimed).toBe('s#1');
    const post = await runStep({ ...main, entry: 'post.js', state: cancelled.state });
    expect(post.code, post.stdout).toBe(0);
    expect(post.stdout).toContain('"s" was interrupted when the step stopped');
    const journal = readJournal(server, 'slow/issue-9');
    expect(eventsOf(journal, 'NodeInterrupted').map((e) => e.node)).toEqual(['s']);
    const state = validJournal(journal, join(main.workspace, '.github/interlock/slow.yml'));
    expect(state.checkpoint.held_nodes).toEqual(['s']);
  });
});
