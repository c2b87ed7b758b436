// Crash tests with real processes: the bundled CLI is SIGKILLed (or stopped with SIGTERM) mid-node, or kills
// itself at a failpoint, and what follows (recover, run, approve-rerun) must never run a `replay: never`
// node's side effect again without a named person's approval, while a `replay: safe` node simply reruns.
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Checkpoint,
  cleanupSandboxes,
  type Exit,
  eventsOf,
  processGone,
  requireBundle,
  type Sandbox,
  sandbox,
  waitFor,
} from './harness.js';

const RUN = 'crash';
const TEST_TIMEOUT = 180_000;

/**
 * `effect` appends one line per attempt to side.txt (the side effect that must not repeat), keeps its
 * pid and attempt context, touches a marker, and hangs once when the file `hang` exists. `prep` is there so the
 * journal exists before the crash under test.
 */
function graph(replay: 'never' | 'safe'): string {
  return `interlock: 1
name: ${RUN}
nodes:
  - id: prep
    replay: safe
    run: echo prepared > prep.txt
  - id: effect
    replay: ${replay}
    run: |
      echo "effect attempt $INTERLOCK_ATTEMPT" >> side.txt
      echo $$ > pid.txt
      cp "$INTERLOCK_CONTEXT" "context-$INTERLOCK_ATTEMPT.json"
      touch started
      if [ -f hang ]; then rm hang; sleep 300; fi
`;
}

beforeAll(() => requireBundle());
afterEach(cleanupSandboxes);

function setup(ctx: { task: { id: string } }, replay: 'never' | 'safe'): Sandbox {
  const s = sandbox(ctx);
  s.write('g.yml', graph(replay));
  return s;
}

async function runPrep(s: Sandbox): Promise<void> {
  const r = await s.cli(['run', 'g.yml', '--node', 'prep']);
  expect(r.code, r.stderr).toBe(0);
}

/** Starts `run --node effect` with the command hanging; once the command has started, signals the CLI. */
async function signalMidFlight(
  s: Sandbox,
  signal: 'SIGKILL' | 'SIGTERM',
): Promise<{ pid: number; exit: Exit }> {
  s.write('hang', '');
  const run = s.start(['run', 'g.yml', '--node', 'effect']);
  // The command removes `hang` just before it sleeps, so no later attempt hangs.
  await waitFor(() => s.exists('started') && !s.exists('hang'), { what: 'the node command to hang' });
  const pid = Number(s.read('pid.txt')!.trim());
  expect(Number.isInteger(pid) && pid > 0).toBe(true);
  run.child.kill(signal);
  return { pid, exit: await run.exited };
}

/** SIGKILLs the CLI mid-command, the way a crash stops it; returns the pid of the command it leaves running. */
async function killMidFlight(s: Sandbox): Promise<number> {
  const { pid, exit } = await signalMidFlight(s, 'SIGKILL');
  expect(exit.signal).toBe('SIGKILL');
  expect(processGone(pid)).toBe(false);
  return pid;
}

/** Kills the orphaned command's process group, as a person (or the machine's shutdown) would. */
async function killOrphan(pid: number): Promise<void> {
  process.kill(-pid, 'SIGKILL');
  await waitFor(() => processGone(pid), { what: `the orphaned command (pid ${pid}) to exit` });
}

function expectCheckpoint(cp: Checkpoint, want: Partial<Checkpoint>): void {
  expect(cp).toMatchObject(want);
}

