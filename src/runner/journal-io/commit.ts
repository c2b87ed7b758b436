/**
 * The compare-and-swap commit: read, decide from the state read, write if the journal is still at that version;
 * on a conflict re-read and decide again (never re-append blindly), and recognise a write that landed although
 * its answer was lost. Also the error a step throws when the store could not be read or written.
 */
import { canonicalJson } from '../../graph/canonical.js';
import type { Journal, NewEvent } from '../../journal/events/events.js';
import type { RunnerInfo } from '../../journal/events/fields.js';
import { eventLabel } from '../../journal/events/label.js';
import { foldOnto } from '../../journal/fold.js';
import { staleReadShortMs } from '../../journal/freshness.js';
import { JournalError } from '../../journal/state.js';
import { graphChange } from '../../protocol/commands/graph-change.js';
import { redactSecrets } from '../../render/redact.js';
import type { JournalStore } from '../../store/types.js';
import { nextJournal, underGraph } from './next-journal.js';
import { conflictBackoffMs, contenderPlace, lineUpWait } from './pacing.js';
import {
  GraphChangeRefused,
  type ReadFold,
  RunRefused,
  type RunSetup,
  type RunSnapshot,
  readRun,
} from './read.js';

/**
 * Conflicts a commit lives through. Each one, in a race, means another writer's events landed (the journal
 * moved on), so the budget is generous: 32 parallel jobs on one journal met up to 33 each.
 */
const MAX_CONFLICTS = 200;
/**
 * A write refused although the journal did not move on is no race: the store keeps refusing it (GitHub answering
 * 409 to every try, say). Try it this many times, then give up rather than spend the conflict budget.
 */
const MAX_STALLED = 3;
/**
 * Writes whose outcome stayed unknown (5xx, dropped connections) after the client's own retries: re-read and
 * try again this many times, then give up, rather than keep a failing GitHub busy for the conflict budget.
 */
const MAX_UNKNOWN_OUTCOMES = 2;
/** Refused writes remembered to recognise one that landed after all (each holds a whole journal). */
const MAX_REMEMBERED = 8;

/** Thrown when the journal could not be read or written: says what state this step left the run in. */
class StoreUnavailable extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'StoreUnavailable';
  }
}

/** Refusals and damaged journals say what they mean already; any other error is the store failing. */
export function storeFailure(e: unknown, say: (why: string) => string): unknown {
  if (e instanceof RunRefused || e instanceof JournalError) return e;
  return new StoreUnavailable(say((e as Error)?.message ?? String(e)), e);
}

/**
 * True when `now` holds, right after the first `from` events, exactly the events `attempt` appended. Compared as
 * canonical (sorted-key) JSON: a journal read back is parsed through the schema, which orders keys its own way (a
 * runner's known fields first, then its extra ones), so the events written and the same events read back differ
 * as plain JSON.
 */
function landed(attempt: Journal, from: number, now: Journal): boolean {
  const ours = attempt.events.slice(from);
  if (ours.length === 0 || now.events.length < attempt.events.length) return false;
  const theirs = now.events.slice(from, from + ours.length);
  return canonicalJson(theirs) === canonicalJson(ours);
}

/** Errors after which a write's outcome is unknown and a fresh read decides: network failures and 5xx. */
function transient(e: unknown): boolean {
  const status = (e as { status?: unknown })?.status;
  if (typeof status === 'number') return status >= 500 || status === 0;
  const code =
    (e as { code?: unknown; cause?: { code?: unknown } })?.code ??
    (e as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|UND_ERR)/.test(code);
}

interface CommitOptions {
  /** Store the run's start even when the decision adds no event (a run that has not started is created). */
  create?: boolean;
  /** The state just written by this process: the first try decides from it without reading again. */
  known?: RunSnapshot;
  /**
   * A matrix job's first write: when the first read finds no node in flight (a matrix's first round, whose jobs
   * all read the same version), a writer whose node stands p-th among the ready ones waits p round trips and
   * reads again before writing, rather than write where every other job writes too (all but one would be
   * refused, and each refusal costs the write and a read again). Once, and only before any write.
   */
  lineUp?: boolean;
  /** A commit to read the journal at first (a plan's write, passed to its matrix jobs): exact, never stale. */
  at?: string;
  /** How each read folds (read.ts `ReadFold`): the App's loaded run taken, a planned dispatch's prefix kept. */
  fold?: ReadFold;
}

