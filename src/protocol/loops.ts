/**
 * Bounded loops (issue 28): what follows a recorded cycle of a node with `repeat:`. Its `until` is evaluated over
 * the run as the record leaves it (the node's new outputs included): true ends the loop (nothing more), false
 * starts the next cycle (`NodeCycleStarted`), and after `repeat.max` cycles, or when `until` cannot be evaluated,
 * the node is escalated with each cycle's outcome (`report.cycles`). Pure.
 */
import { evaluateCondition } from '../expressions/evaluate.js';
import type { GraphNode } from '../graph/model.js';
import type { EventOf, Journal, NewEvent } from '../journal/events/events.js';
import type { EscalationReport } from '../journal/events/fields.js';
import { expressionContext } from './attempt/context.js';
import { type Run, withEvents } from './run.js';

/** The events that follow a node's record: the next cycle, the loop's escalation, or none (loop ended, or no loop). */
export function loopEvents(
  run: Run,
  node: GraphNode,
  recorded: Omit<EventOf<'NodeRecorded'>, 'seq' | 'at'>,
): NewEvent[] {
  if (!node.repeat) return [];
  return loopEventsAfter(run, node, recorded);
}

/**
 * The events that follow the end of a cycle of a looping node: its record, or a sub-graph node's join (whose
 * outputs are its child nodes'; it makes no attempt of its own, so its cycles follow attempt 0).
 */
export function loopEventsAfter(
  run: Run,
  node: GraphNode,
  ended: Omit<EventOf<'NodeRecorded'>, 'seq' | 'at'> | Omit<EventOf<'NodeJoined'>, 'seq' | 'at'>,
): NewEvent[] {
  const repeat = node.repeat!;
  const after = withEvents(run, [ended]).state;
  const p = after.nodes.get(node.id);
  const recorded =
    ended.type === 'NodeRecorded' ? ended : { attempt: p?.attempts ?? 0, outputs: { ...(p?.outputs ?? {}) } };
  const cycle = p?.cycle ?? 1;
  let value: boolean;
  let why = 'false';
  try {
    value = evaluateCondition(
      repeat.until,
      expressionContext({ graph: run.graph, state: after, attempt: recorded.attempt, node: node.id }),
    );
  } catch (e) {
    value = false;
    why = `could not be evaluated: ${(e as Error).message}`;
  }
  if (value) return [];
  if (why === 'false' && cycle < repeat.max)
    return [
      {
        type: 'NodeCycleStarted',
        node: node.id,
        cycle: cycle + 1,
        until: repeat.until,
        value: false,
        after_attempt: recorded.attempt,
      },
    ];
  return [loopEscalation({ journal: run.journal, node, recorded, why, cycle })];
}

/** The outputs a sub-graph's join gave: its child nodes' last records before it, in their order. */
function joinedOutputs(records: Map<string, Record<string, string>>, children: string[]) {
  return Object.assign({}, ...children.map((c) => records.get(c) ?? {})) as Record<string, string>;
}

/** The escalation of a loop: each cycle's outcome since the node last started afresh, the last one with its `until`. */
function loopEscalation(loop: {
  journal: Journal;
  node: GraphNode;
  /** The cycle's last record: its attempt (0 for a sub-graph's join) and outputs. */
  recorded: { attempt: number; outputs: Record<string, string> };
  /** Why the loop stops: `false` (its `until` is still false at `repeat.max`), or why `until` could not be evaluated. */
  why: string;
  cycle: number;
}): NewEvent {
  const { journal, node, recorded, why, cycle } = loop;
  const cycles: NonNullable<EscalationReport['cycles']> = [];
  let current = 1;
  const records = new Map<string, Record<string, string>>();
  for (const e of journal.events) {
    if (e.type === 'RerunFromApproved' && e.nodes.includes(node.id)) {
      cycles.length = 0;
      current = 1;
    }
    if (e.type === 'NodeCycleStarted' && e.node === node.id) current = e.cycle;
    if (e.type === 'NodeRecorded' && e.node === node.id && e.recorded_by === undefined)
      cycles.push({ cycle: current, attempt: e.attempt, outputs: e.outputs, until: 'false' });
    if (e.type === 'NodeRecorded') records.set(e.node, e.outputs);
    if (e.type === 'NodeJoined' && e.node === node.id)
      cycles.push({
        cycle: current,
        attempt: 0,
        outputs: joinedOutputs(records, e.completed),
        until: 'false',
      });
  }
  cycles.push({ cycle, attempt: recorded.attempt, outputs: recorded.outputs, until: why });
  const ran = `${cycle} of ${node.repeat!.max} cycles`;
  const needed =
    why === 'false'
      ? `"${node.id}" ran ${ran} and its repeat.until (${node.repeat!.until}) is still false. A person decides: approve a rerun for one more attempt, settle it as done (its last outputs stay), or fail the run.`
      : `"${node.id}" cycle ${cycle}: its repeat.until ${why}. Fix the expression (or the node's outputs), then approve a rerun, settle it as done, or fail the run.`;
  return {
    type: 'NodeEscalated',
    node: node.id,
    report: { attempted: [], failed: [], approaches_tried: [], needed, cycles },
  };
}
