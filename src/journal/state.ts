/**
 * The shapes the fold produces (per-node progress, the checkpoint, the run state), the journal's error, and
 * the one test of a resolved node: "completed or skipped".
 */
import type { Graph } from '../graph/model.js';
import type { Journal } from './events/events.js';
import type { EscalationReport, Evidence, Failure, GraphRef, RunnerInfo } from './events/fields.js';
import type { Guidance } from './events/gates.js';
import type { Chain } from './events/serialized.js';
import { type AgentTotals, noUsage, type UsageTotals } from './usage-totals.js';

/** The last dispatch of a node, as recorded. */
export interface DispatchInfo {
  attempt: number;
  at: string;
  replay: 'safe' | 'never';
  approach: string;
  runner: RunnerInfo;
  /** Set when the attempt is one node of a serialized chain. */
  chain?: Chain;
}

export type NodeState =
  | 'pending'
  | 'in_flight'
  | 'completed'
  | 'skipped'
  | 'held'
  | 'escalated'
  | 'awaiting_approval'
  /** A `for_each` or sub-graph node whose instances or child nodes run (`NodeExpanded`), until joined (`NodeJoined`). */
  | 'expanded'
  /** An instance that ended escalated and was let through by its node's `tolerated_failures`. */
  | 'tolerated';

/** What the fold knows about one node. */
export interface NodeProgress {
  state: NodeState;
  /** Attempts dispatched so far. */
  attempts: number;
  /** Failed attempts that count toward the failures the node may have (`allowedFailures`). */
  failures: number;
  /** Failures allowed before escalation: the node's approaches, plus one per approval after escalation (not the
   * cost `budget:`, which is a limit on what the node uses). */
  allowedFailures: number;
  /** The last attempt's dispatch, while it matters (in flight, or what a hold refers to). */
  dispatch?: DispatchInfo;
  /** The last attempt ended by an interruption (its side effects may have partly happened). */
  interrupted: boolean;
  last_failures: Failure[];
  last_evidence: Evidence[];
  outputs: Record<string, string>;
  /** What its attempts used, summed. */
  usage: UsageTotals;
  /** Its usage when a person last raised the run's budget: the run budget counts what was used since. */
  usage_at_raise: UsageTotals;
  /** Escalated because the run was at its budget before this node's next attempt, not because attempts failed. */
  budget_escalated: boolean;
  /** Escalated at the repository's daily cost cap (report.budget.limit.daily_usd); absent otherwise. */
  daily_cap_escalated?: true;
  /** The UTC day (`YYYY-MM-DD`) a person let this node go on past the daily cost cap; absent until then. */
  daily_cap_approved?: string;
  /** Distinct people who approved a rerun of the current hold or escalation. */
  approvals: string[];
  report?: EscalationReport;
  ended_at?: string;
  /** `approval: before` was satisfied (NodeApproved from enough people): the node may be dispatched. */
  gate_passed?: boolean;
  /** Guidance people gave with approvals of this node, in journal order: every later attempt gets it. */
  guidance?: Guidance[];
  /** The attempt in flight passed a soft bound (`NodeOverdue`); kept until the node's next attempt or end. */
  overdue?: { attempt: number; bound: string; limit: number; at: string };
  /**
   * A `for_each` node's items once journaled (`NodeExpanded`), in order; `tolerated` once joined. A sub-graph
   * node's has no items and names its child nodes (`children`, in their graph's order).
   */
  expansion?: { keys: string[]; values: unknown[]; tolerated?: string[]; children?: string[] };
  /** A `for_each` node to be expanded anew after a rerun or a loop's cycle: how its instances run again. */
  again?: 'cycle' | 'rerun';
  /** An instance's item: its node, key, position and value. */
  item?: { of: string; key: string; index: number; value: unknown };
  /** Made to run again by its sub-graph's next cycle (not a rerun): its next attempt is told which cycle. */
  cycled?: true;
  /** The loop's cycle (`repeat:`, `NodeCycleStarted`); absent in cycle 1. */
  cycle?: number;
  /** Escalated because its loop ran its last cycle with `until` still false (or `until` failed). */
  loop_escalated?: true;
  /** Attempts before the last rerun (`RerunFromApproved`): its gate and conditions count from here. */
  round_start?: number;
  /** Held by a rerun (`RerunFromApproved`) as a `replay: never` node, not by an interruption. */
  rerun_hold?: true;
  /** How often a person reran from this node (`RerunFromApproved` naming it). */
  reruns?: number;
}

