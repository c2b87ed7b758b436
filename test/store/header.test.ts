/** Header changes go through the store's compare-and-swap: on a conflict, read again and decide again. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { FileStore } from '../../src/store/file.js';
import { updateHeader } from '../../src/store/header.js';
import { buildJournal, GRAPH_PATH, GRAPH_TEXT } from '../app/world.js';

const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
const withComment = (id: number) => (j: Journal) =>
  j.progress_comment_id ? undefined : { ...j, progress_comment_id: id };
const message = () => 'test';

describe('updateHeader', () => {
  let dir: string;
  let store: FileStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'interlock-header-'));
    store = new FileStore(join(dir, 'run.json'));
    await store.write(buildJournal(graph, {}), null, 'seed');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the change when the journal is still at the version read', async () => {
    const done = await updateHeader(store, { change: withComment(7), message });
    expect(done?.progress_comment_id).toBe(7);
    expect((await store.read())?.journal.progress_comment_id).toBe(7);
  });

  it('decides again from the journal another writer left, instead of writing over it', async () => {
    const stale = await store.read();
    const other = await store.write({ ...stale!.journal, progress_comment_id: 5 }, stale!.version, 'other');
    expect(other.ok).toBe(true);
    const done = await updateHeader(store, { first: stale, change: withComment(7), message });
    expect(done?.progress_comment_id).toBe(5);
    expect((await store.read())?.journal.progress_comment_id).toBe(5);
  });

  it('changes nothing when there is no journal yet', async () => {
    const empty = new FileStore(join(dir, 'none.json'));
    expect(await updateHeader(empty, { change: withComment(7), message })).toBeUndefined();
    expect(await empty.read()).toBeNull();
  });
});
