/**
 * The fold's reducers: one small function per event type, each checking that the event may happen now and
 * applying it to the fold's running state. A reducer throws JournalError (through `bad`) naming the event.
 * `REDUCERS` is the registry: it imports the parts (gates, loops and reruns, expansions, serialized sessions);
 * they import what they share from `folding.ts`, never this file.
 */

import type { EventType } from '../events/events.js';
import { personRecordWords, wordsName } from '../person-record.js';
import {
  attemptsLeft,
  attemptsThisRound,
  escalationAnswered,
  failedPrecheck,
  isResolved,
  lastAllowedAttempt,
  type NodeProgress,
  stateWords,
  waitingAttempt,
} from '../state.js';
import { addUsage } from '../usage-totals.js';
import { nodeExpanded, nodeExpansionFailed, nodeJoined } from './expansion.js';
import { dependenciesResolved, inFlight, progress, type Reducer } from './folding.js';
import { keepGuidance, nodeApproved, nodeAwaitingApproval } from './gates.js';
import { loopEscalated, nodeCarriedOver, nodeCycleStarted, rerunFromApproved } from './loops-and-reruns.js';
import { startRound } from './rounds.js';
import { chainedDependencies, nodeReturned } from './serialized.js';
import { runAgain } from './subgraph-expansion.js';

/** The attempt a hold or escalation waits on, in words. */
function waitsOn(p: NodeProgress): string {
  return p.budget_escalated
    ? `the node waits on attempt ${waitingAttempt(p)}, not dispatched at the run's budget`
    : `the last attempt is ${p.attempts}`;
}

const runStarted: Reducer<'RunStarted'> = (f, e, at) => {
  if (at.index !== 0) at.bad('RunStarted may only be the first event');
  f.started = {
    intent: e.intent,
    subject: e.subject,
    runner: e.runner,
    ...(e.started_by !== undefined ? { started_by: e.started_by } : {}),
  };
  f.inputs = e.inputs ?? {};
  f.github = e.github ?? null;
  f.acceptedHash = e.graph.hash;
  f.forkedFrom = e.forked_from?.run_id ?? null;
};

const graphChangeAllowed: Reducer<'GraphChangeAllowed'> = (f, e, at) => {
  if (e.from !== f.acceptedHash)
    at.bad(`changes the graph from ${e.from}, but the run is under ${f.acceptedHash}`);
  f.acceptedHash = e.to;
};

const nodeDispatched: Reducer<'NodeDispatched'> = (f, e, at) => {
  const p = progress(f, e);
  if (p.state !== 'pending') at.bad(`node "${e.node}" is ${stateWords(p.state)}; it cannot be dispatched`);
  if (e.attempt !== p.attempts + 1)
    at.bad(`node "${e.node}" attempt ${e.attempt} where ${p.attempts + 1} was expected`);
  if (!attemptsLeft(p)) at.bad(`node "${e.node}" has no attempts left`);
  if (e.chain) chainedDependencies(f, e, at);
  else dependenciesResolved(f, e.node, 'dispatched', at);
  p.state = 'in_flight';
  p.attempts = e.attempt;
  p.dispatch = {
    attempt: e.attempt,
    at: e.at,
    replay: e.replay,
    approach: e.approach,
    runner: e.runner,
    ...(e.chain ? { chain: e.chain } : {}),
  };
  f.rolledBackTo = null;
};

const nodeRecorded: Reducer<'NodeRecorded'> = (f, e, at) => {
  const p = progress(f, e);
  const settling =
    e.recorded_by !== undefined &&
    (p.state === 'held' || p.state === 'escalated' || p.state === 'awaiting_approval');
  if (!settling) inFlight(p, e, at);
  if (settling && e.attempt !== waitingAttempt(p)) at.bad(`settles attempt ${e.attempt}, but ${waitsOn(p)}`);
  p.state = 'completed';
  startRound(f, e.node, p, 'same');
  p.outputs = { ...e.outputs };
  p.last_evidence = e.evidence;
  addUsage(p.usage, e.usage);
  p.ended_at = e.at;
  f.traversal.push(e.node);
  f.lastCompleted = e.node;
  f.rolledBackTo = null;
  f.personRecords.push(...personRecordWords(e));
};

const nodeFailed: Reducer<'NodeFailed'> = (f, e, at) => {
  const p = progress(f, e);
  inFlight(p, e, at);
  const last = lastAllowedAttempt(p);
  p.failures += 1;
  p.last_failures = e.failures;
  p.last_evidence = e.evidence ?? [];
  addUsage(p.usage, e.usage);
  p.interrupted = false;
  p.ended_at = e.at;
  if (last) {
    p.state = 'escalated';
    p.approvals = [];
    f.rolledBackTo = f.lastCompleted;
  } else p.state = 'pending';
};

const nodeEscalated: Reducer<'NodeEscalated'> = (f, e, at) => {
  const p = progress(f, e);
  // A loop that ran its last cycle with `until` still false (loops-and-reruns.ts).
  if (e.report.cycles) return loopEscalated(f, e, at, p);
  if (e.report.budget) {
    // The run was at its budget: the node is escalated instead of its next attempt being dispatched.
    if (p.state !== 'pending' || !attemptsLeft(p))
      at.bad(`node "${e.node}" is ${stateWords(p.state)}; it cannot be escalated at the run's budget`);
    dependenciesResolved(f, e.node, 'escalated at the budget', at);
    p.state = 'escalated';
    p.budget_escalated = true;
    if (e.report.budget.limit.daily_usd !== undefined) p.daily_cap_escalated = true;
    p.approvals = [];
  } else if (e.report.setup !== undefined && p.state === 'pending' && p.failures > 0) {
    // A failure no retry can fix escalates its node at once, in the write of the failure (escalationAfter,
    // src/protocol/escalation.ts).
    p.state = 'escalated';
    p.approvals = [];
    f.rolledBackTo = f.lastCompleted;
  } else if (p.state !== 'escalated') at.bad(`node "${e.node}" has not used its last allowed attempt`);
  p.report = e.report;
};

