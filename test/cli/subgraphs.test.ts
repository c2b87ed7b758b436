// Sub-graphs through the bundled CLI (issue 28), as real processes: a planner's list of 5 tasks becomes 5
// sub-graphs (`graph: task.yml` with `for_each`), each of two nodes; one sub-graph's node is killed mid-command
// and held, then approved by its own name (`work[t2]/build`); one escalates, and its sub-graph is tolerated; the
// integrator runs once with the 4 sub-graphs' outputs. A sub-graph with `repeat:` runs at most 3 cycles, each
// with new idempotency keys; `rerun-from` reruns exactly the dependents, sub-graphs included.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupSandboxes, eventsOf, killGroup, requireBundle, sandbox, waitFor } from '../crash/harness.js';

const RUN = 'fan/local';
const TASKS = JSON.stringify(['t1', 't2', 't3', 't4', 't5'].map((id) => ({ id, title: `Task ${id}` })));
const GRAPH = `interlock: 1
name: fan
nodes:
  - id: plan
    replay: safe
    outputs: [tasks]
    run: echo 'tasks=${TASKS}' >> "$INTERLOCK_OUTPUT"
  - id: work
    depends_on: [plan]
    for_each: \${{ fromJSON(nodes.plan.outputs.tasks) }}
    key: \${{ item.id }}
    tolerated_failures: 1
    graph: task.yml
  - id: integrate
    depends_on: [work]
    env:
      ALL: \${{ toJSON(nodes.work.outputs) }}
    run: |
      echo "integrate $INTERLOCK_ATTEMPT" >> effects.txt
      printf '%s' "$ALL" > all.json
`;
// The sub-graph run once per task: its nodes read the task as `item`, and each other as nodes.<id>.
const TASK = `interlock: 1
name: task
nodes:
  - id: build
    env:
      TASK: \${{ item.id }}
    outputs: [built]
    run: |
      echo "build $TASK $INTERLOCK_ATTEMPT $INTERLOCK_IDEMPOTENCY_KEY" >> effects.txt
      if [ "$TASK" = t3 ]; then exit 1; fi
      if [ "$TASK" = t2 ] && [ -f hang ]; then rm hang; echo $$ > pid.txt; touch started; sleep 300; fi
      echo "built=$TASK" >> "$INTERLOCK_OUTPUT"
  - id: check
    depends_on: [build]
    env:
      BUILT: \${{ nodes.build.outputs.built }}
      TITLE: \${{ item.title }}
    outputs: [done]
    run: |
      echo "check $BUILT" >> effects.txt
      echo "done=$TITLE checked $BUILT" >> "$INTERLOCK_OUTPUT"
`;

beforeAll(() => requireBundle());
afterEach(cleanupSandboxes);

