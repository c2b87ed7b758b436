/**
 * A person's commands as CLI verbs, each recorded with their name: `approve <node>` (let a node with
 * `approval: before` run), `approve-rerun <node>` (run a held or escalated node again), `settle <node>` (it is
 * done: record it), `fail-run` (end the run as failed). Approvals take `--guidance T` for the next attempt.
 * The events come from `personCommandEvents` (protocol/commands/person-commands.ts), as a comment's do.
 */
import { parseArgs } from 'node:util';
import { nodeById } from '../../graph/model.js';
import { journalGraphPath } from '../../journal/graph-path.js';
import { type PageBinding, pageOutOfDate } from '../../protocol/commands/page-binding.js';
import {
  handledBefore,
  type PersonCommand,
  personCommandEvents,
} from '../../protocol/commands/person-commands.js';
import { commandTerms } from '../../protocol/policy.js';
import { commitPersonCommand } from '../../runner/person-command.js';
import { decider, EXIT, type Io, safeUser, UsageError } from '../io.js';
import { openExisting, runOptions, selectJournal } from '../journals.js';
import { afterDecision } from '../next-steps.js';

type PersonCommandVerb = Exclude<PersonCommand['kind'], 'rerun-from'>;

function parsePersonCommand(verb: PersonCommandVerb, args: string[]) {
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
  const guidance = values.guidance?.trim() ? { guidance: values.guidance.trim() } : {};
  const at = attempt !== undefined ? { attempt } : {};
  const command: PersonCommand =
    verb === 'approve'
      ? { kind: verb, node: node!, ...guidance }
      : verb === 'approve-rerun'
        ? { kind: verb, node: node!, ...guidance, ...at, ...(values.reason ? { reason: values.reason } : {}) }
        : verb === 'settle'
          ? { kind: verb, node: node!, note: values.note!, ...at }
          : { kind: verb, reason: values.reason! };
  return { values, command };
}

/**
 * A person's command on a local journal, through the compare-and-swap commit; `bound` (the maintainers' page,
 * `interlock ui`) refuses it when the journal moved on since the page was shown.
 */
export async function applyLocal(
  io: Io,
  o: {
    journalFile: string;
    graphPath: string | undefined;
    by: string;
    command: PersonCommand;
    source: string;
    allowChangeBy?: string | undefined;
    bound?: PageBinding;
  },
) {
  const { graph, setup } = await openExisting(io, {
    journalFile: o.journalFile,
    graphPath: o.graphPath,
    allowChangeBy: o.allowChangeBy,
  });
  const { command } = o;
  // Without a repository configuration, the graph's and the node's `approvals:` are the policy.
  const terms = commandTerms(command.kind, undefined, nodeById(graph, 'node' in command ? command.node : ''));
  const giver = { login: o.by, source: o.source, ...terms, graphHash: graph.hash };
  return commitPersonCommand(setup, { kind: 'person', host: o.source }, (cur) => {
    const stale =
      o.bound && !handledBefore(cur.journal, cur.state, o.source) && pageOutOfDate(cur.state, o.bound);
    return stale ? { ok: false, reason: stale } : personCommandEvents({ run: cur, command, giver });
  });
}

export async function cmdPersonCommand(io: Io, verb: PersonCommandVerb, args: string[]): Promise<number> {
  const { values, command } = parsePersonCommand(verb, args);
  const by = decider(io, verb, values.by);
  const r = await applyLocal(io, {
    journalFile: selectJournal(io, values),
    graphPath: values.graph,
    by,
    command,
    source: `cli:${safeUser() ?? 'unknown'}`,
    allowChangeBy: values['allow-graph-change'] ? by : undefined,
  });
  if (!r.ok) {
    io.err(`interlock: ${verb} refused: ${r.reason}\n`);
    return EXIT.usage;
  }
  const node = 'node' in command ? command.node : '';
  const what =
    verb === 'approve'
      ? `approved "${node}" (${r.cur.state.nodes.get(node)?.state === 'awaiting_approval' ? 'it waits for more approvals' : 'it may run now'})`
      : verb === 'approve-rerun'
        ? `approved a rerun of "${node}"`
        : verb === 'settle'
          ? `settled "${node}" as done`
          : 'failed the run';
  io.out(`${by} ${what}; run is ${r.cur.state.checkpoint.status}\n`);
  io.out(
    afterDecision(
      values.graph ?? journalGraphPath(r.cur.journal),
      r.cur.state.checkpoint.run_id,
      r.cur.state.checkpoint.status,
      values.journal,
    ),
  );
  return EXIT.ok;
}
