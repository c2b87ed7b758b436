import type { Graph } from '../graph/model.js';
import type {
  EscalationReport,
  Evidence,
  Failure,
  GraphRef,
  Journal,
  JournalEvent,
  RunnerInfo,
} from './events.js';

/** The last dispatch of a node, as recorded. */
export interface DispatchInfo {
  attempt: number;
  at: string;
  replay: 'safe' | 'never';
  approach: string;
  runner: RunnerInfo;
}

export type NodeState = 'pending' | 'in_flight' | 'completed' | 'skipped' | 'held' | 'escalated';

/** What the fold knows about one node. */
export interface NodeProgress {
  state: NodeState;
  /** Attempts dispatched so far. */
  attempts: number;
  /** Failed attempts that count toward the retry budget. */
  failures: number;
  /** Failures allowed before escalation: the node's approaches, plus one per approval after escalation. */
  budget: number;
  /** The last attempt's dispatch, while it matters (in flight, or what a hold refers to). */
  dispatch?: DispatchInfo;
  /** The last attempt ended by an interruption (its side effects may have partly happened). */
  interrupted: boolean;
  last_failures: Failure[];
  last_evidence: Evidence[];
  outputs: Record<string, string>;
  wall_ms: number;
  /** Distinct people who approved a rerun of the current hold or escalation. */
  approvals: string[];
  report?: EscalationReport;
  ended_at?: string;
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
  active_nodes: string[];
  ready_nodes: string[];
  traversal_path: string[];
  attempts: Record<string, number>;
  usage: { wall_ms: number; nodes: Record<string, number> };
  rolled_back_to: string | null;
  ended: { type: 'RunCompleted' | 'RunFailed'; reason: string; by: string } | null;
  last_activity_at: string | null;
}

