// A write that landed, though the answer its writer got was a refusal: GitHub carried out the first try of the
// write and its answer was lost; the client's retry of the same write was refused (409), as the journal had moved,
// by that very write. The next read by name answered from before it, so the commit decided again and wrote once
// more (refused); the read after that shows the first write. The commit must know that write for its own. It
// compared the journal only with its last try, decided again on a run that had moved on, and the caller took its
// command for one applied elsewhere: the page's approval of a held node was journaled, but no workflow was
// dispatched and no comment said so (api-faults-page.test.ts, "page: an approval", a lost answer of the journal's
// write, on a run's own branch).
import { expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { commit } from '../../src/runner/journal-io/commit.js';
import type { RunSetup, RunSnapshot } from '../../src/runner/journal-io/read.js';
import type { JournalStore, StoredJournal, WriteResult } from '../../src/store/types.js';

const graph = parseGraph({
  path: 'g.yml',
  text: 'interlock: 1\nname: lost\nnodes:\n  - id: a\n    run: echo a\n',
});
const runner = { kind: 'local' as const, host: 'test', pid: 1 };

/** A store in memory whose `landsRefused`-th write lands but answers a refusal, and whose next read is stale. */
class LostAnswerStore implements JournalStore {
  readonly location = 'memory';
  stored: StoredJournal | null = null;
  private before: StoredJournal | null = null;
  private stale = false;
  writes = 0;
  landsRefused = 0;
  async read() {
    const answer = this.stale ? this.before : this.stored;
    this.stale = false;
    return answer;
  }
  async write(journal: Journal, expected: string | null): Promise<WriteResult> {
    this.writes++;
    if ((this.stored?.version ?? null) !== expected)
      return { ok: false, conflict: 'changed since it was read' };
    this.before = this.stored;
    this.stored = { journal, version: `v${journal.events.length}` };
    if (this.writes !== this.landsRefused) return { ok: true, version: this.stored.version };
    this.stale = true;
    return { ok: false, conflict: 'changed since it was read (the retry of a write whose answer was lost)' };
  }
}

let tick = 0;
const setup = (store: JournalStore): RunSetup => ({
  graph,
  store,
  runId: 'lost/1',
  start: { intent: 'test', subject: 'local', inputs: {}, github: undefined },
  // Every try stamps its events with a time of its own, as a real clock does.
  now: () => new Date(Date.UTC(2026, 0, 1) + ++tick * 1000).toISOString(),
});

/** Dispatch "a", unless the journal has it dispatched already (then it was done elsewhere). */
const dispatchOnce = (cur: RunSnapshot) =>
  cur.state.nodes.get('a')?.attempts
    ? { events: [], applied: false }
    : {
        events: [
          {
            type: 'NodeDispatched' as const,
            node: 'a',
            attempt: 1,
            replay: 'never' as const,
            approach: 'default',
            runner,
          },
        ],
        applied: true,
      };

it('a write refused on its retry, but landed, is known for its own after a stale read and another refusal', async () => {
  const store = new LostAnswerStore();
  await commit(setup(store), runner, () => ({ events: [] }), { create: true });
  store.landsRefused = store.writes + 1;
  const r = await commit(setup(store), runner, dispatchOnce);
  expect(r.chosen.applied).toBe(true);
  expect(store.stored!.journal.events.filter((e) => e.type === 'NodeDispatched')).toHaveLength(1);
  // The first write (landed, answered refused) and the second (decided on the stale read, refused): no third.
  expect(store.writes).toBe(3);
});