describe.concurrent('a replay: never node whose CLI is SIGKILLed mid-command', () => {
  it(
    'is left alone while its command runs, then held; only an approval runs it once more',
    async (ctx) => {
      const s = setup(ctx, 'never');
      await runPrep(s);
      const orphan = await killMidFlight(s);
      expect(s.lines('side.txt')).toEqual(['effect attempt 1']);

      // The CLI is gone but its command is not: recovery must not call the attempt interrupted.
      const early = await s.cli(['recover', '--run-id', RUN]);
      expect(early.code, early.stderr).toBe(0);
      expect(early.stdout).toMatch(/left alone: effect: its command is still running \(pid \d+/);
      expectCheckpoint(await s.status(RUN), { active_nodes: ['effect'], held_nodes: [] });
      expect(eventsOf(s.journal(RUN), 'NodeInterrupted')).toHaveLength(0);

      await killOrphan(orphan);
      const rec = await s.cli(['recover', '--run-id', RUN]);
      expect(rec.code, rec.stderr).toBe(0);
      expect(rec.stdout).toContain('recovered: "effect" attempt 1 was interrupted; held until a person');
      expectCheckpoint(await s.status(RUN), {
        status: 'blocked',
        active_nodes: [],
        held_nodes: ['effect'],
        attempts: { prep: 1, effect: 1 },
      });

      // A held node is not ready: run refuses, and the side effect is not repeated.
      const blocked = await s.cli(['run', 'g.yml', '--node', 'effect']);
      expect(blocked.code, blocked.stderr).toBe(3);
      expect(blocked.stderr).toContain('held');
      const blockedAll = await s.cli(['run', 'g.yml', '--all']);
      expect(blockedAll.code, blockedAll.stderr).toBe(3);
      expect(s.lines('side.txt')).toEqual(['effect attempt 1']);
      expect(eventsOf(s.journal(RUN), 'NodeDispatched', 'effect')).toHaveLength(1);

      const approve = await s.cli(['approve-rerun', 'effect', '--by', 'alice', '--run-id', RUN]);
      expect(approve.code, approve.stderr).toBe(0);
      const rerun = await s.cli(['run', 'g.yml', '--node', 'effect']);
      expect(rerun.code, rerun.stderr).toBe(0);

      expect(s.lines('side.txt')).toEqual(['effect attempt 1', 'effect attempt 2']);
      expectCheckpoint(await s.status(RUN), {
        status: 'completed',
        completed_nodes: ['prep', 'effect'],
        held_nodes: [],
        attempts: { prep: 1, effect: 2 },
      });
      const journal = s.journal(RUN);
      const approvals = eventsOf(journal, 'RerunApproved', 'effect');
      expect(approvals).toHaveLength(1);
      expect(approvals[0]).toMatchObject({ approved_by: 'alice', attempt: 1 });
      expect(eventsOf(journal, 'NodeInterrupted', 'effect')).toMatchObject([{ attempt: 1 }]);
      // The rerun is told that the attempt before it may have partly run.
      const context = JSON.parse(readFileSync(s.path('context-2.json'), 'utf8')) as Record<string, unknown>;
      expect(JSON.stringify(context)).toMatch(/interrupted and may have partly run/);
    },
    TEST_TIMEOUT,
  );
});

describe.concurrent('a replay: safe node whose CLI is SIGKILLed mid-command', () => {
  it(
    'is not rerun while its command still runs, then reruns as attempt 2 with no approval',
    async (ctx) => {
      const s = setup(ctx, 'safe');
      await runPrep(s);
      const orphan = await killMidFlight(s);

      // Still running: a plain run must not start it a second time.
      const meanwhile = await s.cli(['run', 'g.yml', '--node', 'effect']);
      expect(meanwhile.code, meanwhile.stderr).toBe(3);
      expect(s.lines('side.txt')).toEqual(['effect attempt 1']);

      await killOrphan(orphan);
      // No recover and no approval: the next run's recovery finds the attempt interrupted and reruns it.
      const rerun = await s.cli(['run', 'g.yml', '--node', 'effect']);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stderr).toContain('replay: safe, it runs again');

      expect(s.lines('side.txt')).toEqual(['effect attempt 1', 'effect attempt 2']);
      expectCheckpoint(await s.status(RUN), {
        status: 'completed',
        completed_nodes: ['prep', 'effect'],
        attempts: { prep: 1, effect: 2 },
      });
      const journal = s.journal(RUN);
      expect(eventsOf(journal, 'RerunApproved')).toHaveLength(0);
      expect(eventsOf(journal, 'NodeInterrupted', 'effect')).toMatchObject([{ attempt: 1 }]);
      expect(eventsOf(journal, 'NodeDispatched', 'effect').map((e) => e.attempt)).toEqual([1, 2]);
    },
    TEST_TIMEOUT,
  );
});

