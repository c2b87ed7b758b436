/**
 * A pull request's history, as the check-run store looks through it for a run's check run: the head before the
 * push that started the step, the pointer in interlock's progress comment, and the earlier commits. Each listing
 * is asked for at most once, and only when the head holds no check run of the run.
 */
import type { GitHubClient, RepoRef } from '../github/client.js';
import { type CheckRunHistory, EARLIER_LIMIT, pointerOf } from './check-run-find.js';
import { CheckRunRuns } from './check-run-runs.js';
import type { ListedRun } from './types.js';

const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
  let p: Promise<T> | undefined;
  return () => {
    p ??= f();
    return p;
  };
};

interface PullHistoryOptions {
  octokit: GitHubClient;
  repo: RepoRef;
  pull: number;
  /** A `synchronize` event's `before`: the head the push replaced. */
  before?: string;
}

/** Where a pull request's run may have its check run besides the head (see check-run-find.ts). */
export function pullRequestHistory(o: PullHistoryOptions): CheckRunHistory {
  const comments = once(() =>
    o.octokit.paginate(o.octokit.rest.issues.listComments, {
      ...o.repo,
      issue_number: o.pull,
      per_page: 100,
    }),
  );
  const commits = once(async () =>
    (
      await o.octokit.paginate(o.octokit.rest.pulls.listCommits, {
        ...o.repo,
        pull_number: o.pull,
        per_page: 100,
      })
    )
      .map((c) => c.sha)
      .reverse(),
  );
  return {
    ...(o.before && /^[0-9a-f]{40}$/.test(o.before) ? { before: o.before } : {}),
    // Only a bot's comment: the pointer is plain text anyone could paste, and it only says where to look.
    pointers: async () => {
      const found = new Map<string, string>();
      for (const c of await comments()) {
        const p = c.user?.type === 'Bot' ? pointerOf(c.body ?? '') : undefined;
        if (p) found.set(p.runId, p.sha);
      }
      return found;
    },
    earlierShas: commits,
  };
}

/** A check-run run of a pull request: the commit to look at first, and the listing that saw it there, if one did. */
export interface PullRun {
  sha: string;
  listed?: ListedRun;
  /** The catalogue of that commit's check runs: the run's journal is read through it (`readText`). */
  catalog: CheckRunRuns;
}

/**
 * The check-run runs of one pull request, each with the commit to look at first: those with a journal on its head
 * or on one of its earlier commits (the newest commit wins), and those interlock's progress comments point to
 * (after a force-push). A pull request of k commits costs one listing of its commits, one of its comments, and
 * one listing of check runs per commit, at most 1 + EARLIER_LIMIT of them.
 */
export async function pullRequestRuns(o: {
  octokit: GitHubClient;
  repo: RepoRef;
  head: string;
  history: CheckRunHistory;
}): Promise<Map<string, PullRun>> {
  const found = new Map<string, PullRun>();
  const earlier = ((await o.history.earlierShas?.()) ?? []).filter((s) => s !== o.head);
  for (const sha of [o.head, ...earlier.slice(0, EARLIER_LIMIT)]) {
    const catalog = new CheckRunRuns(o.octokit, o.repo, sha);
    for (const listed of (await catalog.listRuns()) ?? [])
      if (!found.has(listed.runId)) found.set(listed.runId, { sha, listed, catalog });
  }
  for (const [runId, sha] of (await o.history.pointers?.()) ?? [])
    if (!found.has(runId)) found.set(runId, { sha, catalog: new CheckRunRuns(o.octokit, o.repo, sha) });
  return found;
}
