import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep, type StepOptions } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from './world.js';

const GRAPH = `interlock: 1
name: fix
nodes:
  - id: plan
    run: echo plan >> effects.log
  - id: build
    depends_on: [plan]
    run: echo build >> effects.log
  - id: ship
    depends_on: [build]
    run: echo ship >> effects.log
`;

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  const repo = server.state.repo(FULL);
  repo.addIssue({ number: 61, title: 'Route me', labels: ['agent:fix'] });
  repo.addIssue({ number: 62, title: 'Stall', labels: ['agent:fix'] });
});
afterAll(async () => server?.close());

const errors = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('::error'));

describe('routing', () => {
  it('no matching route ends the step cleanly with status no-route and a notice, without calling GitHub', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:fix', '.github/interlock/fix.yml'),
      '.github/interlock/fix.yml': GRAPH,
    });
    const mark = server.requests.mark();
    const r = await runStep(issueStep(server, ws, 61, 'agent:docs'));
    expect(r.code).toBe(0);
    expect(r.outputs).toEqual({ status: 'no-route' });
    expect(r.stdout).toContain(
      '::notice::no route in .github/interlock.yml matches issues.labeled; nothing to run',
    );
    expect(errors(r.stdout)).toEqual([]);
    expect(server.requests.count({ since: mark })).toBe(0);
  });

  it('a bad .github/interlock.yml fails the step with one file:line:col annotation, and no second error line', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': `routes:
  - event: issues
    action: labeled
    lable: "agent:fix"
    graph: .github/interlock/fix.yml
`,
      '.github/interlock/fix.yml': GRAPH,
    });
    const r = await runStep(issueStep(server, ws, 61, 'agent:fix'));
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(errors(r.stdout)).toEqual([
      '::error file=.github/interlock.yml,line=4,col=5::routes[0]: unknown field "lable" (did you mean "label"?)',
    ]);
    // The located message is still in the log, as a plain line.
    expect(r.stdout).toContain('.github/interlock.yml:4:5: routes[0]: unknown field "lable"');
  });

  it("a misspelt top-level field of .github/interlock.yml is worded from the config schema, not the graph's", async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': `${routeLabel('agent:fix', '.github/interlock/fix.yml')}approval:\n  permission: write\n`,
      '.github/interlock/fix.yml': GRAPH,
    });
    const r = await runStep(issueStep(server, ws, 61, 'agent:fix'));
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(errors(r.stdout)).toEqual([
      '::error file=.github/interlock.yml,line=6,col=1::config: unknown field "approval" (did you mean "approvals"?)',
    ]);
    expect(r.stdout).not.toContain('nodes');
    expect(r.summary).toContain('unknown field "approval"');
  });

  it('a route whose graph file is missing is reported on the route, naming it and the path', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:fix', '.github/interlock/fixx.yml'),
      '.github/interlock/fix.yml': GRAPH,
    });
    const r = await runStep(issueStep(server, ws, 61, 'agent:fix'));
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(errors(r.stdout)).toEqual([
      "::error file=.github/interlock.yml,line=5,col=12::routes[0] names the graph .github/interlock/fixx.yml, which cannot be read (no such file): add that file, or fix the route's graph: path (from the repository root)",
    ]);
    expect(r.summary).toContain('routes[0]');
  });

  it('no route writes a job summary that says why', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:fix', '.github/interlock/fix.yml'),
      '.github/interlock/fix.yml': GRAPH,
    });
    const r = await runStep(issueStep(server, ws, 61, 'agent:docs'));
    expect(r.outputs.status).toBe('no-route');
    expect(r.summary).toContain('`no-route`');
    expect(r.summary).toContain('no route in .github/interlock.yml matches issues.labeled');
  });

  it('a step that throws before any mode runs still sets status=failed and writes a job summary', async () => {
    const ws = makeWorkspace({ '.github/interlock/fix.yml': GRAPH });
    const r = await runStep({ ...issueStep(server, ws, 61, 'agent:fix'), inputs: { 'run-id': '../escape' } });
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(r.summary).toContain('`failed`');
    expect(r.summary).toContain('run-id "../escape" is not allowed');
  });

  it('a bad graph fails the step with one file:line:col annotation relative to the repository, and no second error line', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:fix', '.github/interlock/fix.yml'),
      '.github/interlock/fix.yml': GRAPH.replace('depends_on: [plan]', 'depends_on: [pla]'),
    });
    const r = await runStep(issueStep(server, ws, 61, 'agent:fix'));
    expect(r.code).toBe(1);
    const message = 'node "build" depends on "pla", which is not a node (did you mean "plan"?)';
    expect(errors(r.stdout)).toEqual([`::error file=.github/interlock/fix.yml,line=7,col=18::${message}`]);
    expect(r.stdout).toContain(`.github/interlock/fix.yml:7:18: ${message}`);
    expect(r.stdout).not.toContain(ws);
  });
});

describe('mode: stuck', () => {
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:fix', '.github/interlock/fix.yml'),
    '.github/interlock/fix.yml': GRAPH,
  });
  const scheduled = (): StepOptions => ({
    ...issueStep(server, ws, 62, 'agent:fix'),
    eventName: 'schedule',
    payload: { schedule: '*/15 * * * *' },
    inputs: { mode: 'stuck', 'stuck-after': '400ms' },
  });
  const stuckComments = () =>
    server.state
      .repo(FULL)
      .commentsOn(62)
      .filter((c) => c.body.startsWith('<!-- interlock:stuck fix/issue-62 '));

  /** Waits until the run's last event is older than the threshold: the run is idle, by the clock. */
  async function idle(ms = 450): Promise<void> {
    const last = readJournal(server, 'fix/issue-62').events.at(-1)!;
    const end = Date.parse(last.at) + ms;
    while (Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  }

  it('reports an idle run on its subject once per stall: a second scheduled run posts nothing new', async () => {
    expect((await runStep(issueStep(server, ws, 62, 'agent:fix'))).outputs.status).toBe('completed');
    const patient = await runStep({ ...scheduled(), inputs: { mode: 'stuck', 'stuck-after': '1h' } });
    expect(patient.code).toBe(0);
    expect(JSON.parse(patient.outputs.stuck!)).toEqual([]);

    await idle();
    const first = await runStep(scheduled());
    expect(first.code).toBe(0);
    expect(JSON.parse(first.outputs.stuck!)).toEqual([
      expect.objectContaining({ run_id: 'fix/issue-62', last_event: 'NodeRecorded', subject: 'issue-62' }),
    ]);
    expect(first.stdout).toContain('::warning::interlock: run fix/issue-62 has had no activity');
    expect(stuckComments()).toHaveLength(1);
    expect(stuckComments()[0]!.body).toContain('no activity');

    const second = await runStep(scheduled());
    expect(second.code).toBe(0);
    expect(JSON.parse(second.outputs.stuck!)).toHaveLength(1);
    expect(stuckComments()).toHaveLength(1);

    // The run moves on, then stalls again: that is a new stall, reported once more.
    expect((await runStep(issueStep(server, ws, 62, 'agent:fix'))).outputs.node).toBe('build');
    await idle();
    await runStep(scheduled());
    await runStep(scheduled());
    expect(stuckComments()).toHaveLength(2);
  });
});
