/**
 * A pull request's history, as the check-run store looks through it for a run's check run: the head before the
 * push that started the step, the pointer in interlock's progress comment, and the earlier commits. Each listing
 * is asked for at most once, and only when the head holds no check run of the run.
 */
import type { GitHubClient, RepoRef } from '../github/client.js';
import { type CheckRunHistory, pointedSha } from './check-run-find.js';

const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
  let p: Promise<T> | undefined;
  return () => {
    p ??= f();
    return p;
  };
};

export interface PullHistoryOptions {
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
    pointer: async (runId) =>
      (await comments())
        .filter((c) => c.user?.type === 'Bot')
        .map((c) => pointedSha(c.body ?? '', runId))
        .filter((sha) => sha !== undefined)
        .pop(),
    earlierShas: commits,
  };
}
