/** A person's commands: the events each writes, and a redelivered comment that writes nothing. */
import { describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import { fold } from '../../src/journal/fold.js';
import { appendEvents } from '../../src/journal/parse.js';
import { handledBefore, personCommandEvents } from '../../src/protocol/commands/person-commands.js';
import { buildJournal, GRAPH_PATH, GRAPH_TEXT } from '../app/world.js';

const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
const SOURCE = 'https://github.com/acme/widgets/issues/1#issuecomment-501';
const giver = { login: 'bob', source: SOURCE, required: 1, graphHash: graph.hash };
const held = () => {
  const journal = buildJournal(graph, { shape: 'held' });
  return { graph, journal, state: fold(journal, graph) };
};

describe('personCommandEvents', () => {
  it('approves a rerun of a held node: one RerunApproved naming the person and the comment', () => {
    const s = personCommandEvents({ run: held(), command: { kind: 'approve-rerun', node: 'deploy' }, giver });
    expect(s.ok && s.events).toEqual([
      expect.objectContaining({ type: 'RerunApproved', node: 'deploy', approved_by: 'bob', source: SOURCE }),
    ]);
  });

  it('refuses a comment that is already in the journal, marked as a duplicate', () => {
    const cur = held();
    const first = personCommandEvents({
      run: cur,
      command: { kind: 'approve-rerun', node: 'deploy' },
      giver,
    });
    if (!first.ok) throw new Error(first.reason);
    const journal = appendEvents(cur.journal, first.events, '2025-01-02T00:00:00.000Z');
    const again = personCommandEvents({
      run: { graph, journal, state: fold(journal, graph) },
      command: { kind: 'approve-rerun', node: 'deploy' },
      giver: { ...giver, login: 'carol' },
    });
    expect(again).toEqual({
      ok: false,
      reason: 'this comment is already in the journal of fix/issue-1',
      duplicate: true,
    });
  });

  it('ends the run with the comment URL in the reason', () => {
    const s = personCommandEvents({ run: held(), command: { kind: 'fail-run', reason: 'abandoned' }, giver });
    expect(s.ok && s.events).toEqual([
      expect.objectContaining({ type: 'RunFailed', reason: `abandoned (${SOURCE})`, by: 'bob' }),
    ]);
  });
});

describe('handledBefore', () => {
  it('finds a comment recorded by a settlement and a failed run, and no other', () => {
    const cur = held();
    const settled = personCommandEvents({
      run: cur,
      command: { kind: 'settle', node: 'deploy', note: 'deployed by hand' },
      giver,
    });
    if (!settled.ok) throw new Error(settled.reason);
    const journal = appendEvents(cur.journal, settled.events, '2025-01-02T00:00:00.000Z');
    const state = fold(journal, graph);
    expect(handledBefore(journal, state, SOURCE)).toBe(true);
    expect(handledBefore(journal, state, `${SOURCE}0`)).toBe(false);
    expect(handledBefore(cur.journal, cur.state, SOURCE)).toBe(false);
  });

  // Issue 36: duplicates were found by a suffix of any record's words, so a check whose observation ended in a
  // comment's URL made that comment a "duplicate" before it was ever applied.
  it("does not take a check's observation that ends in a comment's URL for that comment", () => {
    const cur = held();
    const observed = `artifact at the URL the issue gave (${SOURCE})`;
    const events = cur.journal.events.map((e) =>
      e.type === 'NodeRecorded' ? { ...e, evidence: [{ check: 'artifact', passed: true, observed }] } : e,
    );
    expect(events.some((e) => e.type === 'NodeRecorded')).toBe(true);
    const journal = { ...cur.journal, events };
    const state = fold(journal, graph);
    expect(handledBefore(journal, state, SOURCE)).toBe(false);
    const s = personCommandEvents({
      run: { graph, journal, state },
      command: { kind: 'approve-rerun', node: 'deploy' },
      giver,
    });
    expect(s.ok).toBe(true);
  });
});
