/**
 * The runs of the git store: the run branches (`interlock-journal-runs/<run-id>`, one listing of matching refs)
 * and the `runs/<run-id>.json` files on the journal branch of the layout before, listed from the branch's tree
 * (one recursive tree read when it fits; when GitHub truncates it, the `runs/` folder is walked one tree at a
 * time instead). A run on both is listed once, at its own branch, where its reads look first.
 */
import type { GitHubClient, RepoRef } from '../github/client.js';
import { statusOf } from '../github/status.js';
import { DEFAULT_JOURNAL_BRANCH, type GitPlace, GitStore } from './git.js';
import { runBranchPrefix, runIdOfBranch, runPath } from './git-layout.js';
import { byRunId, type ListedRun, type ListedText, type RunCatalog } from './types.js';

/** A tree entry as the git data API lists it. */
interface TreeEntry {
  path?: string;
  type?: string;
  sha?: string;
}

const RUN_FILE = /^runs\/(.+)\.json$/;

/** The run id a path on the journal branch holds (`runs/<run-id>.json`), if it holds one. Pure. */
export function runIdOfPath(path: string): string | undefined {
  return RUN_FILE.exec(path)?.[1];
}

/** The runs among a recursive tree's entries (paths from the branch root), sorted by run id. Pure. */
export function runsInTree(entries: readonly TreeEntry[]): ListedRun[] {
  return entries
    .flatMap((t) => {
      const runId = t.type === 'blob' && t.path ? runIdOfPath(t.path) : undefined;
      return runId === undefined ? [] : [{ runId, where: t.path!, ...(t.sha ? { version: t.sha } : {}) }];
    })
    .sort(byRunId);
}

/** The run branches and the journal branch as a catalog of runs. */
export class GitRuns implements RunCatalog {
  readonly location: string;

  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: RepoRef,
    private readonly branch = DEFAULT_JOURNAL_BRANCH,
  ) {
    this.location = `${repo.owner}/${repo.repo}@${branch}`;
  }

  async listRuns(): Promise<ListedRun[] | null> {
    const own = await this.runBranches();
    const old = await this.legacyRuns();
    if (own === null && old === null) return null;
    const seen = new Set((own ?? []).map((r) => r.runId));
    return [...(own ?? []), ...(old ?? []).filter((r) => !seen.has(r.runId))].sort(byRunId);
  }

  /**
   * A listed run's journal: a run branch's at the commit the listing saw (exact; a later listing sees a later
   * one), a run of before by its blob (content-addressed); by name when the listing pinned neither.
   */
  async readText(run: ListedRun): Promise<ListedText | null> {
    if (this.placeOf(run) === 'legacy' && run.version) {
      const { data } = await this.octokit.rest.git.getBlob({ ...this.repo, file_sha: run.version });
      return {
        text: Buffer.from(data.content, 'base64').toString('utf8'),
        version: run.version,
        where: run.where,
      };
    }
    const store = this.store(run);
    return run.at ? store.readTextAt(run.at) : store.readText();
  }

  /** Where a listed run's journal is: its own branch, or the journal branch of before. */
  placeOf(run: ListedRun): GitPlace {
    return run.where.startsWith(runBranchPrefix(this.branch)) ? 'run' : 'legacy';
  }

  /** The store that reads and writes a listed run's journal where the listing saw it. */
  store(run: ListedRun): GitStore {
    return new GitStore(this.octokit, this.repo, run.runId, this.branch, this.placeOf(run));
  }

  /** The run branches, from one listing of refs (no version: a ref names a commit, not the journal's blob). */
  private async runBranches(): Promise<ListedRun[] | null> {
    const prefix = runBranchPrefix(this.branch);
    let refs: Array<{ ref: string; object?: { sha?: string } }>;
    try {
      refs = await this.octokit.paginate(this.octokit.rest.git.listMatchingRefs, {
        ...this.repo,
        ref: `heads/${prefix}`,
      });
    } catch (e) {
      if (statusOf(e) === 404 || statusOf(e) === 409) return null;
      throw e;
    }
    const runs = refs.flatMap((r) => {
      const runId = runIdOfBranch(this.branch, r.ref);
      if (runId === undefined) return [];
      const at = r.object?.sha;
      return [{ runId, where: `${prefix}${runId}:${runPath(runId)}`, ...(at ? { at } : {}) }];
    });
    return runs.length ? runs : null;
  }

  /** The runs on the journal branch itself (the layout before run branches). */
  private async legacyRuns(): Promise<ListedRun[] | null> {
    let tree: { truncated: boolean; tree: TreeEntry[] };
    try {
      tree = (await this.octokit.rest.git.getTree({ ...this.repo, tree_sha: this.branch, recursive: '1' }))
        .data;
    } catch (e) {
      // 404: no journal branch yet; 409: an empty repository.
      if (statusOf(e) === 404 || statusOf(e) === 409) return null;
      throw e;
    }
    if (!tree.truncated) return runsInTree(tree.tree);
    const root = (await this.octokit.rest.git.getTree({ ...this.repo, tree_sha: this.branch })).data.tree;
    const runs = root.find((t) => t.path === 'runs' && t.type === 'tree');
    return runsInTree(runs?.sha ? await this.walk(runs.sha, 'runs') : []);
  }

  /** Every entry under a folder, one non-recursive tree read per folder (a truncated tree lists only part). */
  private async walk(sha: string, prefix: string): Promise<TreeEntry[]> {
    const { data } = await this.octokit.rest.git.getTree({ ...this.repo, tree_sha: sha });
    const out: TreeEntry[] = [];
    for (const t of data.tree) {
      const path = `${prefix}/${t.path}`;
      if (t.type === 'tree' && t.sha) out.push(...(await this.walk(t.sha, path)));
      else out.push({ ...t, path });
    }
    return out;
  }
}
