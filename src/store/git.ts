import { createHash } from 'node:crypto';
import { type GitHubClient, type RepoRef, untilNextWrite } from '../github/client.js';
import { statusOf } from '../github/status.js';
import type { Journal } from '../journal/events/events.js';
import { parseJournal, serializeJournal } from '../journal/parse.js';
import { branchableRunId, runBranch, runPath } from './git-layout.js';
import type { JournalStore, StoredJournal, WriteResult } from './types.js';

export const DEFAULT_JOURNAL_BRANCH = 'interlock-journal';

const README = `# interlock journals

This branch holds interlock's run journals under \`runs/\`. Each file is an append-only list of events;
interlock rewrites it with compare-and-swap on the file's blob sha. Do not edit these files by hand while a run
is going: read them, or use interlock's commands.
`;

/** Where a run's journal is: its own branch, or the journal branch of the layout before (see git-layout.ts). */
export type GitPlace = 'run' | 'legacy';

/** The sha git gives a blob of these bytes: the version a contents write names next. */
export function blobSha(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * The journal as `runs/<run-id>.json` on a branch of the run's own (`interlock-journal-runs/<run-id>`), or, for a
 * run that started before that layout, on the journal branch (`interlock-journal`), where it goes on. A write
 * goes through the contents API naming the blob sha that was read; GitHub refuses it (409, or 422 when the file
 * appeared meanwhile) when the file or its branch moved on, and the caller re-reads and re-decides. A run's first
 * write makes its branch: a tree with the journal, a commit, and the ref, which GitHub refuses when it exists.
 */
export class GitStore implements JournalStore {
  readonly path: string;
  /** Requests this store made, by kind, for reports and benchmarks. */
  readonly requests = { read: 0, write: 0, branch: 0 };
  private readonly own: string;

  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: RepoRef,
    runId: string,
    private readonly branch = DEFAULT_JOURNAL_BRANCH,
    /** Where the journal is when the caller knows (a listing); else the first read finds out. */
    private place?: GitPlace,
  ) {
    this.path = runPath(runId);
    this.own = runBranch(branch, runId);
    if (!branchableRunId(runId)) this.place = 'legacy';
  }

  /** The branch the journal is on, or is made on when the run starts. */
  get journalBranch(): string {
    return this.place === 'legacy' ? this.branch : this.own;
  }

  get location(): string {
    return `${this.repo.owner}/${this.repo.repo}@${this.journalBranch}:${this.path}`;
  }

  writableInMs(): number {
    return untilNextWrite(this.octokit);
  }

  /** The run's own branch first, then (until the journal is found on one) the journal branch of before. */
  async read(): Promise<StoredJournal | null> {
    const raw = await this.readText();
    return raw && { journal: parseJournal(raw.text, raw.where), version: raw.version };
  }

  /** The journal's text as stored, unparsed, with its version and where it was found. */
  async readText(): Promise<{ text: string; version: string; where: string } | null> {
    if (this.place !== 'legacy') {
      const own = await this.readFrom(this.own);
      if (own || this.place === 'run') {
        if (own) this.place = 'run';
        return own;
      }
    }
    const old = await this.readFrom(this.branch);
    if (old) this.place = 'legacy';
    return old;
  }

  /** The journal at a commit of its branch (a sha a write returned or a refusal named): exact. */
  async readAt(commit: string): Promise<StoredJournal | null> {
    const raw = await this.readTextAt(commit);
    return raw && { journal: parseJournal(raw.text, raw.where), version: raw.version };
  }

  /** The journal's text at a commit (a run branch's head as a listing saw it): exact, unparsed. */
  async readTextAt(commit: string): Promise<{ text: string; version: string; where: string } | null> {
    if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`${this.location}: "${commit}" is not a commit sha`);
    return this.readFrom(commit);
  }

  private async readFrom(branch: string): Promise<{ text: string; version: string; where: string } | null> {
    this.requests.read++;
    const where = `${this.repo.owner}/${this.repo.repo}@${branch}:${this.path}`;
    let data: unknown;
    try {
      const r = await this.octokit.rest.repos.getContent({ ...this.repo, path: this.path, ref: branch });
      data = r.data;
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw e;
    }
    if (Array.isArray(data) || (data as { type?: string }).type !== 'file') {
      throw new Error(`${where} is not a file`);
    }
    const file = data as { sha: string; content?: string; encoding?: string };
    if (file.encoding === 'base64' && file.content) {
      return { text: Buffer.from(file.content, 'base64').toString('utf8'), version: file.sha, where };
    }
    // Past 1 MB the contents API leaves `content` empty: read the blob by its sha instead.
    this.requests.read++;
    const blob = await this.octokit.rest.git.getBlob({ ...this.repo, file_sha: file.sha });
    return { text: Buffer.from(blob.data.content, 'base64').toString('utf8'), version: file.sha, where };
  }

  async write(journal: Journal, expected: string | null, message: string): Promise<WriteResult> {
    const text = serializeJournal(journal);
    if (this.place !== 'legacy' && expected === null) return this.create(text, message);
    let r = this.place === 'legacy' ? 'no-branch' : await this.put(this.own, text, expected, message);
    // A version from a listing of the journal branch, given to a store that did not know where the run is.
    if (r === 'no-branch' && this.place !== 'run') {
      this.place = 'legacy';
      r = await this.put(this.branch, text, expected, message);
    }
    if (r === 'no-branch') throw new Error(`${this.location}: the branch of the run was deleted`);
    return r;
  }

  /**
   * A contents write on `branch`; 'no-branch' when the branch does not exist and `expected` names a version. The
   * journal branch of before is made (as an orphan holding a README) when a run starts there.
   */
  private async put(
    branch: string,
    text: string,
    expected: string | null,
    message: string,
  ): Promise<WriteResult | 'no-branch'> {
    const where = `${this.repo.owner}/${this.repo.repo}@${branch}:${this.path}`;
    const content = Buffer.from(text, 'utf8').toString('base64');
    for (let round = 0; round < 2; round++) {
      this.requests.write++;
      try {
        const r = await this.octokit.rest.repos.createOrUpdateFileContents({
          ...this.repo,
          path: this.path,
          branch,
          message,
          content,
          ...(expected ? { sha: expected } : {}),
        });
        const sha = r.data.content?.sha;
        if (!sha) throw new Error(`${where}: GitHub accepted the write but returned no blob sha`);
        const commit = r.data.commit?.sha;
        return { ok: true, version: sha, ...(commit ? { commit } : {}) };
      } catch (e) {
        const status = statusOf(e);
        const said = String((e as Error).message ?? '');
        const moved = status === 409 ? /\bis at ([0-9a-f]+) but expected\b/.exec(said) : null;
        if (moved)
          return {
            ok: false,
            conflict: `the branch of ${where} moved meanwhile (409)`,
            branchMoved: true,
            ...(moved[1]!.length === 40 ? { head: moved[1]! } : {}),
          };
        if (status === 409) return { ok: false, conflict: `${where} changed since it was read (409)` };
        const noBranch = status === 404 || (status === 422 && /branch/i.test(said));
        if (noBranch && expected !== null) return 'no-branch';
        if (noBranch && expected === null && round === 0) {
          await this.createOrphan(branch, [{ path: 'README.md', text: README }], 'start the journal branch');
          continue;
        }
        if (status === 422 && /sha/i.test(said)) {
          return { ok: false, conflict: `${where} was created or changed since it was read (422)` };
        }
        throw e;
      }
    }
    throw new Error(`${where}: the journal branch could not be created`);
  }

  /**
   * A run's first write: its branch made with the journal in it (tree, commit, ref: three requests). GitHub
   * refuses the ref when it exists, so two writers starting the same run are one compare-and-swap. A ref git
   * cannot hold (another run's id is a folder of this one's) sends the run to the journal branch instead.
   */
  private async create(text: string, message: string): Promise<WriteResult> {
    const files = [
      { path: 'README.md', text: README },
      { path: this.path, text },
    ];
    const made = await this.createOrphan(this.own, files, message);
    if (made === 'exists') return { ok: false, conflict: `${this.location} was created since it was read` };
    if (made === 'refused') {
      this.place = 'legacy';
      const r = await this.put(this.branch, text, null, message);
      if (r === 'no-branch') throw new Error(`${this.location}: the journal branch could not be created`);
      return r;
    }
    this.place = 'run';
    return { ok: true, version: blobSha(text), commit: made.commit };
  }

  /** Makes `branch` point at a new commit without parents holding `files`. */
  private async createOrphan(
    branch: string,
    files: Array<{ path: string; text: string }>,
    message: string,
  ): Promise<{ commit: string } | 'exists' | 'refused'> {
    this.requests.branch += 3;
    const tree = await this.octokit.rest.git.createTree({
      ...this.repo,
      tree: files.map((f) => ({ path: f.path, mode: '100644', type: 'blob', content: f.text })),
    });
    const commit = await this.octokit.rest.git.createCommit({
      ...this.repo,
      message: branch === this.branch ? 'interlock: start the journal branch' : message,
      tree: tree.data.sha,
      parents: [],
    });
    try {
      await this.octokit.rest.git.createRef({
        ...this.repo,
        ref: `refs/heads/${branch}`,
        sha: commit.data.sha,
      });
      return { commit: commit.data.sha };
    } catch (e) {
      if (statusOf(e) !== 422) throw e;
      // The journal branch of before, made by another job first, is as good as ours.
      if (branch === this.branch || /already exists/i.test(String((e as Error).message))) return 'exists';
      return (await this.refExists(branch)) ? 'exists' : 'refused';
    }
  }

  private async refExists(branch: string): Promise<boolean> {
    this.requests.read++;
    try {
      await this.octokit.rest.git.getRef({ ...this.repo, ref: `heads/${branch}` });
      return true;
    } catch (e) {
      if (statusOf(e) === 404) return false;
      throw e;
    }
  }
}