/** Runs `effect` with the CLI set to SIGKILL itself at the failpoint. */
async function crashAt(s: Sandbox, failpoint: string): Promise<void> {
  const r = await s.cli(['run', 'g.yml', '--node', 'effect'], { INTERLOCK_FAILPOINTS: failpoint });
  expect(r.signal, `the failpoint ${failpoint} did not fire: ${r.stderr}`).toBe('SIGKILL');
}

/** The crash left attempt 1 of `effect` dispatched and nothing after it: in flight. */
function expectInFlight(s: Sandbox): void {
  const journal = s.journal(RUN);
  expect(journal.events.at(-1)).toMatchObject({ type: 'NodeDispatched', node: 'effect', attempt: 1 });
  expect(eventsOf(journal, 'NodeDispatched', 'effect')).toHaveLength(1);
}

/**
 * After recovery found the attempt interrupted: a `never` node stays held (run exits 3, no side effect)
 * until alice approves; a `safe` node is ready at once. Either way the next run is attempt 2 and completes.
 */
async function rerunAfterInterruption(s: Sandbox, replay: 'never' | 'safe'): Promise<void> {
  const before = s.lines('side.txt');
  const rec = await s.cli(['recover', '--run-id', RUN]);
  expect(rec.code, rec.stderr).toBe(0);
  if (replay === 'never') {
    expect(rec.stdout).toContain('recovered: "effect" attempt 1 was interrupted; held until a person');
    expectCheckpoint(await s.status(RUN), { active_nodes: [], held_nodes: ['effect'], ready_nodes: [] });
    const blocked = await s.cli(['run', 'g.yml', '--node', 'effect']);
    expect(blocked.code, blocked.stderr).toBe(3);
    expect(s.lines('side.txt')).toEqual(before);
    const approve = await s.cli(['approve-rerun', 'effect', '--by', 'alice', '--run-id', RUN]);
    expect(approve.code, approve.stderr).toBe(0);
  } else {
    expect(rec.stdout).toContain(
      'recovered: "effect" attempt 1 was interrupted; replay: safe, it runs again',
    );
    expectCheckpoint(await s.status(RUN), { active_nodes: [], held_nodes: [], ready_nodes: ['effect'] });
  }
  const rerun = await s.cli(['run', 'g.yml', '--node', 'effect']);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(s.lines('side.txt')).toEqual([...before, 'effect attempt 2']);
  expectCheckpoint(await s.status(RUN), {
    status: 'completed',
    completed_nodes: ['prep', 'effect'],
    attempts: { prep: 1, effect: 2 },
  });
  const journal = s.journal(RUN);
  expect(eventsOf(journal, 'NodeInterrupted', 'effect')).toMatchObject([{ attempt: 1 }]);
  expect(eventsOf(journal, 'RerunApproved', 'effect')).toMatchObject(
    replay === 'never' ? [{ approved_by: 'alice', attempt: 1 }] : [],
  );
}