export type RunStatus = 'running' | 'blocked' | 'completed' | 'failed';

/** The checkpoint: the state folded from the journal; a pure function of it. */
export interface Checkpoint {
  run_id: string;
  graph: GraphRef;
  status: RunStatus;
  completed_nodes: string[];
  failed_nodes: string[];
  skipped_nodes: string[];
  held_nodes: string[];
  escalated_nodes: string[];
  /** Nodes with `approval: before` waiting for people; present only when non-empty (old journals fold unchanged). */
  awaiting_approval_nodes?: string[];
  /** `for_each` nodes whose instances run, not yet joined; present only when non-empty. */
  expanded_nodes?: string[];
  /** Instances that ended escalated and were let through (`tolerated_failures`); present only when non-empty. */
  tolerated_nodes?: string[];
  active_nodes: string[];
  ready_nodes: string[];
  traversal_path: string[];
  attempts: Record<string, number>;
  /** Loops past their first cycle (`repeat:`), node to cycle; present only when non-empty (issue 28). */
  cycles?: Record<string, number>;
  /** Nodes a person reran from (`/rerun-from`), node to times; present only when non-empty (issue 28). */
  reruns?: Record<string, number>;
  usage: CheckpointUsage;
  rolled_back_to: string | null;
  ended: { type: 'RunCompleted' | 'RunFailed'; reason: string; by: string } | null;
  last_activity_at: string | null;
}

/** A node's usage in the checkpoint: wall time, and the agent totals. */
export type NodeUsage = { wall_ms: number } & AgentTotals;

/** What the run spent against its budget, in the budget's units. */
export type Spent = {
  cost_usd: number;
  tokens: number;
  turns: number;
  wall_minutes: number;
};

/**
 * The checkpoint's usage. `wall_ms` and `nodes` (wall milliseconds per node) are always there; the agent totals
 * and `by_node` appear only once some attempt reported agent usage, and `budget` only when the graph sets one,
 * so a journal written before budgets existed folds to the same bytes.
 */
export interface CheckpointUsage {
  wall_ms: number;
  nodes: Record<string, number>;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  turns?: number;
  by_node?: Record<string, NodeUsage>;
  budget?: { limit: Record<string, number>; spent: Spent };
}

/** The full fold result: the checkpoint and per-node detail for the protocol. */
export interface RunState {
  checkpoint: Checkpoint;
  nodes: Map<string, NodeProgress>;
  inputs: Record<string, string>;
  github: unknown;
  started: { intent: string; subject: string; runner: RunnerInfo; started_by?: string } | null;
  /** The graph hash the journal currently accepts (RunStarted, or the last GraphChangeAllowed). */
  accepted_hash: string;
  /** Every RerunApproved source in the journal (comment URLs, CLI names), in order. */
  approval_sources: string[];
}

/** A journal that breaks the rules: names the first bad event. */
export class JournalError extends Error {
  constructor(
    message: string,
    readonly seq: number | null,
  ) {
    super(message);
    this.name = 'JournalError';
  }
}

/** The graph facts the fold needs. */
export type GraphShape = Pick<Graph, 'nodes' | 'budget'>;

/** A node before any event about it, with `allowedFailures` failures allowed. */
export function newProgress(allowedFailures: number): NodeProgress {
  return {
    state: 'pending',
    attempts: 0,
    failures: 0,
    allowedFailures,
    interrupted: false,
    last_failures: [],
    last_evidence: [],
    outputs: {},
    usage: noUsage(),
    usage_at_raise: noUsage(),
    budget_escalated: false,
    approvals: [],
  };
}