/** The full fold result: the checkpoint and per-node detail for the protocol. */
export interface RunState {
  checkpoint: Checkpoint;
  nodes: Map<string, NodeProgress>;
  inputs: Record<string, string>;
  github: unknown;
  started: { intent: string; subject: string; runner: RunnerInfo } | null;
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
export type GraphShape = Pick<Graph, 'nodes'>;

function newProgress(budget: number): NodeProgress {
  return {
    state: 'pending',
    attempts: 0,
    failures: 0,
    budget,
    interrupted: false,
    last_failures: [],
    last_evidence: [],
    outputs: {},
    wall_ms: 0,
    approvals: [],
  };
}

/**
 * Folds the journal's events into the run state. Pure: the same journal and graph give the same state.
 * Throws JournalError naming the first event that breaks a rule.
 */
export function fold(journal: Journal, graph: GraphShape): RunState {
  const specs = new Map(graph.nodes.map((n) => [n.id, n]));
  const nodes = new Map<string, NodeProgress>();
  for (const n of graph.nodes) nodes.set(n.id, newProgress(n.approaches.length));
  const progress = (id: string, e: JournalEvent): NodeProgress => {
    let p = nodes.get(id);
    if (!p) {
      if (!specs.has(id))
        throw new JournalError(
          `event ${e.seq} (${e.type}) names node "${id}", which is not in the graph`,
          e.seq,
        );
      p = newProgress(2);
      nodes.set(id, p);
    }
    return p;
  };
  const traversal: string[] = [];
  let ended: Checkpoint['ended'] = null;
  let started: RunState['started'] = null;
  let inputs: Record<string, string> = {};
  let github: unknown = null;
  let acceptedHash = journal.graph.hash;
  let lastCompleted: string | null = null;
  let rolledBackTo: string | null = null;
  let lastAt: string | null = null;
  const approvalSources: string[] = [];

  const events = journal.events;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const bad = (why: string): never => {
      throw new JournalError(`event ${e.seq} (${e.type}): ${why}`, e.seq);
    };
    if (e.seq !== i + 1)
      bad(`sequence number ${e.seq} where ${i + 1} was expected (events reordered or missing)`);
    if (i === 0 && e.type !== 'RunStarted') bad('the first event must be RunStarted');
    if (ended && e.type !== 'GraphChangeAllowed')
      bad(`the run already ended with ${ended.type} (${ended.reason})`);
    lastAt = e.at;
    switch (e.type) {
      case 'RunStarted':
        if (i !== 0) bad('RunStarted may only be the first event');
        started = { intent: e.intent, subject: e.subject, runner: e.runner };
        inputs = e.inputs ?? {};
        github = e.github ?? null;
        acceptedHash = e.graph.hash;
        break;
      case 'GraphChangeAllowed':
        if (e.from !== acceptedHash)
          bad(`changes the graph from ${e.from}, but the run is under ${acceptedHash}`);
        acceptedHash = e.to;
        break;
      case 'NodeDispatched': {
        const p = progress(e.node, e);
        if (p.state !== 'pending')
          bad(`node "${e.node}" is ${p.state.replace('_', ' ')}; it cannot be dispatched`);
        if (e.attempt !== p.attempts + 1)
          bad(`node "${e.node}" attempt ${e.attempt} where ${p.attempts + 1} was expected`);
        if (p.failures >= p.budget) bad(`node "${e.node}" has no attempts left`);
        for (const dep of specs.get(e.node)?.depends_on ?? []) {
          const d = nodes.get(dep);
          if (d && d.state !== 'completed' && d.state !== 'skipped')
            bad(`node "${e.node}" dispatched before "${dep}" ended`);
        }
        p.state = 'in_flight';
        p.attempts = e.attempt;
        p.dispatch = {
          attempt: e.attempt,
          at: e.at,
          replay: e.replay,
          approach: e.approach,
          runner: e.runner,
        };
        rolledBackTo = null;
        break;
      }
      case 'NodeRecorded': {
        const p = progress(e.node, e);
        const settling = e.recorded_by !== undefined && (p.state === 'held' || p.state === 'escalated');
        if (!settling && !(p.state === 'in_flight' && p.dispatch?.attempt === e.attempt)) {
          bad(`node "${e.node}" attempt ${e.attempt} is not in flight (it is ${p.state.replace('_', ' ')})`);
        }
        if (settling && e.attempt !== p.attempts)
          bad(`settles attempt ${e.attempt}, but the last attempt is ${p.attempts}`);
        p.state = 'completed';
        p.outputs = { ...e.outputs };
        p.last_evidence = e.evidence;
        p.wall_ms += e.usage.wall_ms;
        p.ended_at = e.at;
        traversal.push(e.node);
        lastCompleted = e.node;
        rolledBackTo = null;
        break;
      }
      case 'NodeFailed': {
        const p = progress(e.node, e);
        if (!(p.state === 'in_flight' && p.dispatch?.attempt === e.attempt)) {
          bad(`node "${e.node}" attempt ${e.attempt} is not in flight (it is ${p.state.replace('_', ' ')})`);
        }
        p.failures += 1;
        p.last_failures = e.failures;
        p.last_evidence = e.evidence ?? [];
        p.wall_ms += e.usage.wall_ms;
        p.interrupted = false;
        p.ended_at = e.at;
        if (p.failures >= p.budget) {
          p.state = 'escalated';
          p.approvals = [];
          rolledBackTo = lastCompleted;
        } else p.state = 'pending';
        break;
      }
      case 'NodeEscalated': {
        const p = progress(e.node, e);
        if (p.state !== 'escalated') bad(`node "${e.node}" has not used its last allowed attempt`);
        p.report = e.report;
        break;
      }
      case 'NodeSkipped': {
        const p = progress(e.node, e);
        const prechecksOnly =
          !p.interrupted &&
          p.last_failures.length > 0 &&
          p.last_failures.every((f) => f.check === 'execute_conditions');
        if (p.state !== 'pending' || (p.attempts !== 0 && !prechecksOnly))
          bad(`node "${e.node}" already ran; it cannot be skipped`);
        for (const dep of specs.get(e.node)?.depends_on ?? []) {
          const d = nodes.get(dep);
          if (d && d.state !== 'completed' && d.state !== 'skipped')
            bad(`node "${e.node}" skipped before "${dep}" ended`);
        }
        p.state = 'skipped';
        p.ended_at = e.at;
        traversal.push(e.node);
        break;
      }
      case 'NodeInterrupted': {
        const p = progress(e.node, e);
        if (!(p.state === 'in_flight' && p.dispatch?.attempt === e.attempt)) {
          bad(`node "${e.node}" attempt ${e.attempt} is not in flight (it is ${p.state.replace('_', ' ')})`);
        }
        p.wall_ms += e.observed_usage.wall_ms;
        p.interrupted = true;
        p.ended_at = e.at;
        const replaySafe = p.dispatch?.replay === 'safe' && specs.get(e.node)?.replay === 'safe';
        p.state = replaySafe ? 'pending' : 'held';
        p.approvals = [];
        break;
      }
      case 'RerunApproved': {
        const p = progress(e.node, e);
        if (p.state !== 'held' && p.state !== 'escalated')
          bad(`node "${e.node}" is ${p.state.replace('_', ' ')}, not held or escalated`);
        if (e.attempt !== p.attempts)
          bad(`approves attempt ${e.attempt}, but the last attempt is ${p.attempts}`);
        approvalSources.push(e.source);
        if (!p.approvals.includes(e.approved_by)) p.approvals.push(e.approved_by);
        // The hold ends only once enough distinct people approved this attempt.
        if (p.approvals.length < (e.required ?? 1)) break;
        if (p.state === 'escalated') p.budget = p.failures + 1;
        p.state = 'pending';
        break;
      }
      case 'RunFailed':
        ended = { type: 'RunFailed', reason: e.reason, by: e.by };
        break;
      case 'RunCompleted': {
        const open = graph.nodes.filter((n) => {
          const s = nodes.get(n.id)?.state;
          return s !== 'completed' && s !== 'skipped';
        });
        if (open.length)
          bad(`the run cannot complete while ${open.map((n) => `"${n.id}"`).join(', ')} are unresolved`);
        ended = { type: 'RunCompleted', reason: e.reason, by: e.by };
        break;
      }
      default: {
        const never: never = e;
        throw new JournalError(`unknown event ${JSON.stringify(never)}`, null);
      }
    }
  }

