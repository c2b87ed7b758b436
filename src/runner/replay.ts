/**
 * What `interlock replay` needs of a run (issue 48): the attempt's recording as the journal names it, and the
 * attempt's options rebuilt from the journal as it stood at its dispatch, under the graph as it is now (so a
 * changed prompt is what the replay runs). Reads only; the journal is never written.
 */

import { randomUUID } from 'node:crypto';
import type { Graph } from '../graph/model.js';
import type { Journal, JournalEvent } from '../journal/events/events.js';
import { fold } from '../journal/fold.js';
import type { Isolation } from '../os/isolation.js';
import { sameCredentialsUnder } from '../os/node-user/node-credentials.js';
import type { ChainMember } from '../protocol/chain-dispatch.js';
import { decideNext } from '../protocol/decide.js';
import { runOf } from '../protocol/run.js';
import type { AttemptOptions } from './attempt/attempt.js';

/** Where an attempt's recording is, as its record in the journal says. */
export interface RecordingRef {
  path: string;
  sha256: string;
  calls: number;
  /** The working directory the attempt ran in, when it is not this one (the Action's checkout). */
  workspace?: string;
  /** The workflow artifact that keeps it (the Action). */
  artifact?: { repository: string; workflow_run_id: number; name: string; id?: number };
}

/** The attempt a replay is of: its number and its recording. */
interface ReplayedAttempt {
  attempt: number;
  recording: RecordingRef;
}

type Ended = Extract<JournalEvent, { type: 'NodeRecorded' | 'NodeFailed' }>;

function recordingOf(e: Ended): RecordingRef | undefined {
  const r = (e.usage as { metered?: { recording?: RecordingRef } }).metered?.recording;
  return r && typeof r.path === 'string' && typeof r.sha256 === 'string' ? r : undefined;
}

/**
 * The attempt of `node` to replay: `attempt` when given, else its last attempt with a recording. An error in
 * words when there is none (the words say why: no such node, no such attempt, not recorded).
 */
export function recordedAttempt(journal: Journal, node: string, attempt?: number): ReplayedAttempt | string {
  const ended = journal.events.filter(
    (e): e is Ended => (e.type === 'NodeRecorded' || e.type === 'NodeFailed') && e.node === node,
  );
  const dispatches = journal.events.filter(
    (e): e is Extract<JournalEvent, { type: 'NodeDispatched' }> =>
      e.type === 'NodeDispatched' && e.node === node && (attempt === undefined || e.attempt === attempt),
  );
  if (!journal.events.some((e) => e.type === 'NodeDispatched' && e.node === node))
    return `node "${node}" has no attempt in run "${journal.run_id}"`;
  const first = dispatches.at(-1)?.chain?.first;
  const none =
    first && first !== node
      ? `was done in the serialized chain of "${first}", whose one call was recorded: replay "${first}"`
      : "has no recording: only an agent's attempt whose model calls went through the key proxy is recorded (interlock run --agent-credentials)";
  if (attempt !== undefined) {
    const e = ended.find((x) => x.attempt === attempt);
    if (!e) return `"${node}" has no ended attempt ${attempt} in run "${journal.run_id}"`;
    const r = recordingOf(e);
    if (!r) return `"${node}" attempt ${attempt} ${none}`;
    return { attempt, recording: r };
  }
  const last = [...ended].reverse().find((e) => recordingOf(e));
  if (!last) return `"${node}" ${none}`;
  return { attempt: last.attempt, recording: recordingOf(last)! };
}

/**
 * The replayed attempt's options: the journal up to and with its dispatch, folded under `graph`, and the
 * approach and context the dispatch decision gives there; for a serialized chain's first node, the chain's other
 * nodes too (its one call was recorded as the first node's). An error in words when the graph no longer gives it
 * (the node gone, no longer ready there, or chained otherwise).
 */
export function replayOptions(
  graph: Graph,
  journal: Journal,
  which: { node: string; attempt: number; isolation: Isolation },
): (AttemptOptions & { chain?: ChainMember[] }) | string {
  const { node, attempt } = which;
  const sameCredentials = sameCredentialsUnder(which.isolation.credentials);
  const at = journal.events.findIndex(
    (e) => e.type === 'NodeDispatched' && e.node === node && e.attempt === attempt,
  );
  if (at < 0) return `"${node}" attempt ${attempt} has no dispatch in the journal`;
  const dispatch = journal.events[at] as Extract<JournalEvent, { type: 'NodeDispatched' }>;
  if (dispatch.chain && dispatch.chain.first !== node)
    return `"${node}" attempt ${attempt} was done in the serialized chain of "${dispatch.chain.first}", whose one call was recorded: replay "${dispatch.chain.first}"`;
  const before: Journal = { ...journal, events: journal.events.slice(0, at) };
  const decision = decideNext(runOf(graph, before), { runner: dispatch.runner, only: node, sameCredentials });
  if (decision.kind !== 'dispatch' || decision.attempt !== attempt)
    return `the graph as it is now does not dispatch "${node}" attempt ${attempt} where the run did (${decision.kind === 'dispatch' ? `it would be attempt ${decision.attempt}` : 'reason' in decision ? decision.reason : decision.kind})`;
  // A chain's first node: the chain the graph gives now must be the one the run dispatched in the same write.
  const chained = journal.events
    .slice(at + 1)
    .filter((e) => e.type === 'NodeDispatched' && e.chain?.first === node && e.at === dispatch.at)
    .map((e) => (e as Extract<JournalEvent, { type: 'NodeDispatched' }>).node);
  const members = decision.chain ?? [];
  if (members.map((m) => m.node.id).join(' ') !== chained.join(' '))
    return `the graph as it is now chains "${node}" with ${members.map((m) => `"${m.node.id}"`).join(', ') || 'no node'} where the run chained ${chained.map((n) => `"${n}"`).join(', ') || 'none'}`;
  const after: Journal = { ...journal, events: journal.events.slice(0, at + 1 + chained.length) };
  return {
    ...(members.length ? { chain: members } : {}),
    cur: { graph, journal: after, version: null, state: fold(after, graph) },
    node: decision.node,
    attempt,
    approach: decision.approach,
    context: decision.context,
    execTag: randomUUID(),
    dispatchedAt: dispatch.at,
    gitBase: typeof dispatch.runner.git_head === 'string' ? dispatch.runner.git_head : undefined,
  };
}
