/**
 * The decisions of the protocol: what happens next in a run (dispatch, skip, pre-check failure, completion,
 * or why it waits) and what an attempt's outcome writes. Pure functions of the run (`Run`: its graph, journal and
 * state, run.ts); what they add is folded onto the run's state, never the journal again from scratch.
 */
import { evaluateCondition } from '../expressions/evaluate.js';
import { type Approach, approachFor, type Graph, type GraphNode, nodeById } from '../graph/model.js';
import type { NewEvent } from '../journal/events/events.js';
import type { Connection, Evidence, Failure, RunnerInfo, Usage } from '../journal/events/fields.js';
import {
  attemptInFlight,
  attemptsThisRound,
  failedPrecheck,
  isResolved,
  lastAllowedAttempt,
  type NodeProgress,
  type RunState,
  stateWords,
} from '../journal/state.js';
import { type AttemptContext, attemptContext, expressionContext } from './attempt/context.js';
import { envelopeOf } from './attempt/envelope.js';
import { nodeBudgetFailures, runBudgetEscalation } from './budget.js';
import { type ChainMember, chainDispatch, readyChain, type SameCredentials } from './chain-dispatch.js';
import { gateEvents } from './commands/gate.js';
import { type DailyCap, dailyCapEscalation } from './daily-cap.js';
import { escalationAfter, escalationEvent } from './escalation.js';
import { type ExpansionDecision, expansionDecision } from './expansion.js';
import { loopEvents } from './loops.js';
import { type Run, withEvents } from './run.js';
import { blockedReason, whyNotReady } from './waiting.js';

/** What happens next in a run. Kinds are spelled in kebab-case, as the Action's `status` values are. */
export type Decision =
  | { kind: 'ended'; status: 'completed' | 'failed'; reason: string }
  | { kind: 'complete'; events: NewEvent[] }
  | { kind: 'skip'; node: string; events: NewEvent[] }
  | {
      kind: 'dispatch';
      node: GraphNode;
      attempt: number;
      approach: Approach;
      context: AttemptContext;
      events: NewEvent[];
      /** A serialized chain's nodes after this one, dispatched in the same write (`events`), done in one call. */
      chain?: ChainMember[];
    }
  | { kind: 'precheck-failed'; node: string; attempt: number; events: NewEvent[] }
  /** The run is at its budget: the node is escalated instead of dispatched (`attempt` is the one not dispatched). */
  | { kind: 'budget-escalated'; node: string; attempt: number; reason: string; events: NewEvent[] }
  | { kind: 'awaiting-approval'; node: string; events: NewEvent[] }
  | ExpansionDecision
  | { kind: 'blocked'; reason: string };

/** What deciding on one ready node needs. */
interface Candidate {
  run: Run;
  node: GraphNode;
  p: NodeProgress;
  attempt: number;
  approach: Approach;
  dispatch: NewEvent;
}

const COMPLETION: NewEvent = {
  type: 'RunCompleted',
  reason: 'every node completed or skipped',
  by: 'interlock',
};

/** Whether every node of the graph is resolved (completed or skipped) in this state. */
function allResolved(graph: Graph, state: RunState): boolean {
  return graph.nodes.every((n) => isResolved(state.nodes.get(n.id)?.state));
}

/** What `decideNext` is asked besides the run: who would run the node, and what limits the choice. */
interface NextAsk {
  runner: RunnerInfo;
  /** Decide on this node only (a `node: <id>` step). */
  only?: string | undefined;
  /** Whether two nodes are given the same secrets (a serialized chain joins only such nodes); default: all are. */
  sameCredentials?: SameCredentials | undefined;
  /** The repository's daily cost cap with the day's spend of other runs; absent when none is configured. */
  dailyCap?: DailyCap | undefined;
}

