/**
 * Run lookup, the shell: the runs a command may mean, read from both stores (the journal branch, and for a pull
 * request the check runs on its head and earlier commits), each with the subject its journal records. Run ids
 * only narrow which journals are read (the subject's label as the last part, or with a `-<k>` suffix for a run
 * started afresh); a run named in the command is always read; the recorded subject decides.
 */
import { runIsAbout, type SubjectRef, subjectLabel } from '../journal/run-id.js';
import { CheckRunRuns, CheckRunStore } from '../store/check-run.js';
import { GitStore } from '../store/git.js';
import type { JournalStore, StoredJournal } from '../store/types.js';
import type { HandlerDeps } from './deps.js';
import { listRunIds, type RunFacts } from './runs.js';

/** A run found for a command: what lookup decides on, and the store and journal it was read from. */
export interface FoundRun extends RunFacts {
  store: JournalStore;
  stored: StoredJournal;
}

/** A pull request's head and its earlier commits (newest first), where its check-run journals are. */
async function pullCommits(deps: HandlerDeps, number: number) {
  const { data } = await deps.octokit.rest.pulls.get({ ...deps.repo, pull_number: number });
  const earlierShas = async () =>
    (
      await deps.octokit.paginate(deps.octokit.rest.pulls.listCommits, {
        ...deps.repo,
        pull_number: number,
        per_page: 100,
      })
    )
      .map((c) => c.sha)
      .reverse();
  return { head: data.head.sha, earlierShas };
}

const hinted = (runId: string, label: string) =>
  runIsAbout(runId, label) || new RegExp(`(^|/)${label}-\\d+$`).test(runId);

async function readFound(runId: string, stores: JournalStore[]): Promise<FoundRun | undefined> {
  for (const store of stores) {
    const stored = await store.read();
    if (!stored) continue;
    const started = stored.journal.events[0];
    const ended = stored.journal.events.some((e) => e.type === 'RunCompleted' || e.type === 'RunFailed');
    const subject = started?.type === 'RunStarted' ? started.subject : undefined;
    return { runId, subject, ended, store, stored };
  }
  return undefined;
}

/** The runs a command about `subject` may mean (`named`: the run id it names), from every store they can be in. */
export async function findRuns(deps: HandlerDeps, subject: SubjectRef, named?: string): Promise<FoundRun[]> {
  const label = subjectLabel(subject);
  const gitIds = await listRunIds(deps);
  const pull = subject.kind === 'pr' ? await pullCommits(deps, subject.number) : undefined;
  const checkIds = pull
    ? ((await new CheckRunRuns(deps.octokit, deps.repo, pull.head).listRuns()) ?? []).map((r) => r.runId)
    : [];
  const ids = named ? [named] : [...new Set([...gitIds, ...checkIds])].filter((id) => hinted(id, label));
  const found: FoundRun[] = [];
  for (const runId of ids.sort()) {
    const git = new GitStore(deps.octokit, deps.repo, runId, deps.journalBranch);
    const check = pull
      ? new CheckRunStore(deps.octokit, deps.repo, runId, pull.head, { earlierShas: pull.earlierShas })
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
