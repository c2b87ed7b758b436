/**
 * How a fan-out's writers keep out of each other's way on one journal, by design rather than by GitHub's refusals:
 * the line-up of first writes on the clock, and the backoff after a conflict.
 */
import type { NewEvent } from '../../journal/events/events.js';
import { TUNING } from '../../os/tuning.js';
import type { RunSnapshot } from './read.js';

/**
 * The longest wait after a conflict before reading again. Waiting costs no request, and every conflict costs two
 * (the refused write and the read after it), so the wait grows with the writers seen and the conflicts met.
 */
const MAX_BACKOFF_MS = 15_000;

/**
 * How long to wait after a conflict: a random time (full jitter, so the writers that met spread out rather than
 * meet again) in a window of one read-and-write round trip for each writer that may be racing, doubled with each
 * conflict. At the first conflict a writer that knows its `place` among them (see `contenderPlace`) waits that
 * many round trips and a random part of one more instead: the jobs of a matrix, which all read the same version
 * and all but one met a conflict, then line up one round trip apart rather than meet again at random.
 */
export function conflictBackoffMs(
  conflicts: number,
  writers: number,
  roundTripMs: number,
  random = Math.random,
  place = -1,
): number {
  const rt = Math.max(20, roundTripMs);
  if (conflicts === 1 && place >= 0) return Math.min(MAX_BACKOFF_MS, (place + random()) * rt);
  const window = rt * Math.max(1, writers) * 2 ** Math.min(Math.max(0, conflicts - 1), 6);
  return random() * Math.min(MAX_BACKOFF_MS, window);
}

/**
 * Where the node a refused write was for stands among the writers that may be racing, in the state read before
 * it: the nodes in flight (each job records its own), then the ready ones (each job dispatches its own), in the
 * fold's order, so each job of a matrix finds a place of its own. -1 for a write about no such node.
 */
export function contenderPlace(state: RunSnapshot['state'], events: NewEvent[]): number {
  const node = events.map((e) => ('node' in e ? e.node : undefined)).find((n) => n !== undefined);
  if (node === undefined) return -1;
  const cp = state.checkpoint;
  return [...cp.active_nodes, ...cp.ready_nodes.filter((n) => !cp.active_nodes.includes(n))].indexOf(node);
}

/**
 * A line-up's slot: a job's two writes (dispatch and record) at GitHub's pace for content-creating requests (80
 * a minute per token: 750 ms each), with room for a contents write, which takes GitHub a few hundred
 * milliseconds during which another write to the branch fails it. A read's round trip is far too short a slot.
 * From `INTERLOCK_LINE_UP_SLOT_MS` (src/os/tuning.ts: 100 to 60,000 ms, default 2,000), which the face reads and
 * passes as `RunSetup.lineUpSlotMs`: a GitHub that answers faster or slower than github.com, or a test's
 * scaled-down model, is told so as the stale window is.
 */
interface LineUpPace {
  /** One read-and-write round trip: the slot is never shorter. */
  roundTripMs: number;
  /** The face's slot (`RunSetup.lineUpSlotMs`); absent, the tuning schema's default. */
  slotMs?: number | undefined;
}

/** A line-up's cycle is at most a minute: past 30 jobs, places share slots. */
const MAX_LINE_UP_MS = 60_000;

/**
 * Before the first write of a line-up (`CommitOptions.lineUp`): how long to wait and read again, or 0 to write.
 * The jobs of a matrix start seconds apart, so a wait counted from each job's own start would not keep them
 * apart: the slots are on the clock (runners keep it synchronized), one cycle of `cohort` slots, the node p-th
 * among those in flight or ready writing at the cycle's p-th slot. Twenty jobs spread their first writes over 40 s
 * and the fan-out keeps within the minute's limit by design rather than by GitHub's refusals and `retry-after`.
 * A node a plan dispatched with its wave (`plannedWave`) keeps the place the plan gave it, whoever recorded since.
 */
export function lineUpWait(cur: RunSnapshot, events: NewEvent[], pace: LineUpPace, now = Date.now()): number {
  const cp = cur.state.checkpoint;
  const wave = plannedWave(cur.state, events);
  const cohort = wave?.size ?? new Set([...cp.active_nodes, ...cp.ready_nodes]).size;
  const place = wave?.place ?? contenderPlace(cur.state, events);
  if (place < 0 || cohort < 2) return 0;
  const slot = Math.max(pace.slotMs ?? TUNING.INTERLOCK_LINE_UP_SLOT_MS.default, pace.roundTripMs);
  const places = Math.max(1, Math.min(cohort, Math.floor(MAX_LINE_UP_MS / slot)));
  const cycle = places * slot;
  return ((((place % places) * slot - (now % cycle)) % cycle) + cycle) % cycle;
}

/**
 * The place a plan gave the node these events are about, and the size of its wave, when a plan dispatched it for a
 * matrix job (`runner.wave`, written by `planWave`): stable while the wave's records land, where a place among the
 * nodes in flight would shift with each.
 */
export function plannedWave(
  state: RunSnapshot['state'],
  events: NewEvent[],
): { place: number; size: number } | undefined {
  const node = events.map((e) => ('node' in e ? e.node : undefined)).find((n) => n !== undefined);
  const wave = node === undefined ? undefined : state.nodes?.get(node)?.dispatch?.runner.wave;
  const { place, size } = (wave ?? {}) as { place?: unknown; size?: unknown };
  return Number.isInteger(place) && Number.isInteger(size) && (place as number) >= 0
    ? { place: place as number, size: size as number }
    : undefined;
}
