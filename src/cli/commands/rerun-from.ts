/**
 * `interlock rerun-from <node> --by NAME [--guidance T]`: the node and every node that depends on it run again
 * as new attempts (`RerunFromApproved`, from `personCommandEvents` as a comment's `/rerun-from`). On an ended run
 * it forks a new run beside it (`<run-id>-2`, or the next of its series: journal/run-id.ts `nextRunId`;
 * `RunStarted.forked_from`) that starts with the records of every
 * other node.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeAndDependents } from '../../graph/dependents.js';
import { nodeById } from '../../graph/model.js';
import { nextRunId } from '../../journal/run-id.js';
import { personCommandEvents } from '../../protocol/commands/person-commands.js';
import { forkRun } from '../../protocol/commands/rerun-from.js';
import { commandTerms } from '../../protocol/policy.js';
import { writeFork } from '../../runner/journal-io/fork-run.js';
import { readRun } from '../../runner/journal-io/read.js';
import { commitPersonCommand } from '../../runner/person-command.js';
import { FileStore } from '../../store/file.js';
import { decider, EXIT, type Io, safeUser, UsageError } from '../io.js';
import { openExisting, runOptions, selectJournal } from '../journals.js';
import { afterDecision } from '../next-steps.js';

function parseRerunFrom(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...runOptions,
      by: { type: 'string' },
      guidance: { type: 'string' },
      'allow-graph-change': { type: 'boolean' },
    },
  });
  const node = positionals[0];
  if (!node || positionals.length > 1) throw new UsageError('usage: interlock rerun-from <node> --by NAME');
  return { values, node, guidance: values.guidance?.trim() || undefined };
}

/**
 * The journal file of a run forked from the one at `file`: beside it, named as the fork's id is when the file is
 * named as its run (`issue-80-2.json` → `issue-80-3.json`), else `<name>-<n>.json`.
 */
function forkFile(file: string, forkId: string, runId: string): string {
  const name = basename(file, '.json');
  const from = runId.slice(runId.lastIndexOf('/') + 1);
  const to = forkId.slice(forkId.lastIndexOf('/') + 1);
  const forked = name.endsWith(from)
    ? `${name.slice(0, name.length - from.length)}${to}`
    : `${name}${forkId.slice(forkId.lastIndexOf('-'))}`;
  return join(dirname(file), `${forked}.json`);
}

export async function cmdRerunFrom(io: Io, args: string[]): Promise<number> {
  const { values, node, guidance } = parseRerunFrom(args);
  const by = decider(io, 'rerun-from', values.by);
  const journalFile = selectJournal(io, values);
  const { graph, setup } = await openExisting(io, {
    journalFile,
    graphPath: values.graph,
    allowChangeBy: values['allow-graph-change'] ? by : undefined,
  });
  const source = `cli:${safeUser() ?? 'unknown'}`;
  const terms = commandTerms('rerun-from', undefined, nodeById(graph, node));
  const runner = { kind: 'person' as const, host: source };
  const cur = await readRun(setup, runner);
  const req = {
    node,
    by,
    source,
    graph_hash: graph.hash,
    ...(guidance ? { guidance } : {}),
    ...(terms.preventSelfApproval ? { prevent_self_approval: true } : {}),
  };
  const rerun = nodeAndDependents(graph.nodes, node).join(', ');
  if (cur.state.checkpoint.ended) {
    const f = forkRun({ run: cur, ...req });
    if (!f.ok) {
      io.err(`interlock: rerun-from refused: ${f.reason}\n`);
      return EXIT.usage;
    }
    const runId = cur.journal.run_id;
    const forkId = nextRunId(runId, (id) => existsSync(forkFile(journalFile, id, runId)));
    const file = forkFile(journalFile, forkId, runId);
    const w = await writeFork(new FileStore(file), forkId, graph, f.events);
    if (!w.ok) {
      io.err(`interlock: rerun-from refused: ${w.reason}\n`);
      return EXIT.usage;
    }
    io.out(`${by} forked ${runId} (it had ended) as ${forkId} at ${file}: ${rerun} run again\n`);
    io.out(
      afterDecision(
        graph.path,
        forkId,
        w.cur.state.checkpoint.status,
        values.journal ? relative(io.cwd, file) : undefined,
      ),
    );
    return EXIT.ok;
  }
  const giver = { login: by, source, ...terms, graphHash: graph.hash };
  const command = { kind: 'rerun-from' as const, node, ...(guidance ? { guidance } : {}) };
  const r = await commitPersonCommand(setup, runner, (run) => personCommandEvents({ run, command, giver }));
  if (!r.ok) {
    io.err(`interlock: rerun-from refused: ${r.reason}\n`);
    return EXIT.usage;
  }
  // The nodes named, and those under them: an instance (`work[3]`) or a sub-graph's node (`review/build`).
  const named = rerun.split(', ');
  const held = r.cur.state.checkpoint.held_nodes.filter((h) =>
    named.some((n) => h === n || h.startsWith(`${n}/`) || h.startsWith(`${n}[`)),
  );
  io.out(
    `${by} reran from "${node}": ${rerun} run again${held.length ? `; held until a person approves a rerun (replay: never): ${held.join(', ')}` : ''}; run is ${r.cur.state.checkpoint.status}\n`,
  );
  io.out(
    afterDecision(graph.path, r.cur.state.checkpoint.run_id, r.cur.state.checkpoint.status, values.journal),
  );
  return EXIT.ok;
}
