// for_each through the bundled action (issue 28), as a workflow runs it: `mode: plan` expands the planner's list of
// 5 tasks into 5 instances for the matrix; 5 jobs run one instance each (`node: work[t1]` ...) on one journal;
// the runner of work[t2] is killed mid-command, so the next plan holds it; work[t3] escalates in the `node: all`
// job and is tolerated; a maintainer's `/approve-rerun work[t2]` (mode: comment) dispatches the run again, and
// the integrator runs once with the 4 outputs. Default isolation throughout.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep, startStep } from '../support/action-process.js';
import { renderedShape } from '../support/gfm.js';
import { type FanWorld, RUN, RUN_ID, startFanWorld } from './fan-world.js';
import { eventsOf, FULL, waitForFile } from './world.js';

const TASKS = JSON.stringify(['t1', 't2', 't3', 't4', 't5'].map((id) => ({ id, title: `Task ${id}` })));
const INSTANCES = ['t1', 't2', 't3', 't4', 't5'].map((k) => `work[${k}]`);
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
    env:
      TASK: \${{ item.id }}
      TITLE: \${{ item.title }}
    outputs: [done]
    run: |
      echo "$TASK $INTERLOCK_ATTEMPT" >> "$EFFECTS"
      if [ "$TASK" = t3 ]; then exit 1; fi
      if [ -f hang ]; then echo $$ > pid; touch started; sleep 300; fi
      echo "done=$TITLE done" >> "$INTERLOCK_OUTPUT"
  - id: integrate
    depends_on: [work]
    env:
      ALL: \${{ toJSON(nodes.work.outputs) }}
    run: |
      echo "integrate $INTERLOCK_ATTEMPT" >> "$EFFECTS"
      printf '%s' "$ALL" > "$ALL_FILE"
`;
let w: FanWorld;
beforeAll(async () => {
  w = await startFanWorld({ 'ship.yml': GRAPH }, INSTANCES);
});
afterAll(async () => w?.server.close());

describe('a for_each fan-out through the bundled action: plan, a matrix of instances, the join', () => {
  it('plan lists the planner; its job records the list of 5 tasks', async () => {
    const p = await runStep(w.job('plan', 'runner-plan', { mode: 'plan' }));
    expect(p.code, p.stdout).toBe(0);
    expect(JSON.parse(p.outputs.ready!)).toEqual(['plan']);
    const r = await runStep(w.job('planner', 'runner-planner', { node: 'plan' }));
    expect(r.outputs).toMatchObject({ node: 'plan', status: 'completed' });
  });

  it('the next plan journals NodeExpanded and lists the 5 instances for strategy.matrix', async () => {
    const p = await runStep(w.job('plan', 'runner-plan', { mode: 'plan' }));
    expect(p.code, p.stdout).toBe(0);
    expect(p.stdout).toContain('interlock: expanded "work" into 5 instance(s)');
    expect(JSON.parse(p.outputs.ready!)).toEqual(INSTANCES);
    const expanded = eventsOf(w.journal(), 'NodeExpanded', 'work');
    expect(expanded).toHaveLength(1);
    expect(expanded[0]!.items!.map((i) => i.key)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect(eventsOf(w.journal(), 'NodeDispatched').map((e) => e.node)).toEqual(['plan']);
  });

  it('5 matrix jobs run one instance each; the runner of work[t2] is killed mid-command', async () => {
    const hangWs = makeWorkspace(w.files);
    writeFileSync(join(hangWs, 'hang'), '');
    const killed = startStep(w.job('node', 'runner-2', { node: 'work[t2]' }, hangWs));
    const others = await Promise.all(
      [0, 2, 3, 4].map((i) => runStep(w.job('node', `runner-${i + 1}`, { node: INSTANCES[i]! }))),
    );
    await waitForFile(join(hangWs, 'started'));
    killed.child.kill('SIGKILL');
    process.kill(-Number(readFileSync(join(hangWs, 'pid'), 'utf8')), 'SIGKILL');
    await killed.done;
    rmSync(join(hangWs, 'hang'));
    expect(others.map((r) => r.outputs.status)).toEqual(['completed', 'failed', 'completed', 'completed']);
    for (const id of INSTANCES) expect(eventsOf(w.journal(), 'NodeDispatched', id), id).toHaveLength(1);
    // GitHub shows the killed job ended.
    w.server.state
      .repo(FULL)
      .updateWorkflowRun(RUN_ID, { jobs: [{ name: 'node (work[t2])', conclusion: 'cancelled' }] });
  });

  it('the next plan holds work[t2] by its own name and lists the retry of work[t3]', async () => {
    const p = await runStep(w.job('plan', 'runner-plan', { mode: 'plan' }));
    expect(p.code, p.stdout).toBe(0);
    expect(JSON.parse(p.outputs.ready!)).toEqual(['work[t3]']);
    const cp = JSON.parse(p.outputs.checkpoint!);
    expect(cp.held_nodes).toEqual(['work[t2]']);
    expect(eventsOf(w.journal(), 'NodeInterrupted')).toMatchObject([{ node: 'work[t2]', attempt: 1 }]);
  });

  it('node: all runs work[t3] again, which escalates; the run waits for a person about work[t2]', async () => {
    const r = await runStep(w.job('rest', 'runner-rest', { node: 'all' }));
    expect(r.stdout).toContain('"work[t3]" attempt 2 failed');
    expect(r.outputs.status).toBe('held');
    const comments = w.server.state
      .repo(FULL)
      .commentsOn(7)
      .map((c) => c.body);
    expect(comments.some((b) => b.includes('/approve-rerun work[t2]'))).toBe(true);
    const progress = comments.find((b) => b.includes('5 instances'));
    // Instance names come from an output: they pass the door (src/render/door.ts), read here as GitHub shows them.
    expect(renderedShape(progress!).text).toMatch(
      /5 instances: 3 completed, 1 held \(work\[t2\]\), 1 escalated \(work\[t3\]\)/,
    );
  });

  it('/approve-rerun work[t2] releases it; the dispatched run reruns only it, joins past work[t3], and integrates once', async () => {
    const a = await w.comment('/approve-rerun work[t2]', 'mia');
    expect(a.outputs.status, a.stdout).toBe('completed');
    expect(eventsOf(w.journal(), 'RerunApproved')).toMatchObject([
      { node: 'work[t2]', attempt: 1, approved_by: 'mia' },
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
      { done: 'Task t1 done' },
      { done: 'Task t2 done' },
      null,
      { done: 'Task t4 done' },
      { done: 'Task t5 done' },
    ]);
    expect(eventsOf(w.journal(), 'NodeJoined')).toMatchObject([
      { node: 'work', completed: ['work[t1]', 'work[t2]', 'work[t4]', 'work[t5]'], tolerated: ['work[t3]'] },
    ]);
    expect(eventsOf(w.journal(), 'NodeExpanded')).toHaveLength(1);
    expect(eventsOf(w.journal(), 'NodeDispatched', 'integrate')).toHaveLength(1);
  });
});
