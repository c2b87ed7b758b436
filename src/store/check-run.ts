/**
 * The check-run store: a run's journal, compressed, in the output of a check run named `interlock: <run-id>` on the
 * subject's head commit; finding it on a living pull request is check-run-find.ts, lost updates check-run-lost.ts.
 */
import { createHash } from 'node:crypto';
import type { GitHubClient, RepoRef } from '../github/client.js';
import { statusOf } from '../github/status.js';
import type { Journal } from '../journal/events/events.js';
import { parseJournal, serializeJournal } from '../journal/parse.js';
import { JournalError } from '../journal/state.js';
import { failpoint } from '../os/crash-failpoint.js';
import { zlib } from '../os/lazy.js';
import {
  type CheckRunHistory,
  type CheckRunWhere,
  type FoundCheckRun,
  JOURNAL_MARK,
  locate,
  movedMark,
  pointerLine,
} from './check-run-find.js';
import { LostUpdate, WriteWitness } from './check-run-lost.js';
import type { JournalStore, StoredJournal, WriteResult } from './types.js';

/** GitHub's limit on a check run's output.text and output.summary. */
export const CHECK_RUN_TEXT_LIMIT = 65_535;
const MARK_OPEN = JOURNAL_MARK;
const MARK_CLOSE = ' -->';
/** A journal's check run is named `interlock: <run-id>`. */
export const NAME_PREFIX = 'interlock: ';

export class JournalTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(
      `the journal needs ${bytes} characters in the check run, over GitHub's limit of ${CHECK_RUN_TEXT_LIMIT}: use the git store (store: git), which has no such limit`,
    );
    this.name = 'JournalTooLarge';
  }
}

/** How a journal shows in the Checks tab. */
export type CheckRunRenderer = (journal: Journal) => {
  title: string;
  summary: string;
  conclusion?: 'success' | 'failure' | 'action_required';
};

/** Encodes a journal compactly for output.text: gzip, then base64, inside an HTML comment. */
export function encodeJournal(journal: Journal): string {
  const text = `${MARK_OPEN}${zlib().gzipSync(serializeJournal(journal), { level: 9 }).toString('base64')}${MARK_CLOSE}`;
  if (text.length > CHECK_RUN_TEXT_LIMIT) throw new JournalTooLarge(text.length);
  return text;
}

export function decodeJournal(text: string, where: string): Journal {
  const start = text.indexOf(MARK_OPEN);
  const end = text.indexOf(MARK_CLOSE, start + MARK_OPEN.length);
  if (start < 0 || end < 0)
    throw new JournalError(`${where}: the check run holds no interlock journal`, null);
  let raw: Buffer;
  try {
    raw = zlib().gunzipSync(Buffer.from(text.slice(start + MARK_OPEN.length, end), 'base64'));
  } catch (e) {
    throw new JournalError(
      `${where}: the journal in the check run is damaged (${(e as Error).message})`,
      null,
    );
  }
  return parseJournal(new Uint8Array(raw), where);
}