describe('sub-graphs through the CLI', () => {
  it('a sub-graph per item: one node killed, held and approved by its name, one escalated and tolerated, the integrator once with 4 outputs', async (ctx) => {
    const s = sandbox(ctx, 'interlock-subgraph-');
    s.write('g.yml', GRAPH);
    s.write('task.yml', TASK);
    const run = (...args: string[]) => s.cli(['run', 'g.yml', '--run-id', RUN, ...args]);
    expect((await run('--node', 'plan')).code).toBe(0);
    expect((await run('--node', 'work')).stderr).toContain('expanded "work" into 5 instance(s)');
    // Each instance is a sub-graph node: asked for, it expands into its own nodes, named under it.
    for (const k of ['t1', 't2', 't3', 't4', 't5']) {
      const r = await run('--node', `work[${k}]`);
      expect(r.stderr).toContain(
        `expanded "work[${k}]" into its sub-graph: work[${k}]/build, work[${k}]/check`,
      );
    }
    expect((await s.status(RUN)).ready_nodes).toEqual(
      ['t1', 't2', 't3', 't4', 't5'].map((k) => `work[${k}]/build`),
    );

    // work[t2]/build hangs and its CLI is killed; the other builds run at the same time.
    s.write('hang', '');
    const killed = s.start(['run', 'g.yml', '--run-id', RUN, '--node', 'work[t2]/build']);
    const others = ['t1', 't3', 't4', 't5'].map((k) => run('--node', `work[${k}]/build`));
    await waitFor(() => s.exists('started'), { what: 'work[t2]/build to hang' });
    killed.child.kill('SIGKILL');
    killGroup(Number(s.read('pid.txt')!.trim()));
    expect((await killed.exited).signal).toBe('SIGKILL');
    expect((await Promise.all(others)).map((r) => r.code)).toEqual([0, 1, 0, 0]);

    // Recovery holds the killed node by its own name.
    expect((await s.cli(['recover', '--run-id', RUN])).code).toBe(0);
    const rest = await run('--all');
    expect(rest.stderr).toContain('"work[t3]/build" attempt 2 failed');
    let cp = await s.status(RUN);
    expect(cp.held_nodes).toEqual(['work[t2]/build']);
    expect(cp.escalated_nodes).toEqual(['work[t3]/build']);
    expect(cp.status).toBe('blocked');
    const text = await s.cli(['status', '--run-id', RUN]);
    expect(text.stdout).toContain(`interlock approve-rerun 'work[t2]/build' --run-id ${RUN}`);

    const approve = await s.cli(['approve-rerun', 'work[t2]/build', '--run-id', RUN, '--by', 'ann']);
    expect(approve.code, approve.stderr).toBe(0);
    const end = await run('--all');
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toContain('joined "work", tolerating work[t3]');
    cp = await s.status(RUN);
    expect(cp.status).toBe('completed');
    // The run ended: its status offers no command for the tolerated sub-graph's escalated node.
    expect((await s.cli(['status', '--run-id', RUN])).stdout).not.toContain('approve-rerun');
    const effects = s.lines('effects.txt').map((l) => l.split(' ').slice(0, 3).join(' '));
    expect(effects.sort()).toEqual(
      [
        ...['t1 1', 't2 1', 't2 2', 't3 1', 't3 2', 't4 1', 't5 1'].map((e) => `build ${e}`),
        ...['t1', 't2', 't4', 't5'].map((k) => `check ${k}`),
        'integrate 1',
      ].sort(),
    );
    // A sub-graph's node has its sub-graph node's key before its own id.
    expect(s.lines('effects.txt').find((l) => l.startsWith('build t4 '))).toContain(`${RUN}/work[t4]/build`);
    expect(JSON.parse(s.read('all.json')!)).toEqual([
      { built: 't1', done: 'Task t1 checked t1' },
      { built: 't2', done: 'Task t2 checked t2' },
      null,
      { built: 't4', done: 'Task t4 checked t4' },
      { built: 't5', done: 'Task t5 checked t5' },
    ]);
    const journal = s.journal(RUN);
    // The child graph's hash is journaled with each expansion.
    const expansions = eventsOf(journal, 'NodeExpanded');
    expect(expansions).toHaveLength(6);
    const hash = expansions[0]!.graph!.hash;
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const e of expansions) expect(e.graph).toEqual({ path: 'task.yml', hash });
    expect(eventsOf(journal, 'RerunApproved')).toMatchObject([
      { node: 'work[t2]/build', approved_by: 'ann' },
    ]);
    expect(eventsOf(journal, 'NodeJoined').at(-1)).toMatchObject({
      node: 'work',
      completed: ['work[t1]', 'work[t2]', 'work[t4]', 'work[t5]'],
      tolerated: ['work[t3]'],
    });
    expect(eventsOf(journal, 'NodeDispatched', 'integrate')).toHaveLength(1);
  }, 180_000);

  it('a sub-graph changed under a run is a change of the graph: refused, then allowed by a person, and the run goes on', async (ctx) => {
    const s = sandbox(ctx, 'interlock-subgraph-');
    s.write('g.yml', GRAPH);
    s.write('task.yml', TASK);
    expect((await s.cli(['run', 'g.yml', '--run-id', RUN, '--node', 'plan'])).code).toBe(0);
    // Expanded under the first child graph, and one of its nodes run; then the file changes.
    expect((await s.cli(['run', 'g.yml', '--run-id', RUN, '--node', 'work'])).code).toBe(0);
    expect((await s.cli(['run', 'g.yml', '--run-id', RUN, '--node', 'work[t1]'])).code).toBe(0);
    expect((await s.cli(['run', 'g.yml', '--run-id', RUN, '--node', 'work[t1]/build'])).code).toBe(0);
    s.write('task.yml', TASK.replace('echo "check $BUILT"', 'echo "check changed $BUILT"'));
    const r = await s.cli(['run', 'g.yml', '--run-id', RUN, '--all']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the graph changed since the run started');
    // The run stays readable, and a person may let it go on under the new child graph.
    expect((await s.cli(['status', '--run-id', RUN])).code).toBe(0);
    const allowed = await s.cli([
      'run',
      'g.yml',
      '--run-id',
      RUN,
      '--all',
      '--allow-graph-change',
      '--by',
      'ann',
    ]);
    expect(allowed.stderr).toContain('"work[t3]/build" attempt 2 failed');
    expect(s.lines('effects.txt')).toContain('check changed t1');
    expect(eventsOf(s.journal(RUN), 'GraphChangeAllowed')).toMatchObject([{ by: 'ann' }]);
  }, 60_000);
});