describe.concurrent('a replay: never node whose CLI is stopped with SIGTERM mid-command', () => {
  it(
    'takes its command down with it, and is held after recover',
    async (ctx) => {
      const s = setup(ctx, 'never');
      await runPrep(s);
      const { pid, exit } = await signalMidFlight(s, 'SIGTERM');
      expect(exit.code, exit.stderr).toBe(143);
      expect(exit.stderr).toContain('the attempt stays in flight');
      // No one kills the command here: the CLI's signal handler stopped its process group.
      await waitFor(() => processGone(pid), { what: `the node command (pid ${pid}) to be stopped` });
      expectCheckpoint(await s.status(RUN), { active_nodes: ['effect'] });

      const rec = await s.cli(['recover', '--run-id', RUN]);
      expect(rec.code, rec.stderr).toBe(0);
      expect(rec.stdout).toContain('recovered: "effect" attempt 1 was interrupted; held until a person');
      const blocked = await s.cli(['run', 'g.yml', '--all']);
      expect(blocked.code, blocked.stderr).toBe(3);
      expect(s.lines('side.txt')).toEqual(['effect attempt 1']);
    },
    TEST_TIMEOUT,
  );
});

describe.concurrent.each(['never', 'safe'] as const)(
  'a replay: %s node whose CLI dies at a failpoint',
  (replay) => {
    const after = replay === 'never' ? 'held until alice approves' : 'rerun with no approval';

    it(
      'before-dispatch-write: nothing is in flight, and a plain run runs it once',
      async (ctx) => {
        const s = setup(ctx, replay);
        await runPrep(s);
        await crashAt(s, 'before-dispatch-write');
        expect(s.exists('side.txt')).toBe(false);
        expect(eventsOf(s.journal(RUN), 'NodeDispatched', 'effect')).toHaveLength(0);
        const rec = await s.cli(['recover', '--run-id', RUN]);
        expect(rec.code, rec.stderr).toBe(0);
        expect(rec.stdout).toBe('nothing in flight\n');
        const run = await s.cli(['run', 'g.yml', '--node', 'effect']);
        expect(run.code, run.stderr).toBe(0);
        expect(s.lines('side.txt')).toEqual(['effect attempt 1']);
        expectCheckpoint(await s.status(RUN), { status: 'completed', attempts: { prep: 1, effect: 1 } });
      },
      TEST_TIMEOUT,
    );

    it(
      `after-dispatch-write: the command never ran; the node is ${after}, then written exactly once`,
      async (ctx) => {
        const s = setup(ctx, replay);
        await runPrep(s);
        await crashAt(s, 'after-dispatch-write');
        expect(s.exists('side.txt')).toBe(false);
        expectInFlight(s);
        await rerunAfterInterruption(s, replay);
        expect(s.lines('side.txt')).toEqual(['effect attempt 2']);
      },
      TEST_TIMEOUT,
    );

    it.for(['after-command', 'before-record-write'])(
      `%s: the side effect happened once; the node is ${after}, then written exactly once more`,
      { timeout: TEST_TIMEOUT },
      async (failpoint, ctx) => {
        const s = setup(ctx, replay);
        await runPrep(s);
        await crashAt(s, failpoint);
        expect(s.lines('side.txt')).toEqual(['effect attempt 1']);
        expectInFlight(s);
        await rerunAfterInterruption(s, replay);
        expect(s.lines('side.txt')).toEqual(['effect attempt 1', 'effect attempt 2']);
      },
    );

    it(
      'after-record-write: the node is completed and there is nothing to recover',
      async (ctx) => {
        const s = setup(ctx, replay);
        await runPrep(s);
        await crashAt(s, 'after-record-write');
        expect(s.lines('side.txt')).toEqual(['effect attempt 1']);
        expectCheckpoint(await s.status(RUN), {
          status: 'completed',
          completed_nodes: ['prep', 'effect'],
          active_nodes: [],
          attempts: { prep: 1, effect: 1 },
        });
        const rec = await s.cli(['recover', '--run-id', RUN]);
        expect(rec.code, rec.stderr).toBe(0);
        expect(rec.stdout).toBe('nothing in flight\n');
        const again = await s.cli(['run', 'g.yml', '--node', 'effect']);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).toContain('the run has ended');
        expect(s.lines('side.txt')).toEqual(['effect attempt 1']);
        expect(eventsOf(s.journal(RUN), 'NodeInterrupted')).toHaveLength(0);
      },
      TEST_TIMEOUT,
    );
  },
);
