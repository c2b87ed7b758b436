// Races with real processes: many CLI processes on one journal at once. The file store's lock and
// compare-and-swap must let exactly one of them dispatch each node, and lose no event.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/events/events.js';
import {
  cleanupSandboxes,
  type Exit,
  eventsOf,
  processGone,
  requireBundle,
  type Sandbox,
  sandbox,
} from './harness.js';

const RUN = 'race';
const PROCESSES = 8;
const WORKERS = ['a', 'b', 'c', 'd', 'e', 'f'];
const TEST_TIMEOUT = 180_000;

/** Independent nodes, each appending its id to one shared file, and a join node that waits for them all. */
const GRAPH = `interlock: 1
name: ${RUN}
nodes:
${WORKERS.map((id) => `  - id: ${id}\n    run: sleep 0.05; echo "$INTERLOCK_NODE" >> shared.txt\n`).join('')}  - id: join
    depends_on: [${WORKERS.join(', ')}]
    run: echo "$INTERLOCK_NODE" >> shared.txt
`;
const NODES = [...WORKERS, 'join'];

beforeAll(() => requireBundle());
afterEach(cleanupSandboxes);

/** Starts every process before awaiting any, so they contend for the journal. */
async function race(s: Sandbox, args: string[]): Promise<Exit[]> {
  const started = Array.from({ length: PROCESSES }, () => s.start(args));
  return Promise.all(started.map((p) => p.exited));
}

/** The journal is whole: it validates, and seq runs 1..n with no gap or repeat. */
function expectIntact(s: Sandbox): Journal {
  const journal = s.journal(RUN);
  expect(journal.events.map((e) => e.seq)).toEqual(journal.events.map((_, i) => i + 1));
  // No lock or temp file is left next to the journal.
  expect(readdirSync(s.path('.interlock/runs')).sort()).toEqual([`${RUN}.json`, `${RUN}.logs`]);
  return journal;
}

function dispatchCounts(journal: Journal): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of eventsOf(journal, 'NodeDispatched')) counts[e.node] = (counts[e.node] ?? 0) + 1;
  return counts;
}

/** Every node ran once, in one completed run: what any number of `run --all` processes must leave. */
async function expectCompletedOnce(s: Sandbox, exits: Exit[]): Promise<void> {
  for (const e of exits) expect([0, 3], e.stderr).toContain(e.code);
  const journal = expectIntact(s);
  expect(dispatchCounts(journal)).toEqual(Object.fromEntries(NODES.map((n) => [n, 1])));
  expect(eventsOf(journal, 'RunStarted')).toHaveLength(1);
  const recorded = eventsOf(journal, 'NodeRecorded').map((e) => e.node);
  expect(recorded.sort()).toEqual([...NODES].sort());
  expect(eventsOf(journal, 'RunCompleted')).toHaveLength(1);
  // Recovery inside each racing step must never mistake a live peer's attempt for an interrupted one.
  expect(eventsOf(journal, 'NodeInterrupted')).toHaveLength(0);
  expect(s.lines('shared.txt').sort()).toEqual([...NODES].sort());
  expect(s.lines('shared.txt').at(-1)).toBe('join');
  expect((await s.status(RUN)).status).toBe('completed');
}

/** A pid that no process has any more. */
function deadPid(): number {
  const r = spawnSync('true');
  if (r.pid === undefined || !processGone(r.pid)) throw new Error('could not find a dead pid');
  return r.pid;
}

describe(`${PROCESSES} CLI processes racing on one journal`, () => {
  it(
    'with run --all: every node is dispatched exactly once and no event is lost',
    async (ctx) => {
      const s = sandbox(ctx, 'interlock-race-');
      s.write('g.yml', GRAPH);
      await expectCompletedOnce(s, await race(s, ['run', 'g.yml', '--all', '--quiet']));
    },
    TEST_TIMEOUT,
  );

  it(
    'with run --all past a lock left by a dead process: the lock is taken over and nothing is lost',
    async (ctx) => {
      const s = sandbox(ctx, 'interlock-race-');
      s.write('g.yml', GRAPH);
      mkdirSync(s.path('.interlock/runs'), { recursive: true });
      s.write(`.interlock/runs/${RUN}.json.lock`, `${hostname()} ${deadPid()}`);
      await expectCompletedOnce(s, await race(s, ['run', 'g.yml', '--all', '--quiet']));
    },
    TEST_TIMEOUT,
  );

  it(
    'with run --node on the same node: exactly one process dispatches it, the others are blocked',
    async (ctx) => {
      const s = sandbox(ctx, 'interlock-race-');
      s.write('g.yml', GRAPH);
      // The journal exists first, so the race is over the dispatch and not over creating the file.
      const first = await s.cli(['run', 'g.yml', '--node', 'b']);
      expect(first.code, first.stderr).toBe(0);
      const exits = await race(s, ['run', 'g.yml', '--node', 'a', '--quiet']);

      expect(exits.map((e) => e.code).sort()).toEqual([0, ...Array(PROCESSES - 1).fill(3)]);
      const journal = expectIntact(s);
      expect(dispatchCounts(journal)).toEqual({ a: 1, b: 1 });
      expect(eventsOf(journal, 'NodeInterrupted')).toHaveLength(0);
      expect(s.lines('shared.txt').sort()).toEqual(['a', 'b']);
    },
    TEST_TIMEOUT,
  );

  it(
    'creating the journal: exactly one RunStarted, and the first node is dispatched once',
    async (ctx) => {
      const s = sandbox(ctx, 'interlock-race-');
      s.write('g.yml', GRAPH);
      const exits = await race(s, ['run', 'g.yml', '--node', 'a', '--quiet']);

      expect(exits.map((e) => e.code).sort()).toEqual([0, ...Array(PROCESSES - 1).fill(3)]);
      const journal = expectIntact(s);
      expect(eventsOf(journal, 'RunStarted')).toHaveLength(1);
      expect(dispatchCounts(journal)).toEqual({ a: 1 });
      expect(s.lines('shared.txt')).toEqual(['a']);
    },
    TEST_TIMEOUT,
  );
});
