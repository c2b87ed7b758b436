/** The journals in the check runs of one commit, as a catalog of runs. */
import type { GitHubClient, RepoRef } from '../github/client.js';
import { serializeJournal } from '../journal/parse.js';
import { checkRunVersion, decodeJournal, NAME_PREFIX } from './check-run.js';
import { JOURNAL_MARK } from './check-run-find.js';
import { byRunId, type ListedRun, type ListedText, type RunCatalog } from './types.js';

/**
 * The journals in check runs on one commit. GitHub lists check runs by commit (and filters by exact name
 * only), so a catalog covers one head commit: the runs of one pull request as it stands, not a repository.
 */
export class CheckRunRuns implements RunCatalog {
  readonly location: string;

  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: RepoRef,
    private readonly headSha: string,
  ) {
    this.location = `check runs on ${headSha.slice(0, 12)}`;
  }

  async listRuns(): Promise<ListedRun[]> {
    const all = await this.octokit.paginate(this.octokit.rest.checks.listForRef, {
      ...this.repo,
      ref: this.headSha,
      filter: 'latest',
      per_page: 100,
    });
    return all
      .filter((c) => c.name.startsWith(NAME_PREFIX) && c.output?.text?.includes(JOURNAL_MARK))
      .map((c) => ({
        runId: c.name.slice(NAME_PREFIX.length),
        where: `check run "${c.name}" (${c.id})`,
        version: checkRunVersion(c.id, c.output?.text ?? ''),
        at: String(c.id),
      }))
      .sort(byRunId);
  }

  /**
   * A listed run's journal, read from the check run the listing saw (by its id), through the same listing of the
   * head's check runs (one kind of request for every read of this store; a check run's text is in the listing).
   */
  async readText(run: ListedRun): Promise<ListedText | null> {
    if (!run.at) return null;
    const all = await this.octokit.paginate(this.octokit.rest.checks.listForRef, {
      ...this.repo,
      ref: this.headSha,
      filter: 'latest',
      per_page: 100,
    });
    const found = all.find((c) => String(c.id) === run.at);
    if (!found) return null;
    const text = found.output?.text ?? '';
    const journal = decodeJournal(text, run.where);
    return { text: serializeJournal(journal), version: checkRunVersion(found.id, text), where: run.where };
  }
}
