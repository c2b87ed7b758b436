import { type GitHubClient, type RepoRef, untilNextWrite } from '../github/client.js';
import { statusOf } from '../github/status.js';
import type { Journal } from '../journal/events.js';
import { parseJournal, serializeJournal } from '../journal/parse.js';
import type { JournalStore, StoredJournal, WriteResult } from './types.js';

export const DEFAULT_JOURNAL_BRANCH = 'interlock-journal';

const README = `# interlock journals

This branch holds interlock's run journals, one file per run under \`runs/\`. Each file is an
append-only list of events; interlock rewrites it with compare-and-swap on the file's blob sha.
Do not edit these files by hand while a run is going: read them, or use interlock's commands.
`;

/**
 * The journal as `runs/<run-id>.json` on a branch of its own, through the contents API. A write names the
 * blob sha that was read; GitHub refuses it (409, or 422 when the file appeared meanwhile) when the file
 * moved on, and the caller re-reads and re-decides.
 */
export class GitStore implements JournalStore {
  readonly location: string;
  readonly path: string;
  /** Requests this store made, by kind, for reports and benchmarks. */
  readonly requests = { read: 0, write: 0, branch: 0 };

  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: RepoRef,
    runId: string,
    private readonly branch = DEFAULT_JOURNAL_BRANCH,
  ) {
    this.path = `runs/${runId}.json`;
    this.location = `${repo.owner}/${repo.repo}@${branch}:${this.path}`;
  }

  writableInMs(): number {
    return untilNextWrite(this.octokit);
  }

  async read(): Promise<StoredJournal | null> {
    this.requests.read++;
    let data: unknown;
    try {
      const r = await this.octokit.rest.repos.getContent({ ...this.repo, path: this.path, ref: this.branch });
      data = r.data;
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw e;
    }
    if (Array.isArray(data) || (data as { type?: string }).type !== 'file') {
      throw new Error(`${this.location} is not a file`);
    }
    const file = data as { sha: string; content?: string; encoding?: string };
    let text: string;
    if (file.encoding === 'base64' && file.content) {
      text = Buffer.from(file.content, 'base64').toString('utf8');
    } else {
      // Past 1 MB the contents API leaves `content` empty: read the blob by its sha instead.
      this.requests.read++;
      const blob = await this.octokit.rest.git.getBlob({ ...this.repo, file_sha: file.sha });
      text = Buffer.from(blob.data.content, 'base64').toString('utf8');
    }
    return { journal: parseJournal(text, this.location), version: file.sha };
  }

  async write(journal: Journal, expected: string | null, message: string): Promise<WriteResult> {
    const content = Buffer.from(serializeJournal(journal), 'utf8').toString('base64');
    for (let round = 0; round < 2; round++) {
      this.requests.write++;
      try {
        const r = await this.octokit.rest.repos.createOrUpdateFileContents({
          ...this.repo,
          path: this.path,
          branch: this.branch,
          message,
          content,
          ...(expected ? { sha: expected } : {}),
        });
        const sha = r.data.content?.sha;
        if (!sha) throw new Error(`${this.location}: GitHub accepted the write but returned no blob sha`);
        return { ok: true, version: sha };
      } catch (e) {
        const status = statusOf(e);
        const text = String((e as Error).message ?? '');
        if (status === 409 && /\bis at [0-9a-f]+ but expected\b/.test(text))
          return {
            ok: false,
            conflict: `the branch of ${this.location} moved meanwhile (409)`,
            branchMoved: true,
          };
        if (status === 409)
          return { ok: false, conflict: `${this.location} changed since it was read (409)` };
        if (
          expected === null &&
          round === 0 &&
          (status === 404 || (status === 422 && /branch/i.test(text)))
        ) {
          await this.createBranch();
          continue;
        }
        if (status === 422 && /sha/i.test(text)) {
          return { ok: false, conflict: `${this.location} was created or changed since it was read (422)` };
        }
        throw e;
      }
    }
    throw new Error(`${this.location}: the journal branch could not be created`);
  }

  /** Creates the journal branch as an orphan (no history shared with the code) holding a README. */
  private async createBranch(): Promise<void> {
    this.requests.branch += 3;
    const tree = await this.octokit.rest.git.createTree({
      ...this.repo,
      tree: [{ path: 'README.md', mode: '100644', type: 'blob', content: README }],
    });
    const commit = await this.octokit.rest.git.createCommit({
      ...this.repo,
      message: 'interlock: start the journal branch',
      tree: tree.data.sha,
      parents: [],
    });
    try {
      await this.octokit.rest.git.createRef({
        ...this.repo,
        ref: `refs/heads/${this.branch}`,
        sha: commit.data.sha,
      });
    } catch (e) {
      // Another job created it first: that branch is as good as ours.
      if (statusOf(e) !== 422) throw e;
    }
  }
}