interface Tried<T> {
  journal: Journal;
  /** What `decide` chose on that try: its events and whatever else the caller wants back. */
  chosen: T;
  from: number;
  version: string | null;
  why: string;
  branchMoved?: boolean;
  /** When the store refused it (ms since the epoch). */
  refusedAt: number;
}

/** A write refused although the journal read back did not move; one refused because the branch moved is no stall. */
function stalledOn(tried: Tried<unknown>, cur: RunSnapshot): boolean {
  return cur.version === tried.version && !tried.branchMoved;
}

/**
 * Nothing to write is a decision on what the journal lacks: taken only from a read that holds what came before
 * this process (`RunSetup.staleRead`); how long until such a read may begin.
 */
function staleWaitMs(setup: RunSetup, readAt: number, chosen: object): number {
  // A decision on what the journal holds (`exact`: a plan's dispatch taken, say) needs no read past the window.
  if ((chosen as { exact?: unknown }).exact === true) return 0;
  return staleReadShortMs(readAt, setup.staleRead?.at, setup.staleRead?.windowMs ?? 0);
}

/**
 * The events without any secret of the step (src/render/redact.ts): the one place every journal write passes, so
 * no value a node could have shaped (outputs, usage, session ids, failure excerpts, connections) carries one.
 */
function withoutSecrets(setup: RunSetup, events: NewEvent[]): NewEvent[] {
  if (!setup.secrets?.length) return events;
  const { value, found } = redactSecrets(events, setup.secrets);
  for (const at of new Set(found)) {
    const [i, ...field] = at.split('.');
    const e = events[Number(i)];
    const node = e && 'node' in e ? ` of "${e.node}"` : '';
    setup.redacted?.(
      `a secret of the step was in ${e?.type ?? 'an event'}${node} (${field.join('.')}); it is recorded as [secret removed]`,
    );
  }
  return value;
}

function commitMessage(setup: RunSetup, cur: RunSnapshot, events: NewEvent[]): string {
  const start = cur.version === null ? 'RunStarted' : '';
  return `interlock: ${setup.runId} ${start}${start && events.length ? ', ' : ''}${events.map(eventLabel).join(', ')}`;
}

/**
 * Compare-and-swap commit: reads, lets `decide` choose events from the current state, writes them if the
 * journal is still at that version; on a conflict it re-reads and decides again (never re-appends blindly).
 */
