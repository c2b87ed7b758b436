/**
 * The check-run store's runs across a repository: the journals in check runs on the heads of its pull requests,
 * those open and those closed since a given time (a run on a pull request merged today may have spent today), as
 * one catalogue of runs. GitHub lists check runs by commit only, so this lists the pull requests first (two
 * listings, at most `maxPulls` of each), then the check runs of each head (one listing per head). A run on an
 * earlier commit of its pull request (moved by a force-push and not yet written on the new head) is not listed.
 */
import type { GitHubClient, RepoRef } from '../github/client.js';
import { CheckRunRuns } from './check-run-runs.js';
import { byRunId, type ListedRun, type ListedText, type RunCatalog } from './types.js';

/** How many open pull requests, and how many closed ones, are looked at (the newest first). */
const MAX_PULLS = 50;

export class PullRequestCheckRuns implements RunCatalog {
  readonly location: string;
  /** Each listed run's catalogue (by its check run's id): where its journal is read. */
  private readonly heads = new Map<string, CheckRunRuns>();

  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: RepoRef,
    private readonly o: { closedSince?: number; maxPulls?: number } = {},
  ) {
    this.location = `check runs on the pull requests of ${repo.owner}/${repo.repo}`;
  }

  /** The heads of the open pull requests, and of the closed ones updated since `closedSince`. */
  private async pullHeads(): Promise<string[]> {
    const per_page = this.o.maxPulls ?? MAX_PULLS;
    const { data: open } = await this.octokit.rest.pulls.list({ ...this.repo, state: 'open', per_page });
    const since = this.o.closedSince;
    const closed =
      since === undefined
        ? []
        : (
            await this.octokit.rest.pulls.list({
              ...this.repo,
              state: 'closed',
              sort: 'updated',
              direction: 'desc',
              per_page,
            })
          ).data.filter((p) => Date.parse(p.updated_at) >= since);
    return [...new Set([...open, ...closed].map((p) => p.head.sha))];
  }

  async listRuns(): Promise<ListedRun[]> {
    const out: ListedRun[] = [];
    const seen = new Set<string>();
    for (const sha of await this.pullHeads()) {
      const catalog = new CheckRunRuns(this.octokit, this.repo, sha);
      for (const run of await catalog.listRuns()) {
        // A run on two heads (two pull requests of one branch) is one run: its first listing counts.
        if (seen.has(run.runId) || !run.at) continue;
        seen.add(run.runId);
        this.heads.set(run.at, catalog);
        out.push(run);
      }
    }
    return out.sort(byRunId);
  }

  async readText(run: ListedRun): Promise<ListedText | null> {
    const catalog = run.at ? this.heads.get(run.at) : undefined;
    return catalog ? catalog.readText(run) : null;
  }
}
