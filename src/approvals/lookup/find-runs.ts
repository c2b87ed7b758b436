/**
 * Run lookup, the shell: the runs a command may mean, read from both stores (the journal branch, and for a pull
 * request the check runs on its head and earlier commits and where interlock's progress comments point), each
 * with the subject its journal records. Run ids
 * only narrow which journals are read (the subject's label as the last part, or with a `-<k>` suffix for a run
 * started afresh); a run named in the command is always read; the recorded subject decides.
 */
import { runIsAbout, type SubjectRef, subjectLabel } from '../../journal/run-id.js';
import { runEnded } from '../../journal/state.js';
import { CheckRunStore } from '../../store/check-run.js';
import { RunLost } from '../../store/check-run-find.js';
import { pullRequestHistory, pullRequestRuns } from '../../store/check-run-pull.js';
import { GitStore } from '../../store/git.js';
import type { JournalStore, StoredJournal } from '../../store/types.js';
import type { HandlerDeps } from '../deps.js';
import { listRunIds, type RunFacts } from './pick-runs.js';

/** A run found for a command: what lookup decides on, and the store and journal it was read from. */
export interface FoundRun extends RunFacts {
  store: JournalStore;
  stored: StoredJournal;
}

/** A pull request's head, its history, and the check-run runs on it with the commit each was seen on. */
async function pullRuns(deps: HandlerDeps, number: number) {
  const { data } = await deps.octokit.rest.pulls.get({ ...deps.repo, pull_number: number });
  const { octokit, repo } = deps;
  const history = pullRequestHistory({ octokit, repo, pull: number });
  const runs = await pullRequestRuns({ octokit, repo, head: data.head.sha, history });
  return { head: data.head.sha, history, runs };
}

const hinted = (runId: string, label: string) =>
  runIsAbout(runId, label) || new RegExp(`(^|/)${label}-\\d+$`).test(runId);

async function readFound(runId: string, stores: JournalStore[]): Promise<FoundRun | undefined> {
  for (const store of stores) {
    // A run lost to a force-push has nothing a command could act on: the step that meets it says how to go on.
    const stored = await store.read().catch((e: unknown) => {
      if (e instanceof RunLost) return null;
      throw e;
    });
    if (!stored) continue;
    const started = stored.journal.events[0];
    const ended = runEnded(stored.journal);
    const subject = started?.type === 'RunStarted' ? started.subject : undefined;
    return { runId, subject, ended, store, stored };
  }
  return undefined;
}

/** The runs a command about `subject` may mean (`named`: the run id it names), from every store they can be in. */
export async function findRuns(deps: HandlerDeps, subject: SubjectRef, named?: string): Promise<FoundRun[]> {
  const label = subjectLabel(subject);
  const gitIds = await listRunIds(deps);
  const pull = subject.kind === 'pr' ? await pullRuns(deps, subject.number) : undefined;
  const checkIds = pull ? [...pull.runs.keys()] : [];
  const ids = named ? [named] : [...new Set([...gitIds, ...checkIds])].filter((id) => hinted(id, label));
  const found: FoundRun[] = [];
  for (const runId of ids.sort()) {
    const git = new GitStore(deps.octokit, deps.repo, runId, deps.journalBranch);
    // Where the listing saw the run is where its read looks first, after the head.
    const seen = pull?.runs.get(runId);
    const check = pull
      ? new CheckRunStore(deps.octokit, deps.repo, {
          runId,
          head: pull.head,
          history: { ...pull.history, ...(seen ? { before: seen } : {}) },
        })
      : undefined;
    const order: (JournalStore | undefined)[] = checkIds.includes(runId) ? [check, git] : [git, check];
    const f = await readFound(
      runId,
      order.filter((s): s is JournalStore => s !== undefined),
    );
    if (f) found.push(f);
  }
  return found;
}
