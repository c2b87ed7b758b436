// `mode: stuck` and a runner lost whole (killed with its job: no post step): the next scheduled run asks GitHub
// whether the attempt's workflow run has ended, records NodeInterrupted, holds the `never` node and asks a person,
// without waiting for `stuck-after`. Through the bundled action, on the local GitHub.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep, type StepOptions, startStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import {
  endWorkflowRun,
  eventsOf,
  FULL,
  issueStep,
  OWNER,
  REPO,
  readJournal,
  routeLabel,
  validJournal,
  waitForFile,
} from './world.js';

const GRAPH = `interlock: 1
name: lost
nodes:
  - id: work
    replay: never
    run: |
      echo "work $INTERLOCK_ATTEMPT" >> effects.log
      echo $$ > pid; touch started; sleep 30
`;
const GRAPH_FILE = '.github/interlock/lost.yml';
const FILES = { '.github/interlock.yml': routeLabel('agent:lost', GRAPH_FILE), [GRAPH_FILE]: GRAPH };
const RUN = 'lost/issue-70';

let server: GitHubServer;
beforeAll(async () => {
  // The graph is on the default branch too: the stuck workflow has no checkout and reads it from there.
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO, files: FILES }] });
  server.state.repo(FULL).addIssue({ number: 70, title: 'Lost runner', labels: ['agent:lost'] });
});
afterAll(async () => server?.close());

/** A scheduled `mode: stuck` step in a workflow run of its own, with no checkout of the repository. */
const scheduled = (): StepOptions => ({
  ...issueStep(server, makeWorkspace({}), 70, 'agent:lost'),
  eventName: 'schedule',
  payload: { schedule: '17 * * * *' },
  inputs: { mode: 'stuck', 'stuck-after': '24h' },
});

const attention = () =>
  server.state
    .repo(FULL)
    .commentsOn(70)
    .filter((c) => c.body.startsWith(`<!-- interlock:attention ${RUN} work 1 -->`));

describe('mode: stuck finds a runner that was lost whole', () => {
  it('records the interruption once its workflow run has ended, holds the never node and asks a person', async () => {
    const ws = makeWorkspace(FILES);
    const main = issueStep(server, ws, 70, 'agent:lost');
    const running = startStep(main);
    await waitForFile(join(ws, 'started'));
    running.child.kill('SIGKILL'); // the runner is gone: no signal handler, no post step
    await running.done;
    process.kill(-Number(readFileSync(join(ws, 'pid'), 'utf8')), 'SIGKILL');
    expect(readJournal(server, RUN).events.at(-1)).toMatchObject({ type: 'NodeDispatched', node: 'work' });

    // GitHub has not noticed yet (the job still shows as running): the attempt is left alone.
    const early = await runStep(scheduled());
    expect(early.code, early.stdout).toBe(0);
    expect(eventsOf(readJournal(server, RUN), 'NodeInterrupted')).toEqual([]);
    expect(attention()).toEqual([]);

    endWorkflowRun(server.state.repo(FULL), main.job.runId);
    const tickOpts = scheduled();
    const tick = await runStep(tickOpts);
    expect(tick.code, tick.stdout).toBe(0);
    const journal = readJournal(server, RUN);
    const state = validJournal(journal, join(ws, GRAPH_FILE));
    expect(eventsOf(journal, 'NodeInterrupted')).toEqual([
      expect.objectContaining({
        node: 'work',
        attempt: 1,
        by: `interlock mode: stuck (workflow run ${tickOpts.job.runId})`,
      }),
    ]);
    expect(state.checkpoint.held_nodes).toEqual(['work']);
    expect(tick.stdout).toContain(
      `::warning::interlock: run ${RUN}: "work" was in flight in a workflow run that has ended (its runner was lost); held until a person approves a rerun or settles it`,
    );
    expect(tick.summary).toContain(
      `- \`${RUN}\`: its runner was lost; interrupted \`work\`; held for a person: \`/approve-rerun work ${RUN}\``,
    );
    // Not idle: the run just had news, so it is not in the stuck list.
    expect(JSON.parse(tick.outputs.stuck!)).toEqual([]);
    expect(attention()).toHaveLength(1);
    expect(attention()[0]!.body).toContain('/approve-rerun work');
    expect(server.state.repo(FULL).issue(70)!.labels).toContain('interlock: needs human');

    // The next tick finds the node held, not in flight: nothing is recorded or asked twice.
    const again = await runStep(scheduled());
    expect(again.code).toBe(0);
    expect(eventsOf(readJournal(server, RUN), 'NodeInterrupted')).toHaveLength(1);
    expect(attention()).toHaveLength(1);
    expect(readFileSync(join(ws, 'effects.log'), 'utf8')).toBe('work 1\n');
  });
});
