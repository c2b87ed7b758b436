/**
 * Reading a run: the setup every engine operation shares, the run as read and folded (`RunSnapshot`: a `Run` and
 * the version it was read at), and the refusal of a journal that belongs to another run or whose header
 * disagrees with its events (rule 7).
 */
import type { Graph } from '../../graph/model.js';
import { JOURNAL_FORMAT, type Journal } from '../../journal/events/events.js';
import type { RunnerInfo } from '../../journal/events/fields.js';
import { fold, foldOnto } from '../../journal/fold.js';
import { appendEvents } from '../../journal/parse.js';
import { JournalError, type RunState } from '../../journal/state.js';
import type { Run } from '../../protocol/run.js';
import type { JournalStore } from '../../store/types.js';

export interface RunSetup {
  graph: Graph;
  store: JournalStore;
  runId: string;
  /** Recorded in RunStarted when the run starts here. */
  start: {
    intent: string;
    subject: string;
    inputs: Record<string, string>;
    github: unknown;
    /** Who started the run (recorded in RunStarted; `prevent_self_approval` refuses their approvals). */
    started_by?: string;
  };
  /** Who allowed a changed graph, when someone did (`--allow-graph-change`). */
  allowGraphChangeBy?: string;
  /**
   * When what this process acts on happened (its start; a person's comment), and how stale GitHub's reads by
   * branch name may be: a decision that writes nothing is taken only from a read begun `windowMs` after `at`
   * (journal/freshness.ts `staleReadShortMs`). Absent: every read is exact (a file store). `at` absent: the caller
   * looks at a refusal again itself (a person's command: `freshExecute` in src/approvals/handler.ts); the window
   * still bounds how long a write refused with the journal unmoved is tried before the commit gives up.
   */
  staleRead?: { at?: number; windowMs: number };
  /**
   * A line-up's slot (`INTERLOCK_LINE_UP_SLOT_MS`, read by the face: pacing.ts `lineUpWait`). Absent: the tuning
   * schema's default.
   */
  lineUpSlotMs?: number;
  now?: () => string;
  /** The step's secrets: never written to the journal (src/render/redact.ts; the Action: `stepSecrets`). */
  secrets?: readonly string[];
  /** Told where a secret was removed from what is recorded (the Action: a warning in the step log). */
  redacted?: (message: string) => void;
}

/**
 * The run as one read saw it: the `Run` the protocol's decisions take (the setup's graph, the journal, its state)
 * and the version the journal was read at (null before the run is stored), for the next compare-and-swap write.
 */
export interface RunSnapshot extends Run {
  readonly version: string | null;
  /** The state of the journal's first events, when the read was asked to keep it (`ReadFold.prefixAt`). */
  readonly prefix?: RunState;
}

/** How a read folds what it reads, besides from scratch. */
export interface ReadFold {
  /**
   * The run as the caller folded it already: a read that returns that very journal at that version takes its
   * state instead of folding the journal again (the read itself still happens: it is the compare-and-swap's base).
   */
  base?: Omit<RunSnapshot, 'graph'>;
  /**
   * How many of the read journal's first events to fold first and keep (`RunSnapshot.prefix`; undefined: none),
   * the rest folded onto them: a matrix job's planned dispatch is decided again on the journal before it.
   */
  prefixAt?: (journal: Journal) => number | undefined;
}

export class RunRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunRefused';
  }
}

/**
 * Refused because the graph changed since the run started and nobody allowed it (rule 6): nothing was written.
 * `state` is the run as read, for the face to say the way on.
 */
export class GraphChangeRefused extends RunRefused {
  constructor(
    message: string,
    readonly state: RunState,
    /** The hash of the changed graph the command was given under. */
    readonly to: string,
  ) {
    super(message);
    this.name = 'GraphChangeRefused';
  }
}

export function isoNow(): string {
  return new Date().toISOString();
}

/**
 * Reads the run's journal and folds it; a run that has not started reads as a fresh RunStarted (not yet stored).
 * `at`: a commit to read it at (a plan's write, the head a refused write named): exact, where a read by branch
 * name may answer from the past. `how`: a state to take, or a prefix to keep on the way (`ReadFold`).
 */
export async function readRun(
  setup: RunSetup,
  runner: RunnerInfo,
  at?: string,
  how: ReadFold = {},
): Promise<RunSnapshot> {
  const stored = at && setup.store.readAt ? await setup.store.readAt(at) : await setup.store.read();
  if (stored) {
    if (stored.journal.run_id !== setup.runId) {
      throw new RunRefused(
        `${setup.store.location} holds run "${stored.journal.run_id}", not "${setup.runId}"`,
      );
    }
    const { base } = how;
    const same = base?.journal === stored.journal && base.version === stored.version;
    const { state, prefix } = foldStored(setup, stored.journal, {
      ...(same ? { folded: base.state } : {}),
      ...(how.prefixAt ? { prefixAt: how.prefixAt(stored.journal) } : {}),
    });
    return {
      graph: setup.graph,
      journal: stored.journal,
      version: stored.version,
      state,
      ...(prefix ? { prefix } : {}),
    };
  }
  const g = { name: setup.graph.name, hash: setup.graph.hash, path: setup.graph.path };
  const fresh: Journal = { format: JOURNAL_FORMAT, run_id: setup.runId, graph: g, events: [] };
  const journal = appendEvents(
    fresh,
    [
      {
        type: 'RunStarted',
        graph: g,
        intent: setup.start.intent,
        subject: setup.start.subject,
        runner,
        inputs: setup.start.inputs,
        ...(setup.start.github ? { github: setup.start.github } : {}),
        ...(setup.start.started_by ? { started_by: setup.start.started_by } : {}),
      },
    ],
    (setup.now ?? isoNow)(),
  );
  return { graph: setup.graph, journal, version: null, state: fold(journal, setup.graph) };
}

/**
 * Folds a stored journal (or takes `folded`, its fold already made; or folds its first `prefixAt` events, keeps
 * that state, and folds the rest onto it); any error names the store's file as well as the first bad event, and
 * nothing is written.
 */
function foldStored(
  setup: RunSetup,
  journal: Journal,
  how: { folded?: RunState; prefixAt?: number | undefined },
): { state: RunState; prefix?: RunState } {
  const k = how.prefixAt;
  try {
    const prefix =
      how.folded === undefined && k !== undefined && k > 0 && k <= journal.events.length
        ? fold({ ...journal, events: journal.events.slice(0, k) }, setup.graph)
        : undefined;
    const state =
      how.folded ?? (prefix ? foldOnto(prefix, journal, setup.graph) : fold(journal, setup.graph));
    // The header names the graph the events accepted; a header that disagrees was edited or forged.
    if (journal.graph.hash !== state.accepted_hash)
      throw new JournalError(
        `the header names graph ${journal.graph.hash} but its events accepted ${state.accepted_hash}`,
        null,
      );
    return prefix ? { state, prefix } : { state };
  } catch (e) {
    if (e instanceof JournalError)
      throw new JournalError(`${setup.store.location}: ${e.message}; the journal was left untouched`, e.seq);
    throw e;
  }
}
