// Sub-graphs through the bundled action (issue 28), as a workflow runs it: `mode: plan` expands the planner's
// list of 5 tasks into 5 sub-graphs (`graph: task.yml` with `for_each`) and lists each one's first node for the
// matrix; 5 jobs run one each (`node: work[t1]/build` ...) on one journal; the runner of work[t2]/build is killed
// mid-command, so the next plan holds it by its own name; work[t3]/build escalates in the `node: all` job and
// its sub-graph is tolerated; a maintainer's `/approve-rerun work[t2]/build` (mode: comment, which reads the
// sub-graph from the default branch) dispatches the run again, and the integrator runs once with the 4 outputs.
// Default isolation throughout.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep, startStep } from '../support/action-process.js';
import { type FanWorld, RUN, RUN_ID, startFanWorld } from './fan-world.js';
import { eventsOf, FULL, waitForFile } from './world.js';

const TASKS = JSON.stringify(['t1', 't2', 't3', 't4', 't5'].map((id) => ({ id, title: `Task ${id}` })));
const BUILDS = ['t1', 't2', 't3', 't4', 't5'].map((k) => `work[${k}]/build`);
const GRAPH = `interlock: 1
name: ship
nodes:
  - id: plan
    replay: safe
    outputs: [tasks]
    run: echo 'tasks=${TASKS}' >> "$INTERLOCK_OUTPUT"
  - id: work
    depends_on: [plan]
    for_each: \${{ fromJSON(nodes.plan.outputs.tasks) }}
    key: \${{ item.id }}
    max_parallel: 5
    tolerated_failures: 20%
    graph: task.yml
  - id: integrate
    depends_on: [work]
    env:
      ALL: \${{ toJSON(nodes.work.outputs) }}
    run: |
      echo "integrate $INTERLOCK_ATTEMPT" >> "$EFFECTS"
      printf '%s' "$ALL" > "$ALL_FILE"
`;
const TASK = `interlock: 1
name: task
nodes:
  - id: build
    env:
      TASK: \${{ item.id }}
    outputs: [built]
    run: |
      echo "$TASK $INTERLOCK_ATTEMPT" >> "$EFFECTS"
      if [ "$TASK" = t3 ]; then exit 1; fi
      if [ -f hang ]; then echo $$ > pid; touch started; sleep 300; fi
      echo "built=$TASK" >> "$INTERLOCK_OUTPUT"
  - id: check
    depends_on: [build]
    env:
      TITLE: \${{ item.title }}
    outputs: [done]
    run: echo "done=$TITLE done" >> "$INTERLOCK_OUTPUT"
`;
let w: FanWorld;
beforeAll(async () => {
  w = await startFanWorld({ 'ship.yml': GRAPH, 'task.yml': TASK }, BUILDS);
});
afterAll(async () => w?.server.close());