/** A check run's journal version: its id and a hash of its text (a check run has no version of its own). */
export const checkRunVersion = (id: number, text: string) =>
  `${id}:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;

/**
 * The journal inside a check run on the subject's head commit, so the run shows in the pull request's Checks
 * tab. GitHub offers no compare-and-swap on check runs: a write re-reads the check run first (refusing when it
 * moved on), reads it back after, and once more when the step ends (`confirm`): a writer whose events another
 * writer overwrote says so (LostUpdate). That detects lost updates, it cannot prevent them: one writer at a time,
 * which a workflow `concurrency` group per run gives; parallel jobs on one run need the git store.
 */
export class CheckRunStore implements JournalStore {
  readonly location: string;
  readonly name: string;
  readonly requests = { read: 0, write: 0 };
  render: CheckRunRenderer | undefined;
  private readonly witness = new WriteWitness();

  private readonly runId: string;
  private readonly headSha: string;
  private readonly history: CheckRunHistory | undefined;
  private owner: string | undefined;

  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: RepoRef,
    run: CheckRunWhere,
  ) {
    ({ runId: this.runId, head: this.headSha, history: this.history, owner: this.owner } = run);
    this.name = `${NAME_PREFIX}${this.runId}`;
    this.location = `check run "${this.name}" on ${this.headSha.slice(0, 12)}`;
  }

  /** The commit whose check run holds the journal as this store last saw or wrote it. */
  journalSha: string | undefined;

  /** The run's check run: on the head, else where the pull request's history leads (check-run-find.ts). */
  private async find(): Promise<FoundCheckRun | null> {
    const found = await locate({
      runId: this.runId,
      head: this.headSha,
      history: this.history ?? {},
      lookup: (sha) => this.findOn(sha),
    });
    if (found) this.journalSha = found.sha;
    this.witnessCheck(found);
    return found;
  }

  private async findOn(sha: string): Promise<FoundCheckRun | null> {
    this.requests.read++;
    let data: Awaited<ReturnType<GitHubClient['rest']['checks']['listForRef']>>['data'];
    try {
      ({ data } = await this.octokit.rest.checks.listForRef({
        ...this.repo,
        ref: sha,
        check_name: this.name,
        filter: 'latest',
        per_page: 20,
      }));
    } catch (e) {
      // A commit a force-push left behind may be gone from GitHub: nothing of the run is there any more.
      if (statusOf(e) === 422 && sha !== this.headSha) return null;
      throw e;
    }
    // By name and owner: a check run of the same name made by another app (a node's token) is not the journal.
    const run = data.check_runs.find((r) => !this.owner || r.app?.slug === this.owner);
    if (!run) return null;
    return { id: run.id, text: run.output?.text ?? '', sha };
  }

  /** Throws LostUpdate when the check run read no longer holds what this store last wrote. */
  private witnessCheck(found: FoundCheckRun | null): void {
    const journal = () => decodeJournal(found?.text ?? '', this.location);
    this.witness.check(this.location, found ? { text: found.text, journal } : null);
  }

  /**
   * Reads the check run once more after this store's last write, so a write another writer overwrote after its
   * read-back is still reported (LostUpdate) by the step that made it. Nothing to do when it wrote nothing.
   */
  async confirm(): Promise<void> {
    if (this.witness.wrote) await this.find();
  }

  /** The check run of an old head, once the run moved to the new head: concluded, saying where it went. */
  private async supersede(old: { id: number; sha: string }): Promise<void> {
    await this.octokit.rest.checks.update({
      ...this.repo,
      check_run_id: old.id,
      status: 'completed',
      conclusion: 'neutral',
      output: {
        title: `${this.name}: moved to ${this.headSha.slice(0, 12)}`,
        summary: `This run moved to the new head ${this.headSha} of its subject and goes on in the check run "${this.name}" there, under the same run id.`,
        text: movedMark(this.headSha),
      },
    });
  }

  async read(): Promise<StoredJournal | null> {
    const found = await this.find();
    if (!found) return null;
    return {
      journal: decodeJournal(found.text, this.location),
      version: checkRunVersion(found.id, found.text),
    };
  }

  async write(journal: Journal, expected: string | null, _message: string): Promise<WriteResult> {
    const text = encodeJournal(journal);
    const shown = this.render?.(journal) ?? { title: this.name, summary: `${journal.events.length} events` };
    const output = {
      title: shown.title.slice(0, 255),
      summary: shown.summary.slice(0, CHECK_RUN_TEXT_LIMIT),
      text,
    };
    const ended = shown.conclusion !== undefined;
    failpoint('check-run:before-read');
    const current = await this.find();
    const currentVersion = current ? checkRunVersion(current.id, current.text) : null;
    if (currentVersion !== expected)
      return { ok: false, conflict: `${this.location} changed since it was read` };
    this.requests.write++;
    let id: number;
    const moved = current && current.sha !== this.headSha ? current : null;
    if (!current || moved) {
      failpoint('check-run:before-create');
      const r = await this.octokit.rest.checks.create({
        ...this.repo,
        name: this.name,
        head_sha: this.headSha,
        status: ended ? 'completed' : 'in_progress',
        ...(ended ? { conclusion: shown.conclusion } : {}),
        output,
      });
      id = r.data.id;
      this.owner ??= r.data.app?.slug;
      failpoint('check-run:after-create');
    } else {
      failpoint('check-run:before-update');
      await this.octokit.rest.checks.update({
        ...this.repo,
        check_run_id: current.id,
        status: ended ? 'completed' : 'in_progress',
        ...(ended ? { conclusion: shown.conclusion } : {}),
        output,
      });
      id = current.id;
      failpoint('check-run:after-update');
    }
    // Read back: a writer that overwrote this one between its check and its write shows here as events missing.
    this.witness.remember(text, journal);
    this.witnessCheck(await this.findOn(this.headSha));
    this.journalSha = this.headSha;
    failpoint('check-run:after-read-back');
    if (moved) await this.supersede(moved);
    return { ok: true, version: checkRunVersion(id, text) };
  }
}

/**
 * The line that ends a run's progress comment when its journal is in a check run: the commit it is on, so the run
 * is found after a force-push takes that commit out of the pull request. Empty for any other store.
 */
export function checkRunPointer(store: JournalStore, runId: string): string {
  const sha = store instanceof CheckRunStore ? store.journalSha : undefined;
  return sha ? `\n\n${pointerLine(runId, sha)}` : '';
}

/**
 * For a step that ends: the LostUpdate message when another writer overwrote the check-run store's last write after its
 * read-back. Any other store has compare-and-swap and nothing to confirm.
 */
export async function confirmWrites(
  store: JournalStore,
  warn: (message: string) => void,
): Promise<string | undefined> {
  if (!(store instanceof CheckRunStore)) return undefined;
  try {
    await store.confirm();
  } catch (e) {
    if (e instanceof LostUpdate) return e.message;
    // The writes were read back already: a check that cannot be made now fails nothing.
    warn(
      `interlock: could not read ${store.location} once more to confirm its last write: ${(e as Error).message}`,
    );
  }
  return undefined;
}
