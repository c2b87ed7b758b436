// for_each through the bundled CLI (issue 28), as real processes: a planner's list of 5 tasks becomes 5 instances
// run as separate processes on one journal; one is killed mid-command (SIGKILL of the CLI and of the command's
// group) and held, then approved by its own name; one escalates and is tolerated; the integrator runs once, with
// the 4 outputs in item order.
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
    env:
      TASK: \${{ item.id }}
      TITLE: \${{ item.title }}
    outputs: [done]
    run: |
      echo "$TASK $INTERLOCK_ATTEMPT $INTERLOCK_IDEMPOTENCY_KEY" >> effects.txt
      if [ "$TASK" = t3 ]; then exit 1; fi
      if [ "$TASK" = t2 ] && [ -f hang ]; then rm hang; echo $$ > pid.txt; touch started; sleep 300; fi
      echo "done=$TITLE done" >> "$INTERLOCK_OUTPUT"
  - id: integrate
    depends_on: [work]
    env:
      ALL: \${{ toJSON(nodes.work.outputs) }}
    run: |
      echo "integrate $INTERLOCK_ATTEMPT" >> effects.txt
      printf '%s' "$ALL" > all.json
`;

beforeAll(() => requireBundle());
afterEach(cleanupSandboxes);

describe('a for_each fan-out through the CLI', () => {
  it('5 instances, one killed, held and approved by its name, one escalated and tolerated, the integrator once with 4 outputs', async (ctx) => {
    const s = sandbox(ctx, 'interlock-foreach-');
    s.write('g.yml', GRAPH);
    const run = (...args: string[]) => s.cli(['run', 'g.yml', '--run-id', RUN, ...args]);
    expect((await run('--node', 'plan')).code).toBe(0);
    // Asking for the for_each node expands it: the list is journaled before any instance runs.
    const expanded = await run('--node', 'work');
    expect(expanded.code, expanded.stderr).toBe(0);
    expect(expanded.stderr).toContain(
      'expanded "work" into 5 instance(s): work[t1], work[t2], work[t3], work[t4], work[t5]',
    );
    expect((await s.status(RUN)).ready_nodes).toEqual([
      'work[t1]',
      'work[t2]',
      'work[t3]',
      'work[t4]',
      'work[t5]',
    ]);

    // work[t2] hangs and its CLI is killed, as a crash stops it; the other four run at the same time.
    s.write('hang', '');
    const killed = s.start(['run', 'g.yml', '--run-id', RUN, '--node', 'work[t2]']);
    const others = ['t1', 't3', 't4', 't5'].map((k) => run('--node', `work[${k}]`));
    await waitFor(() => s.exists('started'), { what: 'work[t2] to hang' });
    killed.child.kill('SIGKILL');
    killGroup(Number(s.read('pid.txt')!.trim()));
    expect((await killed.exited).signal).toBe('SIGKILL');
    const codes = (await Promise.all(others)).map((r) => r.code);
    expect(codes).toEqual([0, 1, 0, 0]); // work[t3] failed its first attempt

    // Recovery holds the killed instance by its own name; the others are left as they are.
    const rec = await s.cli(['recover', '--run-id', RUN]);
    expect(rec.code, rec.stderr).toBe(0);
    let cp = await s.status(RUN);
    expect(cp.held_nodes).toEqual(['work[t2]']);
    expect(cp.attempts).toMatchObject({ 'work[t1]': 1, 'work[t2]': 1, 'work[t3]': 1 });

    // The rest: work[t3] escalates on its second attempt; the run waits for a person about work[t2].
    const rest = await run('--all');
    expect(rest.stderr).toContain('"work[t3]" attempt 2 failed');
    cp = await s.status(RUN);
    expect(cp.held_nodes).toEqual(['work[t2]']);
    expect(cp.status).toBe('blocked');
    const text = await s.cli(['status', '--run-id', RUN]);
    expect(text.stdout).toMatch(
      /work\s+expanded\s+0\s+\S+\s+5 instances: 3 completed, 1 held \(work\[t2\]\), 1 escalated \(work\[t3\]\)/,
    );
    expect(text.stdout).toContain('  work[t2]');
    // The commands to copy quote the instance's name: unquoted, work[t2] is a shell pattern.
    expect(text.stdout).toContain(`interlock approve-rerun 'work[t2]' --run-id ${RUN}`);

    // Approved by its own name: only work[t2] runs again; the join tolerates work[t3]; integrate runs once.
    const approve = await s.cli(['approve-rerun', 'work[t2]', '--run-id', RUN, '--by', 'ann']);
    expect(approve.code, approve.stderr).toBe(0);
    const end = await run('--all');
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toContain('joined "work", tolerating work[t3]');
    cp = await s.status(RUN);
    expect(cp.status).toBe('completed');
    const effects = s.lines('effects.txt').map((l) => l.split(' ').slice(0, 2).join(' '));
    expect(effects.sort()).toEqual(
      ['t1 1', 't2 1', 't2 2', 't3 1', 't3 2', 't4 1', 't5 1', 'integrate 1'].sort(),
    );
    // Each instance's idempotency key is its own.
    expect(s.lines('effects.txt').find((l) => l.startsWith('t4 '))).toContain(`${RUN}/work[t4]`);
    expect(JSON.parse(s.read('all.json')!)).toEqual([
      { done: 'Task t1 done' },
      { done: 'Task t2 done' },
      null,
      { done: 'Task t4 done' },
      { done: 'Task t5 done' },
    ]);
    const journal = s.journal(RUN);
    expect(eventsOf(journal, 'NodeExpanded')).toHaveLength(1);
    expect(eventsOf(journal, 'RerunApproved')).toMatchObject([{ node: 'work[t2]', approved_by: 'ann' }]);
    expect(eventsOf(journal, 'NodeJoined')).toMatchObject([
      { node: 'work', completed: ['work[t1]', 'work[t2]', 'work[t4]', 'work[t5]'], tolerated: ['work[t3]'] },
    ]);
    expect(eventsOf(journal, 'NodeDispatched', 'integrate')).toHaveLength(1);
  }, 180_000);
});