const nodeSkipped: Reducer<'NodeSkipped'> = (f, e, at) => {
  const p = progress(f, e);
  if (p.state !== 'pending' || (attemptsThisRound(p) !== 0 && !failedPrecheck(p)))
    at.bad(`node "${e.node}" already ran; it cannot be skipped`);
  dependenciesResolved(f, e.node, 'skipped', at);
  p.state = 'skipped';
  p.ended_at = e.at;
  f.traversal.push(e.node);
};

const nodeInterrupted: Reducer<'NodeInterrupted'> = (f, e, at) => {
  const p = progress(f, e);
  inFlight(p, e, at);
  addUsage(p.usage, e.observed_usage);
  p.interrupted = true;
  p.ended_at = e.at;
  const replaySafe = p.dispatch?.replay === 'safe' && f.specs.get(e.node)?.replay === 'safe';
  p.state = replaySafe ? 'pending' : 'held';
  p.approvals = [];
};

/** Rule: a soft bound only notes that the attempt in flight is overdue; it changes nothing else. */
const nodeOverdue: Reducer<'NodeOverdue'> = (f, e, at) => {
  const p = progress(f, e);
  inFlight(p, e, at);
  p.overdue = { attempt: e.attempt, bound: e.bound, limit: e.limit, at: e.at };
};

const rerunApproved: Reducer<'RerunApproved'> = (f, e, at) => {
  const p = progress(f, e);
  if (p.state !== 'held' && p.state !== 'escalated')
    at.bad(`node "${e.node}" is ${stateWords(p.state)}, not held or escalated`);
  if (e.attempt !== waitingAttempt(p)) at.bad(`approves attempt ${e.attempt}, but ${waitsOn(p)}`);
  f.approvalSources.push(e.source);
  if (!p.approvals.includes(e.approved_by)) p.approvals.push(e.approved_by);
  keepGuidance(p, e);
  // The hold ends only once enough distinct people approved this attempt.
  if (p.approvals.length < (e.required ?? 1)) return;
  // What the approval answers is read from the escalation's own report; a hold goes on with what it had.
  const answered = p.state === 'escalated' ? escalationAnswered(p) : undefined;
  // Past the repository's daily cap, the node goes on for the rest of that UTC day; the run's own budget still
  // counts from where it did.
  if (answered === 'daily-cap') p.daily_cap_approved = new Date(e.at).toISOString().slice(0, 10);
  // A person raised the run's budget: it counts again from what every node has used so far.
  if (answered === 'budget') for (const q of f.nodes.values()) q.usage_at_raise = { ...q.usage };
  startRound(f, e.node, p, answered === 'failures' ? 'one-more' : 'same');
  p.state = 'pending';
  // A looping sub-graph that escalated runs one more cycle: its child nodes, approved with it.
  if (p.expansion?.children) {
    p.state = 'expanded';
    for (const child of p.expansion.children) runAgain(f, child, 'cycle');
  }
};

const runFailed: Reducer<'RunFailed'> = (f, e) => {
  f.ended = { type: 'RunFailed', reason: e.reason, by: e.by };
};

const runCompleted: Reducer<'RunCompleted'> = (f, e, at) => {
  const open = f.graph.nodes.filter((n) => !isResolved(f.nodes.get(n.id)?.state));
  if (open.length)
    at.bad(`the run cannot complete while ${open.map((n) => `"${n.id}"`).join(', ')} are unresolved`);
  f.ended = { type: 'RunCompleted', reason: e.reason, by: e.by };
};

/**
 * A retried dispatch changes no node: it only claims the dispatch. It names an approval or a person's settlement
 * the journal holds.
 */
const workflowDispatchRetried: Reducer<'WorkflowDispatchRetried'> = (f, e, at) => {
  if (!f.approvalSources.includes(e.source) && !wordsName(f.personRecords, e.source))
    at.bad(`retries the dispatch of "${e.source}", which no approval or settlement holds`);
};

/** One reducer per event type: the compiler refuses a table that misses one (the gate's are in gates.ts). */
export const REDUCERS: { [T in EventType]: Reducer<T> } = {
  RunStarted: runStarted,
  GraphChangeAllowed: graphChangeAllowed,
  NodeDispatched: nodeDispatched,
  NodeRecorded: nodeRecorded,
  NodeFailed: nodeFailed,
  NodeEscalated: nodeEscalated,
  NodeSkipped: nodeSkipped,
  NodeInterrupted: nodeInterrupted,
  RerunApproved: rerunApproved,
  RunFailed: runFailed,
  RunCompleted: runCompleted,
  NodeAwaitingApproval: nodeAwaitingApproval,
  NodeApproved: nodeApproved,
  NodeOverdue: nodeOverdue,
  // for_each (issue 28): expansion.ts.
  NodeExpanded: nodeExpanded,
  NodeExpansionFailed: nodeExpansionFailed,
  NodeJoined: nodeJoined,
  NodeCycleStarted: nodeCycleStarted,
  RerunFromApproved: rerunFromApproved,
  NodeCarriedOver: nodeCarriedOver,
  NodeReturned: nodeReturned,
  WorkflowDispatchRetried: workflowDispatchRetried,
};
