// A run driven through the pure core only: graphs from text, journals from appendEvents, decisions from
// the protocol. No I/O, no clock, no mocks.
import { parseGraph } from '../../src/graph/load/load.js';
import type { Graph } from '../../src/graph/model.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../../src/journal/events/events.js';
import type { Failure, RunnerInfo } from '../../src/journal/events/fields.js';
import { fold } from '../../src/journal/fold.js';
import { appendEvents } from '../../src/journal/parse.js';
import { type Checkpoint, JournalError, type RunState } from '../../src/journal/state.js';
import { approveRerun, failRun, settleNode } from '../../src/protocol/commands/person-commands.js';
import { type Decision, decideNext, decideResult } from '../../src/protocol/decide.js';
import { type Probe, recoverEvents } from '../../src/protocol/recovery.js';
import { type Run, runOf } from '../../src/protocol/run.js';

export const RUNNER: RunnerInfo = { kind: 'local', host: 'test-host', pid: 4242, exec_tag: 'tag' };
export const EXIT_1: Failure[] = [{ check: 'exit', message: 'exited 1' }];

/** A graph from YAML text; the file is called graph.yml unless named. */
export function graph(text: string, path = 'graph.yml'): Graph {
  return parseGraph({ path, text });
}

/** The YAML of a graph with `interlock: 1` and a name, from the nodes part only. */
export function graphText(nodes: string, extra = ''): string {
  return `interlock: 1\nname: test\n${extra}nodes:\n${nodes}`;
}

/** A deterministic clock: event n happens n seconds after 2024-01-01. */
export function at(seq: number): string {
  return new Date(Date.UTC(2024, 0, 1) + seq * 1000).toISOString();
}

export function startJournal(g: Graph, inputs: Record<string, string> = {}): Journal {
  const ref = { name: g.name, hash: g.hash, path: g.path };
  const empty: Journal = { format: JOURNAL_FORMAT, run_id: `${g.name}/local`, graph: ref, events: [] };
  return appendEvents(
    empty,
    [{ type: 'RunStarted', graph: ref, intent: 'test', subject: 'local', runner: RUNNER, inputs }],
    at(1),
  );
}

/** Appends events as a writer would: numbered, stamped by the deterministic clock. */
export function append(j: Journal, events: NewEvent[]): Journal {
  return appendEvents(j, events, at(j.events.length + 1));
}

/** A run in memory, moved on only by the protocol's own decisions. */
export class Sim {
  journal: Journal;
  constructor(
    readonly graph: Graph,
    inputs: Record<string, string> = {},
  ) {
    this.journal = startJournal(graph, inputs);
  }

  get state(): RunState {
    return fold(this.journal, this.graph);
  }

  /** The run as the protocol's decisions take it: this graph, this journal, its state. */
  get run(): Run {
    return runOf(this.graph, this.journal);
  }

  get cp(): Checkpoint {
    return this.state.checkpoint;
  }

  append(events: NewEvent[]): this {
    this.journal = append(this.journal, events);
    return this;
  }

  next(only?: string): Decision {
    return decideNext(this.run, { runner: RUNNER, only });
  }

  /** Decides the next step and writes what it decided (dispatch, skip, completion, pre-check failure). */
  step(only?: string): Decision {
    const d = this.next(only);
    if ('events' in d) this.append(d.events);
    return d;
  }

  /** Dispatches a node, which must be the protocol's decision. */
  dispatch(only?: string): Extract<Decision, { kind: 'dispatch' }> {
    const d = this.step(only);
    if (d.kind !== 'dispatch') throw new Error(`expected a dispatch, got ${JSON.stringify(d)}`);
    return d;
  }

  private attemptOf(node: string): number {
    const p = this.state.nodes.get(node);
    if (p?.state !== 'in_flight' || !p.dispatch) throw new Error(`${node} is not in flight`);
    return p.dispatch.attempt;
  }

  succeed(node: string, outputs: Record<string, string> = {}, wall_ms = 10): this {
    const outcome = {
      failures: [],
      evidence: [{ check: 'command true', passed: true, observed: 'exit 0' }],
      outputs,
      usage: { wall_ms },
    };
    const r = decideResult(this.run, { node, attempt: this.attemptOf(node), outcome });
    if (r.kind !== 'write') throw new Error(r.reason);
    return this.append(r.events);
  }

  fail(node: string, failures: Failure[] = EXIT_1, wall_ms = 10): this {
    const outcome = { failures, evidence: [], outputs: {}, usage: { wall_ms } };
    const r = decideResult(this.run, { node, attempt: this.attemptOf(node), outcome });
    if (r.kind !== 'write') throw new Error(r.reason);
    return this.append(r.events);
  }

  /** Recovery with a probe that finds every executor gone (or asks `gone`). */
  recover(gone: (node: string) => boolean = () => true, observed_ms = 7): this {
    const probe = (node: string): Probe => ({ gone: gone(node), why: 'probe', observed_ms });
    return this.append(recoverEvents(this.state, probe, 'test recovery').events);
  }

  approve(node: string, by = 'ann'): this {
    const s = approveRerun({
      run: this,
      node,
      by,
      source: 'test',
      graph_hash: this.state.accepted_hash,
    });
    if (!s.ok) throw new Error(s.reason);
    return this.append(s.events);
  }

  settle(node: string, by = 'ann', note = 'checked by hand'): this {
    const s = settleNode({ run: this, node, by, note, source: 'test' });
    if (!s.ok) throw new Error(s.reason);
    return this.append(s.events);
  }

  failRun(by = 'ann', reason = 'given up'): this {
    const s = failRun(this.state, { by, reason });
    if (!s.ok) throw new Error(s.reason);
    return this.append(s.events);
  }
}

/** The checkpoint as the CLI prints it. */
export function checkpointJson(j: Journal, g: Graph): string {
  return JSON.stringify(fold(j, g).checkpoint);
}

/** The JournalError a fold throws, or a failure when the fold accepts the journal. */
export function foldError(j: Journal, g: Graph): { message: string; seq: number | null } {
  try {
    fold(j, g);
  } catch (e) {
    if (e instanceof JournalError) return { message: e.message, seq: e.seq };
    throw e;
  }
  throw new Error('the fold accepted the journal');
}
