// Journals an older release wrote with a bug (test/fixtures/released-journals/, made by running that release's
// CLI) are read by today's code and go on: the run wedged at the daily cap by the old fold is no longer wedged.
// The CLI's side (a header's absolute graph path) is in test/cli/graph-change-refusal.test.ts.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import { fold } from '../../src/journal/fold.js';
import { journalGraphPath } from '../../src/journal/graph-path.js';
import { parseJournal } from '../../src/journal/parse.js';
import { waitingUnfolded } from '../../src/journal/waiting-unfolded.js';
import { decideNext } from '../../src/protocol/decide.js';
import { runOf } from '../../src/protocol/run.js';
import { RUNNER } from './sim.js';

const dir = new URL('../fixtures/released-journals/', import.meta.url).pathname;

function load(name: string) {
  const read = (f: string) => readFileSync(join(dir, name, f), 'utf8');
  const journal = parseJournal(read('journal.json'), `${name}/journal.json`);
  const graph = parseGraph({ path: 'graph.yml', text: read('graph.yml') });
  return { journal, graph, before: JSON.parse(read('checkpoint-before.json')) };
}

describe('journals the release before the fix wrote', () => {
  it('daily-cap-wedge: the old release left "work" pending at 2 of 2 failures with nothing ready', () => {
    const { before } = load('daily-cap-wedge');
    expect(before).toMatchObject({ status: 'blocked', ready_nodes: [], attempts: { prep: 2, work: 2 } });
    expect(before.escalated_nodes).toEqual([]);
  });

  it('daily-cap-wedge: today\'s fold gives "work" its approved attempt and the run goes on', () => {
    const { journal, graph } = load('daily-cap-wedge');
    const state = fold(journal, graph);
    expect(state.checkpoint.status).toBe('running');
    expect(state.checkpoint.ready_nodes).toEqual(['work']);
    const d = decideNext(runOf(graph, journal, state), { runner: RUNNER });
    expect(d).toMatchObject({ kind: 'dispatch', node: { id: 'work' }, attempt: 3 });
  });

  it('graph-path: the header names the graph by an absolute path, and the events still fold', () => {
    const { journal } = load('graph-path');
    expect(journal.graph.path.startsWith('/')).toBe(true);
    const graph = parseGraph({
      path: '.github/interlock/g.yml',
      text: readFileSync(join(dir, 'graph-path/graph.yml'), 'utf8'),
    });
    expect(graph.hash).toBe(journal.graph.hash);
    expect(fold(journal, graph).checkpoint.escalated_nodes).toEqual(['a']);
  });

  it("graph-path: every face reads the header's absolute path as the relative path the run started with", () => {
    const { journal } = load('graph-path');
    expect(journalGraphPath(journal)).toBe('.github/interlock/g.yml');
    // A path that does not end with it is left for the face's workspace check to refuse.
    expect(journalGraphPath({ ...journal, graph: { ...journal.graph, path: '/etc/passwd' } })).toBe(
      '/etc/passwd',
    );
    expect(
      journalGraphPath({ ...journal, graph: { ...journal.graph, path: 'C:\\w\\.github\\interlock\\g.yml' } }),
    ).toBe('.github/interlock/g.yml');
  });

  it('graph-path: read from its events alone, the escalated node still waits for a person', () => {
    const { journal } = load('graph-path');
    expect(waitingUnfolded(journal)).toEqual(['a (escalated)']);
    expect(waitingUnfolded(load('daily-cap-wedge').journal)).toEqual([]);
  });
});
