/**
 * Rerun from a node (issue 28): `/rerun-from <node>` and `interlock rerun-from <node>` mark the node and every
 * node that depends on it, transitively, to run again as new attempts (`RerunFromApproved`; the fold resets
 * them, reducers/loops-and-reruns.ts). Files stay; earlier outputs stay in the journal only. On an ended run the
 * rerun is a new run forked from it (`forkRun`): `RunStarted.forked_from`, then the records of every node outside
 * the rerun (`NodeCarriedOver`). Pure.
 */
import { nodeAndDependents } from '../../graph/dependents.js';
import { suggestion } from '../../graph/errors.js';
import { type Graph, nodeById } from '../../graph/model.js';
import { instanceId } from '../../graph/schema/for-each.js';
import type { Journal, NewEvent } from '../../journal/events/events.js';
import { journalGraphPath } from '../../journal/graph-path.js';
import type { RunState } from '../../journal/state.js';
import { notRunSinceStart, stateWords } from '../../journal/state.js';
import type { Run } from '../run.js';
import {
  type ApprovalTerms,
  approvalRefusal,
  guidanceRefusal,
  selfApprovalRefusal,
} from './approval-rules.js';
import type { CommandEvents } from './person-commands.js';

interface RerunFromRequest extends ApprovalTerms {
  node: string;
}

/** A rerun from a node of an ended run, which forks a new run (under the graph the fork loads). */
type ForkRequest = Omit<RerunFromRequest, 'graph_hash'>;

/** Why the node cannot be rerun from in this run (not counting the run's end), or null. */
function nodeRefusal(graph: Graph, state: RunState, node: string): string | null {
  const p = state.nodes.get(node);
  const top = /^[^/[]+/.exec(node)?.[0];
  if (top !== node && top !== undefined && graph.nodes.some((n) => n.id === top))
    return `"${node}" is ${node.includes('/') ? 'a node of a sub-graph' : 'an instance'}: rerun-from names a node of the run's own graph, and reruns everything under it; rerun from "${top}", or approve "${node}" alone with approve-rerun`;
  if (!p || !graph.nodes.some((n) => n.id === node))
    return `"${node}" is not a node of ${graph.name}${suggestion(
      node,
      graph.nodes.map((n) => n.id),
    )}`;
  if (notRunSinceStart(p))
    return `node "${node}" is ${stateWords(p.state)} and has not run since its last start, so there is nothing to rerun`;
  const flying = nodeAndDependents(graph.nodes, node).filter(
    (id) => state.nodes.get(id)?.state === 'in_flight',
  );
  if (flying.length)
    return `${flying.map((id) => `"${id}"`).join(', ')} ${flying.length > 1 ? 'are' : 'is'} in flight: wait until ${flying.length > 1 ? 'they end' : 'it ends'} (or recovery marks ${flying.length > 1 ? 'them' : 'it'} interrupted), then rerun from "${node}"`;
  return null;
}

/** A named person reruns a node and its dependents in a `run` that has not ended. */
export function rerunFrom(req: RerunFromRequest & { run: Run }): CommandEvents {
  const { graph, state } = req.run;
  const ended = state.checkpoint.ended;
  const why =
    (ended
      ? `the run has already ended (${ended.type}: ${ended.reason}): rerun-from forks a new run from it`
      : null) ??
    nodeRefusal(graph, state, req.node) ??
    approvalRefusal(state, req);
  if (why) return { ok: false, reason: why };
  return {
    ok: true,
    events: [
      {
        type: 'RerunFromApproved',
        node: req.node,
        nodes: nodeAndDependents(graph.nodes, req.node),
        approved_by: req.by,
        source: req.source,
        graph_hash: state.accepted_hash,
        ...(req.guidance ? { guidance: req.guidance } : {}),
      },
    ],
  };
}

/** The first events of a run forked from an ended `run` (under the graph the fork loads), or why it cannot be. */
export function forkRun(
  req: ForkRequest & { run: Run },
): { ok: true; events: NewEvent[] } | { ok: false; reason: string } {
  const { graph, journal, state } = req.run;
  if (!state.checkpoint.ended)
    return { ok: false, reason: `${journal.run_id} has not ended: rerun within it` };
  const p = state.nodes.get(req.node);
  const why =
    (!p || !graph.nodes.some((n) => n.id === req.node)
      ? `"${req.node}" is not a node of ${graph.name}${suggestion(
          req.node,
          graph.nodes.map((n) => n.id),
        )}`
      : null) ??
    selfApprovalRefusal(state, req) ??
    guidanceRefusal(req.guidance);
  if (why) return { ok: false, reason: why };
  const start = journal.events[0];
  if (start?.type !== 'RunStarted') return { ok: false, reason: `${journal.run_id} has no RunStarted` };
  const rerun = new Set(nodeAndDependents(graph.nodes, req.node));
  const last = journal.events[journal.events.length - 1]!;
  const { seq: _seq, at: _at, ...started } = start;
  const events: NewEvent[] = [
    {
      ...started,
      // The path as the run recorded it (relative to the repository), under the graph as it is now.
      graph: { name: graph.name, hash: graph.hash, path: journalGraphPath(journal) },
      started_by: req.by,
      forked_from: { run_id: journal.run_id, seq: last.seq, node: req.node, source: req.source },
    },
  ];
  for (const id of state.checkpoint.traversal_path.filter((x, i, all) => all.lastIndexOf(x) === i)) {
    const q = state.nodes.get(id);
    if (rerun.has(id) || !graph.nodes.some((n) => n.id === id)) continue;
    if (q?.state !== 'completed' && q?.state !== 'skipped') continue;
    events.push({
      type: 'NodeCarriedOver',
      node: id,
      from_seq: resolvingEvent(journal, id),
      state: q.state,
      outputs: { ...q.outputs },
      ...carriedInstances(graph, state, id),
    });
  }
  return { ok: true, events };
}

/** A completed `for_each` node's instances as its join found them, for its carry-over; nothing for other nodes. */
function carriedInstances(graph: Graph, state: RunState, id: string) {
  const made = state.nodes.get(id)?.expansion;
  if (!nodeById(graph, id)?.for_each || !made) return {};
  const instances = made.keys.map((instanceKey, i) => {
    const q = state.nodes.get(instanceId(id, instanceKey))!;
    const ended = q.state === 'completed' || q.state === 'skipped' ? q.state : ('tolerated' as const);
    return { key: instanceKey, value: made.values[i], state: ended, outputs: { ...q.outputs } };
  });
  return { instances };
}

/** The seq of the event that last resolved a node: its record, skip, join or carry-over. */
function resolvingEvent(journal: Journal, node: string): number {
  for (let i = journal.events.length - 1; i >= 0; i--) {
    const e = journal.events[i]!;
    if (
      (e.type === 'NodeRecorded' ||
        e.type === 'NodeSkipped' ||
        e.type === 'NodeCarriedOver' ||
        e.type === 'NodeJoined') &&
      e.node === node
    )
      return e.seq;
  }
  return 1;
}