  const byState = (s: NodeState) => graph.nodes.filter((n) => nodes.get(n.id)?.state === s).map((n) => n.id);
  const ready = ended ? [] : readyNodes(graph, nodes);
  const active = byState('in_flight');
  const attempts: Record<string, number> = {};
  const usageNodes: Record<string, number> = {};
  let wall = 0;
  for (const n of graph.nodes) {
    const p = nodes.get(n.id)!;
    attempts[n.id] = p.attempts;
    usageNodes[n.id] = p.wall_ms;
    wall += p.wall_ms;
  }
  const status: RunStatus = ended
    ? ended.type === 'RunCompleted'
      ? 'completed'
      : 'failed'
    : active.length || ready.length || allResolved(graph, nodes)
      ? 'running'
      : 'blocked';
  const checkpoint: Checkpoint = {
    run_id: journal.run_id,
    graph: { ...journal.graph },
    status,
    completed_nodes: traversal.filter((id) => nodes.get(id)?.state === 'completed'),
    failed_nodes: graph.nodes
      .filter((n) => {
        const p = nodes.get(n.id)!;
        return p.state === 'pending' && p.failures > 0;
      })
      .map((n) => n.id),
    skipped_nodes: traversal.filter((id) => nodes.get(id)?.state === 'skipped'),
    held_nodes: byState('held'),
    escalated_nodes: byState('escalated'),
    active_nodes: active,
    ready_nodes: ready,
    traversal_path: traversal,
    attempts,
    usage: { wall_ms: wall, nodes: usageNodes },
    rolled_back_to: rolledBackTo,
    ended,
    last_activity_at: lastAt,
  };
  return {
    checkpoint,
    nodes,
    inputs,
    github,
    started,
    accepted_hash: acceptedHash,
    approval_sources: approvalSources,
  };
}

function allResolved(graph: GraphShape, nodes: Map<string, NodeProgress>): boolean {
  return graph.nodes.every((n) => {
    const s = nodes.get(n.id)?.state;
    return s === 'completed' || s === 'skipped';
  });
}

/** Rule 1: dependencies completed or skipped, the node itself pending with attempts left; declaration order. */
export function readyNodes(graph: GraphShape, nodes: Map<string, NodeProgress>): string[] {
  const out: string[] = [];
  for (const n of graph.nodes) {
    const p = nodes.get(n.id);
    if (p?.state !== 'pending' || p.failures >= p.budget) continue;
    const depsDone = n.depends_on.every((d) => {
      const s = nodes.get(d)?.state;
      return s === 'completed' || s === 'skipped';
    });
    if (depsDone) out.push(n.id);
  }
  return out;
}
