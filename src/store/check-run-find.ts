/**
 * Where a run's check run is on a living pull request: on the head; else where the pull request says it was (the
 * `synchronize` event's `before`, the pointer at the end of interlock's progress comment, the pull request's
 * earlier commits), following the "moved to" mark an old head's check run keeps. Only a check run found by name
 * (and owner) is ever read: a pointer only says where to look. A run that cannot be found but shows it existed
 * (a pointer, an old check run) is lost, and is never started again under the same id.
 */
import { nextRunId } from '../journal/run-id.js';

/** Marks the journal inside a check run's output.text. */
export const JOURNAL_MARK = '<!-- interlock-journal:v1:gzip-base64:';
const MOVED = /<!-- interlock-moved:v1:([0-9a-f]{40}) -->/;
const POINTER = /^<!-- interlock:check-run (\S+) ([0-9a-f]{40}) -->$/;

/** What an old head's check run keeps in its output.text once the run moved on: where it went. */
export const movedMark = (sha: string) => `<!-- interlock-moved:v1:${sha} -->`;

/** The line interlock ends its progress comment with: where the run's check run is now. */
export const pointerLine = (runId: string, sha: string) => `<!-- interlock:check-run ${runId} ${sha} -->`;

/** The run and commit a comment's last line points to, if it is interlock's pointer. Pure. */
export function pointerOf(body: string): { runId: string; sha: string } | undefined {
  const m = POINTER.exec(body.trimEnd().split('\n').pop() ?? '');
  return m?.[1] && m[2] ? { runId: m[1], sha: m[2] } : undefined;
}

/** Where else a run's check run may be besides the head of its pull request. */
export interface CheckRunHistory {
  /** The head before the push that started this step (a `synchronize` event's `before`). */
  before?: string;
  /** Where interlock's own progress comments (by a bot) say each run's check run is: run id to sha. */
  pointers?: () => Promise<Map<string, string>>;
  /** The pull request's earlier commits, newest first. */
  earlierShas?: () => Promise<string[]>;
}

/** Which run a check-run store holds, and where its check run is. */
export interface CheckRunWhere {
  runId: string;
  /** The subject's head commit: where the check run is written. */
  head: string;
  /** Where an earlier head's check run may be, after a force-push. */
  history?: CheckRunHistory;
  /** The app whose check runs hold the journal; learned from the first one the store makes when not given. */
  owner?: string;
}

/** A check run of the run's name (and owner) on one commit. */
export interface FoundCheckRun {
  id: number;
  text: string;
  sha: string;
}

/** A run that existed on the pull request, whose journal's check run can no longer be found. */
export class RunLost extends Error {
  constructor(runId: string, why: string[]) {
    super(
      `run "${runId}" was started on this pull request (${why.join('; ')}), but the check run holding its journal is not on the head or on any commit the pull request names (a force-push took its commit away). It is not started again under the same id, which could run a completed node twice. To start afresh, dispatch the workflow with run-id: ${nextRunId(runId)} (docs/approvals.md, "Starting afresh"); to go on with the old run, push its commit back to the pull request's branch.`,
    );
    this.name = 'RunLost';
  }
}

/** How far back through a pull request's commits a read looks. */
export const EARLIER_LIMIT = 30;
/** How many "moved to" marks a read follows from one place. */
const MAX_HOPS = 10;

interface LocateOptions {
  runId: string;
  head: string;
  history: CheckRunHistory;
  /** The run's check run on one commit; null when there is none (or the commit is gone). */
  lookup: (sha: string) => Promise<FoundCheckRun | null>;
}

/** The check run holding the run's journal; null for a run never started here; throws RunLost for a lost one. */
export async function locate(o: LocateOptions): Promise<FoundCheckRun | null> {
  const seen = new Set<string>();
  const traces: string[] = [];
  const visit = async (start: string, where: string): Promise<FoundCheckRun | null> => {
    for (let sha: string | undefined = start, hop = 0; sha && !seen.has(sha) && hop < MAX_HOPS; hop++) {
      seen.add(sha);
      const found = await o.lookup(sha);
      if (!found) return null;
      if (found.text.includes(JOURNAL_MARK)) return found;
      traces.push(`a check run of the run on ${sha.slice(0, 12)} (${where})`);
      sha = MOVED.exec(found.text)?.[1];
    }
    return null;
  };
  const here = await visit(o.head, 'the head');
  if (here) return here;
  const h = o.history;
  if (h.before) {
    const found = await visit(h.before, 'the head before the push');
    if (found) return found;
  }
  const pointed = (await h.pointers?.())?.get(o.runId);
  if (pointed) {
    traces.unshift(`interlock's progress comment names its check run on ${pointed.slice(0, 12)}`);
    const found = await visit(pointed, "where interlock's progress comment points");
    if (found) return found;
  }
  for (const sha of ((await h.earlierShas?.()) ?? []).slice(0, EARLIER_LIMIT)) {
    const found = await visit(sha, 'an earlier commit of the pull request');
    if (found) return found;
  }
  if (traces.length) throw new RunLost(o.runId, traces);
  return null;
}
