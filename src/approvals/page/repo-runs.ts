/**
 * One repository's runs for the maintainers' page: the git store's catalog (the run branches and the journal
 * branch's tree, conditional reads), each journal by what pins it (a blob sha, a run branch's commit: read once,
 * kept), the configuration and each run's graph at the default branch; every run folded, a pinned journal once
 * under one graph (every later read of the runs, for any person, takes the kept state). A run that cannot be
 * read or folded is reported, never thrown. A run the page itself just acted on is read again until it shows the
 * act (journal/freshness.ts): a listing by branch name may answer from before it, and the row would stay.
 */
import { configDefaults } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import type { RepoRef } from '../../github/client.js';
import { statusOf } from '../../github/status.js';
import { formatSourceError, GraphError } from '../../graph/errors.js';
import type { Graph } from '../../graph/model.js';
import type { Journal } from '../../journal/events/events.js';
import { fold } from '../../journal/fold.js';
import { type ReadFloor, staleReason } from '../../journal/freshness.js';
import { journalGraphPath } from '../../journal/graph-path.js';
import { parseJournal } from '../../journal/parse.js';
import { subjectOfRun } from '../../journal/run-id.js';
import { type RunState, runEnded } from '../../journal/state.js';
import { unreadableRun } from '../../journal/waiting-unfolded.js';
import { TUNING } from '../../os/tuning.js';
import type { PageRun } from '../../render/page/waiting-model.js';
import { CheckRunStore } from '../../store/check-run.js';
import { FreshStore } from '../../store/fresh.js';
import { GitRuns } from '../../store/git-runs.js';
import type { ListedRun } from '../../store/types.js';
import type { HandlerDeps } from '../deps.js';
import { type FoundRun, findRuns } from '../lookup/find-runs.js';
import { loadRepoGraph } from '../lookup/repo-files.js';

export interface RepoRuns {
  repo: string;
  runs: PageRun[];
  problems: string[];
  /** The repository's configuration (its `approvals`, for who may act). */
  config: Config;
}

/** Runs of one repository read at once. */
const READS_AT_ONCE = 4;

/** Journals by what pins them (a blob sha, a run branch's commit): that never changes, so it is read once per server. */
const PINNED = new Map<string, Journal>();
const MAX_PINNED = 20_000;
/**
 * Folded states by pin and graph: a pinned journal folds to the same state under the same graph, so the page's
 * reads (every `ttlMs`, whoever asks) fold each run once, not once a read. As many as journals are kept, the
 * oldest forgotten first: a state holds what its journal holds, so this at most doubles `PINNED`'s memory.
 */
const FOLDED = new Map<string, RunState>();

/** The run's state under `graph`: kept when `pinned` names the journal read (see `FOLDED`). */
function foldKept(pinned: string | undefined, journal: Journal, graph: Graph): RunState {
  const pinAndGraph = pinned && `${pinned} ${graph.path} ${graph.hash}`;
  const kept = pinAndGraph && FOLDED.get(pinAndGraph);
  if (kept) return kept;
  const state = fold(journal, graph);
  if (!pinAndGraph) return state;
  if (FOLDED.size >= MAX_PINNED) FOLDED.delete(FOLDED.keys().next().value!);
  FOLDED.set(pinAndGraph, state);
  return state;
}

/** What pins a listed run's journal, when the listing pinned it: the same text for as long as the key is kept. */
const pinOf = (repo: RepoRef, run: ListedRun): string | undefined => {
  const pin = run.version ?? run.at;
  return pin ? `${repo.owner}/${repo.repo}@${pin}` : undefined;
};

/** A run's journal as read, and its pin when the listing's pin names that very text. */
interface Read {
  journal: Journal | null;
  pinned?: string | undefined;
}

/**
 * A listed run's journal through the catalog, kept when the listing pinned it; one older than `floor` (what the
 * page knows the run holds) is read again by name until it is not, for as long as GitHub's answers may be stale.
 */
async function journalOf(
  catalog: GitRuns,
  repo: RepoRef,
  run: ListedRun,
  floor: ReadFloor | undefined,
): Promise<Read> {
  const listed = await pinnedJournalOf(catalog, repo, run);
  if (!floor || staleReason(floor, listed) === undefined)
    return { journal: listed, pinned: pinOf(repo, run) };
  // The tuning schema's default window (src/os/tuning.ts), as before: the page's reads do not take the variable.
  const giveUpAfterMs = TUNING.INTERLOCK_STALE_READ_MS.default;
  const fresh = new FreshStore(catalog.store(run), { floor, giveUpAfterMs });
  return { journal: (await fresh.read())?.journal ?? null };
}

