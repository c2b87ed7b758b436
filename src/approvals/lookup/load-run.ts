// Reading one run for a command: its journal through the git store and its graph at the default branch.
import { formatSourceError, GraphError } from '../../graph/errors.js';
import type { Graph } from '../../graph/model.js';
import type { Journal } from '../../journal/events/events.js';
import { fold } from '../../journal/fold.js';
import { journalGraphPath } from '../../journal/graph-path.js';
import { JournalError, type RunState } from '../../journal/state.js';
import { GitStore } from '../../store/git.js';
import type { JournalStore, StoredJournal, WriteResult } from '../../store/types.js';
import type { HandlerDeps } from '../deps.js';
import { loadRepoGraph } from './repo-files.js';

/** A run as the handler sees it: its store, journal and the graph at the default branch. */
export interface LoadedRun {
  runId: string;
  /** The run's store; its first read answers with the journal already read (a write still checks the version). */
  store: JournalStore;
  journal: Journal;
  version: string;
  graph: Graph;
}

type RunLoad = { ok: true; run: LoadedRun } | { ok: false; problem: string };

/** Where run lookup found a run: its store and the journal it read there. */
export interface RunPlace {
  store: JournalStore;
  stored: StoredJournal;
}

/**
 * Reads a run's journal and its graph (graphs are cached by path for one command); a run lookup found is taken
 * from its `places` (either store), any other from the journal branch. Never throws for a bad run.
 */
export async function loadRun(
  deps: HandlerDeps,
  runId: string,
  graphs: Map<string, Promise<Graph>> = new Map(),
  places: ReadonlyMap<string, RunPlace> = new Map(),
): Promise<RunLoad> {
  const place = places.get(runId);
  const store = place?.store ?? new GitStore(deps.octokit, deps.repo, runId, deps.journalBranch);
  let stored: StoredJournal | null;
  try {
    stored = place?.stored ?? (await store.read());
  } catch (e) {
    if (e instanceof JournalError) return { ok: false, problem: e.message };
    throw e;
  }
  if (!stored) return { ok: false, problem: `there is no run \`${runId}\` (no ${store.location})` };
  const path = journalGraphPath(stored.journal);
  let graph: Graph;
  try {
    if (!graphs.has(path)) graphs.set(path, loadRepoGraph(deps, path));
    graph = await graphs.get(path)!;
  } catch (e) {
    if (e instanceof GraphError)
      return {
        ok: false,
        problem: `the run's graph does not load from the default branch: ${e.errors.map(formatSourceError).join('; ')}`,
      };
    throw e;
  }
  return {
    ok: true,
    run: {
      runId,
      store: new PrimedStore(store, stored),
      journal: stored.journal,
      version: stored.version,
      graph,
    },
  };
}

/** Saves the compare-and-swap loop's first read: it is the read just made. A stale version still fails the write. */
class PrimedStore implements JournalStore {
  constructor(
    private readonly inner: JournalStore,
    private first: StoredJournal | undefined,
  ) {}
  get location(): string {
    return this.inner.location;
  }
  async read(): Promise<StoredJournal | null> {
    const f = this.first;
    this.first = undefined;
    return f ?? this.inner.read();
  }
  write(journal: Journal, expected: string | null, message: string): Promise<WriteResult> {
    return this.inner.write(journal, expected, message);
  }
}

/** The run's state under the loaded graph, or why it cannot be folded (a graph that lost nodes, say). */
export function stateOf(run: LoadedRun): { ok: true; state: RunState } | { ok: false; problem: string } {
  try {
    return { ok: true, state: fold(run.journal, run.graph) };
  } catch (e) {
    if (e instanceof JournalError) return { ok: false, problem: `${run.store.location}: ${e.message}` };
    throw e;
  }
}