/**
 * A node is resolved when it completed or was skipped: its dependents may go, and the run may complete. A
 * tolerated instance is resolved too: its node's join let it through.
 */
export function isResolved(state: NodeState | undefined): boolean {
  return state === 'completed' || state === 'skipped' || state === 'tolerated';
}

/**
 * Whether `attempt` is the attempt of this node still in flight: the one question the fold (an event about an
 * attempt), `decideResult` (a result to record), the soft bound's notice and the status table ask.
 */
export function attemptInFlight(p: NodeProgress | undefined, attempt: number): boolean {
  return p?.state === 'in_flight' && p.dispatch?.attempt === attempt;
}

/**
 * The attempt a hold or escalation waits on, which approvals and settlements name: the last one, or for a node
 * escalated at the run's budget, the one that was not dispatched.
 */
export function waitingAttempt(p: NodeProgress): number {
  return p.budget_escalated ? p.attempts + 1 : p.attempts;
}

/**
 * How a node's next round starts (`startRound`, src/journal/reducers/rounds.ts): `fresh` (a rerun or a loop's
 * next cycle: its failures count from zero, its approaches from `default`), `one-more` (a person approved a rerun
 * after its last allowed attempt failed: one more attempt), `same` (it was recorded, or let past the run's budget,
 * the daily cap or a hold: the failures it had still count).
 */
export type RoundStart = 'fresh' | 'one-more' | 'same';

/**
 * What an approval of an escalated node answers, read from that escalation's own report (never from a mark an
 * earlier escalation left): the daily cost cap (the node goes on for the rest of the day), the run's budget (it is
 * raised), or failures (one more attempt). A loop's last cycle, or a failure no retry can fix, is answered as
 * failures are.
 */
export function escalationAnswered(p: NodeProgress): 'daily-cap' | 'budget' | 'failures' {
  const budget = p.report?.budget;
  if (budget?.limit.daily_usd !== undefined) return 'daily-cap';
  return budget ? 'budget' : 'failures';
}

/** Whether the node may still be dispatched: it has failed fewer times than it may (`allowedFailures`). */
export function attemptsLeft(p: Pick<NodeProgress, 'failures' | 'allowedFailures'>): boolean {
  return p.failures < p.allowedFailures;
}

/**
 * Whether the attempt now running is the node's last allowed one: if it fails, the node is escalated (rule 5).
 * The one statement of it, for the fold (`nodeFailed`), the result's escalation and the pre-check's.
 */
export function lastAllowedAttempt(p: Pick<NodeProgress, 'failures' | 'allowedFailures'>): boolean {
  return !attemptsLeft({ failures: p.failures + 1, allowedFailures: p.allowedFailures });
}

/** Attempts since the node's last rerun (or since the run began): 0 means its gate and conditions come first. */
export function attemptsThisRound(p: NodeProgress): number {
  return p.attempts - (p.round_start ?? 0);
}

/**
 * A node with nothing to rerun (issue 28): it has not run since the run began or its last rerun, and did not end
 * otherwise (a completed node carried into a fork, or a skipped one, may be rerun).
 */
export function notRunSinceStart(p: NodeProgress): boolean {
  return attemptsThisRound(p) === 0 && p.state !== 'completed' && p.state !== 'skipped';
}

/** A node state as words: `in flight`. */
export function stateWords(state: NodeState): string {
  return state.replace('_', ' ');
}

/**
 * The last attempt failed its pre-check (a condition could not be evaluated), so its conditions have never
 * been true: the next attempt is pre-checked again rather than running the work unchecked (and the node may
 * still be skipped).
 */
export function failedPrecheck(p: NodeProgress): boolean {
  return (
    !p.interrupted &&
    p.last_failures.length > 0 &&
    p.last_failures.every((f) => f.check === 'execute_conditions')
  );
}

/** Whether a run has ended: its journal records `RunCompleted` or `RunFailed`. */
export const runEnded = (journal: Journal): boolean =>
  journal.events.some((e) => e.type === 'RunCompleted' || e.type === 'RunFailed');