/** Decides what happens next: the ready node to dispatch (or skip), completion, or why the run waits. */
export function decideNext(run: Run, ask: NextAsk): Decision {
  const { graph, journal, state } = run;
  const { runner, only, sameCredentials, dailyCap } = ask;
  const cp = state.checkpoint;
  if (cp.ended) {
    return {
      kind: 'ended',
      status: cp.ended.type === 'RunCompleted' ? 'completed' : 'failed',
      reason: cp.ended.reason,
    };
  }
  if (allResolved(graph, state)) return { kind: 'complete', events: [{ ...COMPLETION }] };
  let candidates = cp.ready_nodes;
  if (only !== undefined) {
    if (!nodeById(graph, only)) return { kind: 'blocked', reason: `node "${only}" is not in the graph` };
    if (!candidates.includes(only))
      return {
        kind: 'blocked',
        reason: `node "${only}" is not ready: ${whyNotReady({ graph, state, node: only })}`,
      };
    candidates = [only];
  }
  const id = candidates[0];
  if (id === undefined) return { kind: 'blocked', reason: blockedReason(state) };
  const node = nodeById(graph, id)!;
  const p = state.nodes.get(id)!;
  const expansion = expansionDecision(run, node, withCompletion);
  if (expansion) return expansion;
  const attempt = p.attempts + 1;
  const approach = approachFor(node, p.failures);
  const dispatch: NewEvent = {
    type: 'NodeDispatched',
    node: id,
    attempt,
    replay: node.replay,
    approach: approach.label,
    runner,
  };
  const gate = gateEvents(graph, node, p);
  if (node.execute_conditions.length > 0 && (attemptsThisRound(p) === 0 || failedPrecheck(p))) {
    const checked = conditionDecision({ run, node, p, attempt, approach, dispatch });
    // A skip needs nobody's approval; a failed pre-check would dispatch, so a closed gate comes first.
    if (checked && (checked.kind === 'skip' || !gate)) return checked;
  }
  const overBudget =
    runBudgetEscalation(graph, state, id) ?? dailyCapEscalation(journal, node, p, approach, dailyCap);
  if (overBudget?.type === 'NodeEscalated') {
    const reason = overBudget.report.needed;
    return { kind: 'budget-escalated', node: id, attempt, reason, events: [overBudget] };
  }
  if (gate) return { kind: 'awaiting-approval', node: id, events: gate };
  const context = attemptContext({ state, node: id, attempt, approach, envelope: envelopeOf(run, node) });
  const chain = readyChain(run, node, approach, sameCredentials);
  if (chain.length === 1) return { kind: 'dispatch', node, attempt, approach, context, events: [dispatch] };
  const { events, members } = chainDispatch(run, chain, runner);
  return { kind: 'dispatch', node, attempt, approach, context, events, chain: members };
}

/** The node's execute_conditions: a pre-check failure, a skip when none is true, or undefined to dispatch. */
function conditionDecision(c: Candidate): Decision | undefined {
  const { run, node, p, attempt, approach, dispatch } = c;
  const ctx = expressionContext({ graph: run.graph, state: run.state, attempt, node: node.id });
  const errors: Failure[] = [];
  let anyTrue = false;
  for (const cond of node.execute_conditions) {
    try {
      if (evaluateCondition(cond, ctx)) anyTrue = true;
    } catch (e) {
      errors.push({
        check: 'execute_conditions',
        message: `condition "${cond}" could not be evaluated: ${(e as Error).message}`,
      });
    }
  }
  if (errors.length) {
    const failed: NewEvent = {
      type: 'NodeFailed',
      node: node.id,
      attempt,
      failures: errors,
      usage: { wall_ms: 0 },
    };
    const escalation = lastAllowedAttempt(p)
      ? [escalationEvent({ node, attempt, approach, failures: errors, journal: run.journal })]
      : [];
    return { kind: 'precheck-failed', node: node.id, attempt, events: [dispatch, failed, ...escalation] };
  }
  if (anyTrue) return undefined;
  return {
    kind: 'skip',
    node: node.id,
    events: [
      {
        type: 'NodeSkipped',
        node: node.id,
        reason: `no execute_condition was true (${node.execute_conditions.join(' | ')})`,
      },
    ],
  };
}