describe('sub-graphs through the bundled action: plan, a matrix of sub-graph nodes, the join', () => {
  it('plan lists the planner; its job records the list of 5 tasks', async () => {
    const p = await runStep(w.job('plan', 'runner-plan', { mode: 'plan' }));
    expect(JSON.parse(p.outputs.ready!)).toEqual(['plan']);
    const r = await runStep(w.job('planner', 'runner-planner', { node: 'plan' }));
    expect(r.outputs).toMatchObject({ node: 'plan', status: 'completed' });
  });

  it('the next plan expands the list and each sub-graph, and lists the 5 first nodes for strategy.matrix', async () => {
    const p = await runStep(w.job('plan', 'runner-plan', { mode: 'plan' }));
    expect(p.code, p.stdout).toBe(0);
    expect(p.stdout).toContain('interlock: expanded "work" into 5 instance(s)');
    expect(JSON.parse(p.outputs.ready!)).toEqual(BUILDS);
    const expanded = eventsOf(w.journal(), 'NodeExpanded');
    expect(expanded.map((e) => e.node)).toEqual([
      'work',
      'work[t1]',
      'work[t2]',
      'work[t3]',
      'work[t4]',
      'work[t5]',
    ]);
    // The sub-graph's hash is journaled with each expansion, and it is the one in the run's graph.
    const hash = expanded[0]!.graph!.hash;
    for (const e of expanded) expect(e.graph).toEqual({ path: 'task.yml', hash });
    expect(eventsOf(w.journal(), 'NodeDispatched').map((e) => e.node)).toEqual(['plan']);
  });

  it('5 matrix jobs run one sub-graph node each; the runner of work[t2]/build is killed mid-command', async () => {
    const hangWs = makeWorkspace(w.files);
    writeFileSync(join(hangWs, 'hang'), '');
    const killed = startStep(w.job('node', 'runner-2', { node: 'work[t2]/build' }, hangWs));
    const others = await Promise.all(
      [0, 2, 3, 4].map((i) => runStep(w.job('node', `runner-${i + 1}`, { node: BUILDS[i]! }))),
    );
    await waitForFile(join(hangWs, 'started'));
    killed.child.kill('SIGKILL');
    process.kill(-Number(readFileSync(join(hangWs, 'pid'), 'utf8')), 'SIGKILL');
    await killed.done;
    rmSync(join(hangWs, 'hang'));
    expect(others.map((r) => r.outputs.status)).toEqual(['completed', 'failed', 'completed', 'completed']);
    for (const id of BUILDS) expect(eventsOf(w.journal(), 'NodeDispatched', id), id).toHaveLength(1);
    w.server.state
      .repo(FULL)
      .updateWorkflowRun(RUN_ID, { jobs: [{ name: 'node (work[t2]/build)', conclusion: 'cancelled' }] });
  });

  it('the next plan holds work[t2]/build by its own name and lists the next nodes', async () => {
    const p = await runStep(w.job('plan', 'runner-plan', { mode: 'plan' }));
    expect(p.code, p.stdout).toBe(0);
    expect(JSON.parse(p.outputs.ready!)).toEqual([
      'work[t1]/check',
      'work[t3]/build',
      'work[t4]/check',
      'work[t5]/check',
    ]);
    expect(JSON.parse(p.outputs.checkpoint!).held_nodes).toEqual(['work[t2]/build']);
    expect(eventsOf(w.journal(), 'NodeInterrupted')).toMatchObject([{ node: 'work[t2]/build', attempt: 1 }]);
  });

  it('node: all runs the rest; work[t3]/build escalates; the run waits for a person about work[t2]/build', async () => {
    const r = await runStep(w.job('rest', 'runner-rest', { node: 'all' }));
    expect(r.stdout).toContain('"work[t3]/build" attempt 2 failed');
    expect(r.outputs.status).toBe('held');
    const comments = w.server.state
      .repo(FULL)
      .commentsOn(7)
      .map((c) => c.body);
    expect(comments.some((b) => b.includes('/approve-rerun work[t2]/build'))).toBe(true);
    expect(comments.find((b) => b.includes('5 instances'))).toMatch(
      /5 instances: 3 completed, 1 held \(work\[t2\]\), 1 escalated \(work\[t3\]\)/,
    );
  });

  it('/approve-rerun work[t2]/build releases it; the dispatched run finishes its sub-graph, tolerates work[t3], integrates once', async () => {
    const a = await w.comment('/approve-rerun work[t2]/build', 'mia');
    expect(a.outputs.status, a.stdout).toBe('completed');
    expect(eventsOf(w.journal(), 'RerunApproved')).toMatchObject([
      { node: 'work[t2]/build', attempt: 1, approved_by: 'mia' },
    ]);
    const dispatch = w.server.state.repo(FULL).dispatches.at(-1)!;
    expect(dispatch.inputs).toMatchObject({ 'run-id': RUN });
    const r = await w.dispatched();
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.outputs.checkpoint!).status).toBe('completed');
    expect(w.effects().sort()).toEqual([
      'integrate 1',
      't1 1',
      't2 1',
      't2 2',
      't3 1',
      't3 2',
      't4 1',
      't5 1',
    ]);
    expect(JSON.parse(readFileSync(w.ALL_FILE, 'utf8'))).toEqual([
      { built: 't1', done: 'Task t1 done' },
      { built: 't2', done: 'Task t2 done' },
      null,
      { built: 't4', done: 'Task t4 done' },
      { built: 't5', done: 'Task t5 done' },
    ]);
    expect(eventsOf(w.journal(), 'NodeJoined', 'work')).toMatchObject([
      { completed: ['work[t1]', 'work[t2]', 'work[t4]', 'work[t5]'], tolerated: ['work[t3]'] },
    ]);
    expect(eventsOf(w.journal(), 'NodeDispatched', 'integrate')).toHaveLength(1);
  });
});