async function pinnedJournalOf(catalog: GitRuns, repo: RepoRef, run: ListedRun): Promise<Journal | null> {
  const pinned = pinOf(repo, run);
  const kept = pinned && PINNED.get(pinned);
  if (kept) return kept;
  const raw = await catalog.readText(run);
  if (!raw) return null;
  const journal = parseJournal(raw.text, raw.where);
  if (!pinned) return journal;
  if (PINNED.size >= MAX_PINNED) PINNED.delete(PINNED.keys().next().value!);
  PINNED.set(pinned, journal);
  return journal;
}

/** The title of the issue or pull request a run that waits for people is about (one read, conditional). */
async function titleOf(deps: HandlerDeps, runId: string, state: RunState): Promise<string | undefined> {
  const cp = state.checkpoint;
  const waits = cp.held_nodes.length + cp.escalated_nodes.length + (cp.awaiting_approval_nodes?.length ?? 0);
  const subject = subjectOfRun(runId);
  if (!waits || !subject) return undefined;
  try {
    return (await deps.octokit.rest.issues.get({ ...deps.repo, issue_number: subject.number })).data.title;
  } catch (e) {
    if (statusOf(e) === 404 || statusOf(e) === 410) return undefined;
    throw e;
  }
}

/** The most open pull requests whose check runs are read for runs (the newest first). */
const MAX_PULLS = 50;

/** The runs the check-run store keeps on open pull requests (run lookup's own reading). */
async function pullRequestRuns(deps: HandlerDeps, problems: string[]): Promise<FoundRun[]> {
  const { data: pulls } = await deps.octokit.rest.pulls.list({
    ...deps.repo,
    state: 'open',
    per_page: MAX_PULLS,
  });
  const found: FoundRun[] = [];
  for (const pull of pulls) {
    try {
      const runs = await findRuns(deps, { kind: 'pr', number: pull.number });
      found.push(...runs.filter((f) => f.store instanceof CheckRunStore));
    } catch (e) {
      problems.push(`pull request #${pull.number}: ${(e as Error).message}`);
    }
  }
  return found;
}

/**
 * Reads every run of one repository that has not ended (an ended run waits for nobody). `floors`: by run id, what
 * the page knows a run holds (it acted on it): a read older than that is read again.
 */
export async function readRepoRuns(
  deps: HandlerDeps,
  floors: ReadonlyMap<string, ReadFloor> = new Map(),
): Promise<RepoRuns> {
  const name = `${deps.repo.owner}/${deps.repo.repo}`;
  const problems: string[] = [];
  let config = configDefaults();
  try {
    config = await deps.config.orDefaults();
  } catch (e) {
    if (!(e instanceof GraphError)) throw e;
    problems.push(`.github/interlock.yml is not valid: ${e.errors.map(formatSourceError).join('; ')}`);
  }
  const catalog = new GitRuns(deps.octokit, deps.repo, deps.journalBranch);
  const listed = (await catalog.listRuns()) ?? [];
  const graphs = new Map<string, Promise<Graph>>();
  const runs: PageRun[] = [];
  const readOne = async (runId: string, read: () => Promise<Read>): Promise<void> => {
    let seen: Journal | null = null;
    try {
      const { journal, pinned } = await read();
      seen = journal;
      if (!journal || runEnded(journal)) return;
      const path = journalGraphPath(journal);
      if (!graphs.has(path)) graphs.set(path, loadRepoGraph(deps, path));
      const graph = await graphs.get(path)!;
      const state = foldKept(pinned, journal, graph);
      const title = await titleOf(deps, journal.run_id, state);
      const run: PageRun = { repo: name, journal, graph, state, approvals: config.approvals };
      runs.push(title !== undefined ? { ...run, title } : run);
    } catch (e) {
      const why = e instanceof GraphError ? e.errors.map(formatSourceError).join('; ') : (e as Error).message;
      // A run the page cannot fold still shows what waits in it (src/journal/waiting-unfolded.ts).
      problems.push(`run ${runId}: ${unreadableRun(seen, why)}`);
    }
  };
  // Every listed run, on its own branch or on the journal branch of before; a few at a time: the reads are round
  // trips, and GitHub asks for no flood of parallel requests.
  for (let i = 0; i < listed.length; i += READS_AT_ONCE)
    await Promise.all(
      listed
        .slice(i, i + READS_AT_ONCE)
        .map((l) => readOne(l.runId, () => journalOf(catalog, deps.repo, l, floors.get(l.runId)))),
    );
  // Runs kept in the check-run store live on open pull requests, not on the journal branch.
  const known = new Set(listed.map((l) => l.runId));
  for (const found of await pullRequestRuns(deps, problems))
    if (!known.has(found.runId)) await readOne(found.runId, async () => ({ journal: found.stored.journal }));
  runs.sort((a, b) => a.journal.run_id.localeCompare(b.journal.run_id));
  return { repo: name, runs, problems, config };
}