/** The outcome of an attempt, gathered by the shell. */
export interface AttemptOutcome {
  failures: Failure[];
  evidence: Evidence[];
  outputs: Record<string, string>;
  usage: Usage;
  output_tail?: string;
  /** What an engine's agent said about the attempt. */
  agent?: AgentReport;
  /** What a node with `network:` asked the egress proxy for. */ connections?: Connection[];
}

/** The engine, session and final message of an attempt whose agent is an engine. */
export interface AgentReport {
  engine: NonNullable<Approach['engine']>;
  session_id?: string;
  resumed_session?: string;
  /** SHA-256 of the session's transcripts folder as the agent left it (isolated nodes with `session:`). */
  transcripts_sha256?: string;
  final_message?: string;
}

export type ResultDecision =
  | { kind: 'write'; events: NewEvent[]; recorded: boolean; escalated: boolean }
  | { kind: 'stale'; reason: string; events: [] };

/** The attempt whose outcome `decideResult` turns into events. */
interface AttemptResult {
  node: string;
  attempt: number;
  outcome: AttemptOutcome;
  /** A serialized chain's first node is judged by the chain's budget (`chainBudget`). */
  limits?: { budget?: GraphNode['budget'] };
}

/** Turns an attempt's outcome into the events to append: recorded, or failed (and escalated after the last attempt). */
export function decideResult(run: Run, result: AttemptResult): ResultDecision {
  const { graph, journal, state } = run;
  const { node: nodeId, attempt, outcome, limits = {} } = result;
  const p = state.nodes.get(nodeId);
  const node = nodeById(graph, nodeId);
  const ended = state.checkpoint.ended;
  if (ended) {
    // The fold refuses any event after the end: writing the result would leave a journal nobody can read.
    return {
      kind: 'stale',
      events: [],
      reason: `the run ended (${ended.type}: ${ended.reason}) while node "${nodeId}" attempt ${attempt} was in flight; its result was not recorded`,
    };
  }
  if (!p || !node || !attemptInFlight(p, attempt)) {
    return {
      kind: 'stale',
      events: [],
      reason: `node "${nodeId}" attempt ${attempt} is no longer in flight (it is ${p ? stateWords(p.state) : 'unknown'}); its result was not recorded: settle it by hand if its work is done`,
    };
  }
  const tail = {
    ...(outcome.output_tail !== undefined ? { output_tail: outcome.output_tail } : {}),
    ...(outcome.agent ?? {}),
    ...(outcome.connections ? { connections: outcome.connections } : {}),
  };
  // An agent stopped at its budget already says so: the overrun it reached is not a second failure.
  const stopped = outcome.failures.some((f) => f.check === 'budget');
  const judged = 'budget' in limits ? { ...node, budget: limits.budget } : node;
  const failures = [...outcome.failures, ...(stopped ? [] : nodeBudgetFailures(judged, outcome.usage))];
  if (failures.length === 0) {
    const recorded = {
      type: 'NodeRecorded' as const,
      node: nodeId,
      attempt,
      evidence: outcome.evidence,
      outputs: outcome.outputs,
      usage: outcome.usage,
      ...tail,
    };
    // A loop (`repeat:`) starts its next cycle or escalates in the same write: dependents never see it resolved.
    const loop = loopEvents(run, node, recorded);
    return {
      kind: 'write',
      events: withCompletion(run, [recorded, ...loop]),
      recorded: true,
      escalated: loop.some((e) => e.type === 'NodeEscalated'),
    };
  }
  const events: NewEvent[] = [
    {
      type: 'NodeFailed',
      node: nodeId,
      attempt,
      failures,
      usage: outcome.usage,
      evidence: outcome.evidence,
      ...tail,
    },
  ];
  const escalation = escalationAfter({ node, p, attempt, failures, journal });
  if (escalation) events.push(escalation);
  const escalated = escalation !== undefined;
  return { kind: 'write', events, recorded: false, escalated };
}

/** Appends RunCompleted to `events` when applying them (onto the run's state) resolves every node. */
export function withCompletion(run: Run, events: NewEvent[]): NewEvent[] {
  const after = withEvents(run, events).state;
  const done = !after.checkpoint.ended && allResolved(run.graph, after);
  return done ? [...events, { ...COMPLETION }] : events;
}
