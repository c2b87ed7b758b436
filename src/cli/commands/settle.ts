/**
 * The settlement verbs, each a person's decision recorded with their name: `approve <node>` (let a node with
 * `approval: before` run), `approve-rerun <node>` (run a held or escalated node again), `settle <node>` (it is
 * done: record it), `fail-run` (end the run as failed). Approvals take `--guidance T` for the next attempt.
 */
import { parseArgs } from 'node:util';
import { type Graph, nodeById } from '../../graph/model.js';
import { approveNode } from '../../protocol/gate.js';
import { effectivePolicy } from '../../protocol/policy.js';
import { approveRerun, failRun, type Settlement, settleNode } from '../../protocol/settle.js';
import { type Current, settleRun } from '../../runner/engine.js';
import { EXIT, type Io, safeUser, UsageError } from '../io.js';
import { openExisting, runOptions, selectJournal } from '../journals.js';
import { afterDecision } from '../next-steps.js';

export type SettleVerb = 'approve' | 'approve-rerun' | 'settle' | 'fail-run';

interface Decision {
  verb: SettleVerb;
  node: string | undefined;
  by: string;
  reason: string | undefined;
  note: string | undefined;
  attempt: number | undefined;
  guidance: string | undefined;
}

function parseSettle(verb: SettleVerb, args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...runOptions,
      by: { type: 'string' },
      reason: { type: 'string' },
      note: { type: 'string' },
      attempt: { type: 'string' },
      guidance: { type: 'string' },
      'allow-graph-change': { type: 'boolean' },
    },
  });
  if (!values.by?.trim()) throw new UsageError(`${verb} needs --by NAME: the person who decides is recorded`);
  const node = positionals[0];
  if (verb !== 'fail-run' && (!node || positionals.length > 1))
    throw new UsageError(`usage: interlock ${verb} <node> --by NAME`);
  if (verb === 'settle' && !values.note?.trim())
    throw new UsageError('settle needs --note T: say what you checked');
  if (verb === 'fail-run' && !values.reason?.trim()) throw new UsageError('fail-run needs --reason T');
  const attempt = values.attempt !== undefined ? Number(values.attempt) : undefined;
  if (attempt !== undefined && !(Number.isInteger(attempt) && attempt > 0))
    throw new UsageError('--attempt must be a positive whole number');
  if (values.guidance !== undefined && verb !== 'approve' && verb !== 'approve-rerun')
    throw new UsageError('--guidance goes with approve or approve-rerun');
  const decision: Decision = {
    verb,
    node,
    by: values.by,
    reason: values.reason,
    note: values.note,
    attempt,
    guidance: values.guidance?.trim() || undefined,
  };
  return { values, decision };
}

/** The settlement the person's decision makes of the run as it stands. */
function settlementOf(d: Decision, graph: Graph, cur: Current, source: string): Settlement {
  const attempt = d.attempt !== undefined ? { attempt: d.attempt } : {};
  // Without a repository configuration, the graph's and the node's `approvals:` are the policy.
  const policy = effectivePolicy(undefined, nodeById(graph, d.node ?? ''));
  const terms = {
    required: policy.required,
    ...(policy.prevent_self_approval ? { prevent_self_approval: true } : {}),
    ...(d.guidance ? { guidance: d.guidance } : {}),
  };
  if (d.verb === 'approve')
    return approveNode(graph, cur.state, {
      node: d.node!,
      by: d.by,
      source,
      graph_hash: graph.hash,
      ...terms,
    });
  if (d.verb === 'approve-rerun')
    return approveRerun(graph, cur.state, {
      node: d.node!,
      by: d.by,
      source,
      ...attempt,
      ...(d.reason ? { reason: d.reason } : {}),
      ...terms,
    });
  if (d.verb === 'settle')
    return settleNode(graph, cur.journal, cur.state, {
      node: d.node!,
      by: d.by,
      note: d.note!,
      source,
      ...attempt,
    });
  return failRun(cur.state, { by: d.by, reason: d.reason! });
}

export async function cmdSettle(io: Io, verb: SettleVerb, args: string[]): Promise<number> {
  const { values, decision } = parseSettle(verb, args);
  const journalFile = selectJournal(io, values);
  const { graph, setup } = await openExisting(io, {
    journalFile,
    graphPath: values.graph,
    allowChangeBy: values['allow-graph-change'] ? decision.by : undefined,
  });
  const source = `cli:${safeUser() ?? 'unknown'}`;
  const r = await settleRun(setup, { kind: 'person', host: source }, (cur) =>
    settlementOf(decision, graph, cur, source),
  );
  if (!r.ok) {
    io.err(`interlock: ${verb} refused: ${r.reason}\n`);
    return EXIT.usage;
  }
  const what =
    verb === 'approve'
      ? `approved "${decision.node}" (${r.cur.state.nodes.get(decision.node!)?.state === 'awaiting_approval' ? 'it waits for more approvals' : 'it may run now'})`
      : verb === 'approve-rerun'
        ? `approved a rerun of "${decision.node}"`
        : verb === 'settle'
          ? `settled "${decision.node}" as done`
          : 'failed the run';
  io.out(`${decision.by} ${what}; run is ${r.cur.state.checkpoint.status}\n`);
  io.out(
    afterDecision(
      values.graph ?? r.cur.journal.graph.path,
      r.cur.state.checkpoint.run_id,
      r.cur.state.checkpoint.status,
    ),
  );
  return EXIT.ok;
}
