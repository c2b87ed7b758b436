/**
 * Run lookup, the shell: the runs a command may mean, from each store's run catalogue (the git store's run branches
 * and journal branch of before; for a pull request, the check runs on its head and earlier commits and where
 * interlock's progress comments point), each read through its catalogue's `readText` where the listing saw it,
 * with the subject its journal records. Run ids only narrow which journals are read (the subject's label as the
 * last part, or with a `-<k>` suffix for a run started afresh); a run named in the command is read when a
 * catalogue lists it; the recorded subject decides. No run is read by name: one list of runs per store.
 */
import { statusOf } from '../../github/status.js';
import { parseJournal } from '../../journal/parse.js';
import { runIsAbout, type SubjectRef, subjectLabel } from '../../journal/run-id.js';
import { runEnded } from '../../journal/state.js';
import { CheckRunStore } from '../../store/check-run.js';
import { type PullRun, pullRequestHistory, pullRequestRuns } from '../../store/check-run-pull.js';
import { GitRuns } from '../../store/git-runs.js';
import type { JournalStore, ListedRun, ListedText, StoredJournal } from '../../store/types.js';
import type { HandlerDeps } from '../deps.js';
import type { RunFacts } from './pick-runs.js';

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

/** What lookup knows of a run from its journal's text (a journal that does not parse throws, naming where). */
function found(runId: string, raw: ListedText, store: JournalStore): FoundRun {
  const journal = parseJournal(raw.text, raw.where);
  const started = journal.events[0];
  const subject = started?.type === 'RunStarted' ? started.subject : undefined;
  return { runId, subject, ended: runEnded(journal), store, stored: { journal, version: raw.version } };
}

/**
 * A check-run run's journal through its commit's catalogue: the listing that saw it, or (a run only a progress
 * comment points to) a listing of that commit; none when the commit or its check run is gone (a force-push took
 * it: the step that meets the run says how to go on).
 */
async function readPullRun(p: PullRun, runId: string): Promise<ListedText | null> {
  let listed: ListedRun | undefined = p.listed;
  try {
    listed ??= ((await p.catalog.listRuns()) ?? []).find((r) => r.runId === runId);
  } catch (e) {
    if (statusOf(e) === 422) return null;
    throw e;
  }
  return listed ? p.catalog.readText(listed) : null;
}

/** The runs a command about `subject` may mean (`named`: the run id it names), from every store they can be in. */
export async function findRuns(deps: HandlerDeps, subject: SubjectRef, named?: string): Promise<FoundRun[]> {
  const label = subjectLabel(subject);
  const wanted = (runId: string) => (named ? runId === named : hinted(runId, label));
  const git = new GitRuns(deps.octokit, deps.repo, deps.journalBranch);
  const listed = new Map(((await git.listRuns()) ?? []).map((r) => [r.runId, r]));
  const pull = subject.kind === 'pr' ? await pullRuns(deps, subject.number) : undefined;
  const ids = [...new Set([...listed.keys(), ...(pull?.runs.keys() ?? [])])].filter(wanted).sort();
  const out: FoundRun[] = [];
  for (const runId of ids) {
    // A run in a check run of the pull request is read there first; else where the git listing saw it.
    const p = pull?.runs.get(runId);
    const fromCheck = p && pull ? await readPullRun(p, runId) : null;
    if (p && pull && fromCheck) {
      const store = new CheckRunStore(deps.octokit, deps.repo, {
        runId,
        head: pull.head,
        history: { ...pull.history, before: p.sha },
      });
      out.push(found(runId, fromCheck, store));
      continue;
    }
    const g = listed.get(runId);
    const raw = g ? await git.readText(g) : null;
    if (g && raw) out.push(found(runId, raw, git.store(g)));
  }
  return out;
}