export async function commit<T extends { events: NewEvent[]; refusal?: string | undefined }>(
  setup: RunSetup,
  runner: RunnerInfo,
  decide: (cur: RunSnapshot) => T | Promise<T>,
  options: CommitOptions = {},
): Promise<{ cur: RunSnapshot; chosen: T; conflicts: number; commit?: string }> {
  let conflicts = 0;
  let unknown = 0;
  let stalled = 0;
  // The last refused writes: one refused on a retry may have landed (its answer lost); any may show in a later read.
  const tries: Tried<T>[] = [];
  let lineUp = options.lineUp === true;
  let start = options.known;
  // Where the next read is exact: the commit given, then the head a branch-moved refusal names.
  let at = options.at;
  // How long one read of the journal took: a write's round trip is about as long (the write's own time is not
  // measured, as the client may hold a write back to space it from the one before).
  let readMs = 0;
  // After a conflict: the wait that spreads the writers that met (`conflictBackoffMs`).
  let backoff = 0;
  while (true) {
    // Read as late as the write can go: a read followed by a wait for the client's next write slot is stale. The
    // backoff counts from then: inside the client's spacing (a second) it would not spread the writers at all.
    const hold = (start ? 0 : (setup.store.writableInMs?.() ?? 0)) + backoff;
    backoff = 0;
    if (hold > 0) await new Promise((res) => setTimeout(res, hold));
    const readAt = Date.now();
    const fromRead = start === undefined;
    // A read that returns the caller's journal takes its state (any other is folded): safe for every read.
    let cur = start ?? (await readRun(setup, runner, at, options.fold));
    at = undefined;
    if (!start) readMs = Date.now() - readAt;
    start = undefined;
    const ours = [...tries].reverse().find((t) => landed(t.journal, t.from, cur.journal));
    // A write landed although its answer was lost (a timeout or a 502 after the write): it is ours.
    if (ours) return { cur, chosen: ours.chosen, conflicts };
    const tried = tries.at(-1);
    if (tried && stalledOn(tried, cur) && ++stalled > MAX_STALLED) {
      backoff = lateProofWait(setup, tried, fromRead ? readAt : undefined, stalled);
      stalled--;
      continue;
    }
    const change = graphChange(setup.graph, cur.state, setup.allowGraphChangeBy);
    if (!change.ok) throw new GraphChangeRefused(change.reason, cur.state, setup.graph.hash);
    const under = underGraph(setup, cur, change.events);
    const chosen = await decide(under);
    const events = withoutSecrets(setup, [...change.events, ...chosen.events]);
    // A refused command writes nothing: not even the permission to go on under a changed graph it came with. A
    // decision to write nothing is taken only from a read past the stale window.
    if (chosen.refusal || (events.length === 0 && (cur.version !== null || !options.create))) {
      backoff = fromRead ? staleWaitMs(setup, readAt, chosen) : 0;
      if (backoff > 0) continue;
      return { cur, chosen, conflicts };
    }
    if (lineUp) {
      lineUp = false;
      backoff = lineUpWait(cur, chosen.events, { roundTripMs: 2 * readMs, slotMs: setup.lineUpSlotMs });
      if (backoff > 0) continue;
    }
    const journal = nextJournal(setup, under, events.slice(change.events.length), cur.journal.events.length);
    const r: Awaited<ReturnType<JournalStore['write']>> = await setup.store
      .write(journal, cur.version, commitMessage(setup, cur, events))
      .catch((e: unknown) => {
        // Unknown outcome: read again before anything else, and recognise the write if it landed.
        if (!transient(e) || ++unknown > MAX_UNKNOWN_OUTCOMES || conflicts >= MAX_CONFLICTS) throw e;
        return { ok: false as const, conflict: (e as Error).message };
      });
    if (r.ok) {
      cur = written(cur, journal, r.version);
      return { cur, chosen, conflicts, ...(r.commit ? { commit: r.commit } : {}) };
    }
    if (tries.push(refused(journal, chosen, cur, r)) > MAX_REMEMBERED) tries.shift();
    at = r.head;
    if (++conflicts > MAX_CONFLICTS)
      throw new Error(
        `${setup.store.location}: gave up after ${conflicts} write conflicts; the journal is intact, run again`,
      );
    backoff = afterConflictMs(cur, chosen.events, conflicts, readMs);
  }
}

/** The run after a write landed: the written journal continues the one read, so only its new events are folded. */
function written(cur: RunSnapshot, journal: Journal, version: string): RunSnapshot {
  return { graph: cur.graph, journal, version, state: foldOnto(cur.state, journal, cur.graph) };
}

/** What a refused write tried, for the next read to recognise it or see that the journal did not move. */
function refused<T>(
  journal: Journal,
  chosen: T,
  cur: RunSnapshot,
  r: { conflict: string; branchMoved?: boolean },
): Tried<T> {
  const from = cur.journal.events.length;
  const tried: Tried<T> = {
    journal,
    chosen,
    from,
    version: cur.version,
    why: r.conflict,
    refusedAt: Date.now(),
  };
  if (r.branchMoved) tried.branchMoved = true;
  return tried;
}

/**
 * After more stalls than `MAX_STALLED`: a read by branch name may answer from before the write that refused ours,
 * so the journal looks unmoved although another writer moved it. Before giving up, read once more from where the
 * past cannot answer (a read begun a stale window after the refusal): how long to wait for that read, or, when
 * the read (begun at `readAt`; undefined: the state this process wrote) was such a read already, the error.
 */
function lateProofWait(
  setup: RunSetup,
  tried: Tried<unknown>,
  readAt: number | undefined,
  stalled: number,
): number {
  const short =
    readAt === undefined ? 0 : staleReadShortMs(readAt, tried.refusedAt, setup.staleRead?.windowMs ?? 0);
  if (short > 0) return short;
  throw new Error(
    `${setup.store.location}: the write was refused ${stalled} times although the journal did not change (${tried.why}); the journal is intact, run again`,
  );
}

/**
 * The wait after a conflict. Who may be racing for the journal: a job for each node in flight (to record it) and
 * each node ready (to dispatch it, as a matrix's jobs all do at once). A lone writer never waits: it meets none.
 */
function afterConflictMs(cur: RunSnapshot, events: NewEvent[], conflicts: number, readMs: number): number {
  const cp = cur.state.checkpoint;
  const writers = cp.active_nodes.length + cp.ready_nodes.length;
  const place = contenderPlace(cur.state, events);
  return conflictBackoffMs(conflicts, writers, 2 * readMs, Math.random, place);
}
