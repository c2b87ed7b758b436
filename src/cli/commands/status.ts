/** `interlock status`: the run's table (or checkpoint JSON, or a Mermaid diagram), and what a person can do next. */

import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Graph, nodeById } from '../../graph/model.js';
import type { EscalationReport } from '../../journal/events/fields.js';
import { journalGraphPath } from '../../journal/graph-path.js';
import { connectionLines } from '../../render/connections.js';
import {
  approveCommand,
  approveRerunCommand,
  failRunCommand,
  settleCommand,
} from '../../render/next-commands.js';
import { statusMermaid, statusTable } from '../../render/status.js';
import { timelineSvgOf } from '../../render/timeline/svg.js';
import { timelineText } from '../../render/timeline/text.js';
import { timelineOf } from '../../render/timeline/timeline-of.js';
import { meteredAttempts, meteredLines } from '../../render/usage/metered.js';
import { type RunSnapshot, readRun } from '../../runner/journal-io/read.js';
import { inFlightLines } from '../in-flight.js';
import { EXIT, type Io, UsageError } from '../io.js';
import { openExisting, runOptions, selectJournal } from '../journals.js';
import { liveStatus } from '../live-file.js';
import { toGoOn } from '../next-steps.js';

/** The nodes in flight, as this machine's processes show them (`src/cli/in-flight.ts`). */
export function inFlight(cur: RunSnapshot, journal?: string): string {
  const lines = inFlightLines(cur, journal);
  return lines.length ? `\n${lines.join('\n')}\n` : '';
}

export async function cmdStatus(io: Io, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...runOptions,
      json: { type: 'boolean' },
      mermaid: { type: 'boolean' },
      timeline: { type: 'boolean' },
      svg: { type: 'string' },
      width: { type: 'string' },
    },
  });
  const journalFile = selectJournal(io, values);
  const { graph, setup } = await openExisting(io, { journalFile, graphPath: values.graph });
  const cur = await readRun(setup, { kind: 'local' });
  if (cur.state.accepted_hash !== graph.hash) {
    io.err(
      `interlock: note: ${graph.path} changed since the run started (${cur.state.accepted_hash} → ${graph.hash}); a command that goes on under it takes --allow-graph-change (recorded with your name)\n`,
    );
  }
  if (values.timeline || values.svg !== undefined) return timelineOut(io, cur, values);
  // Beside the checkpoint, each metered attempt's recording and difference (issue 48), when there is one.
  const metered = meteredAttempts(cur.journal.events);
  const json = metered.length ? { ...cur.state.checkpoint, metered_attempts: metered } : cur.state.checkpoint;
  if (values.json) io.out(`${JSON.stringify(json, null, 2)}\n`);
  else if (values.mermaid) io.out(`${statusMermaid(graph, cur.state)}\n`);
  else {
    const network = [
      ...meteredLines(cur.journal.events, cur.journal.run_id),
      ...connectionLines(cur.journal),
    ];
    io.out(
      `${statusTable(graph, cur.state)}\n${liveStatus(journalFile, cur)}${network.length ? `\n${network.join('\n')}\n` : ''}${inFlight(cur, values.journal)}${nextHint(cur, 'all', graph, values.journal)}`,
    );
  }
  return EXIT.ok;
}

/** `--timeline` (text that fits the terminal) and `--svg FILE` (the picture the page shows), from the journal. */
function timelineOut(
  io: Io,
  cur: RunSnapshot,
  v: { timeline?: boolean; svg?: string; width?: string },
): number {
  // A running attempt is drawn up to now.
  const t = timelineOf(cur.journal, { now: Date.now() });
  if (v.svg !== undefined) {
    if (!v.svg) throw new UsageError('--svg needs a file name, e.g. --svg run.svg');
    writeFileSync(resolve(io.cwd, v.svg), timelineSvgOf(t));
    io.err(`interlock: wrote the timeline of ${cur.journal.run_id} to ${v.svg}\n`);
  }
  if (v.timeline) io.out(`${timelineText(t, terminalWidth(io, v.width))}\n`);
  return EXIT.ok;
}

/** `--width N`, else the terminal's width, else `$COLUMNS`, else 80. */
function terminalWidth(io: Io, given: string | undefined): number {
  if (given !== undefined) {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 40 || n > 1000)
      throw new UsageError(`--width ${given}: give a whole number of columns from 40 to 1000`);
    return n;
  }
  const env = Number(io.env.COLUMNS);
  return io.columns ?? (Number.isInteger(env) && env >= 40 ? env : 80);
}

/**
 * What a person can do next, as commands to copy: about each node that waits for one, and, when a node is ready
 * and nothing runs it, the command that carries the run on (`how`: the `run` that ran one node says so).
 * Empty when the run has ended.
 */
export function nextHint(
  cur: RunSnapshot,
  how: 'all' | 'one' = 'all',
  graph?: Graph,
  journal?: string,
): string {
  const cp = cur.state.checkpoint;
  // An ended run waits for nobody.
  if (cp.ended) return '';
  // A run named by --journal is named so again: `--run-id` looks in .interlock/runs, where it is not.
  // Under a graph file changed since the run started, each command allows the change as it is given (rule 6).
  const graphChanged = graph !== undefined && graph.hash !== cur.state.accepted_hash;
  const run = { runId: cp.run_id, journal, graphChanged };
  const lines: string[] = [];
  const either = (n: string, settleWords: string) => [
    `  ${approveRerunCommand('cli', n, run)}     # run it again`,
    `  ${settleCommand('cli', n, run)}   # ${settleWords}`,
  ];
  for (const n of cp.awaiting_approval_nodes ?? []) {
    lines.push(
      `awaiting approval: ${n} (approval: before). To let it run, approve it, then run the graph again:`,
      `  ${approveCommand('cli', n, run)}`,
    );
  }
  for (const n of cp.held_nodes) {
    if (cur.state.nodes.get(n)?.rerun_hold) {
      lines.push(
        `held: ${n} (rerun from a node; replay: never, so no earlier approval carries over). Either`,
        ...either(n, 'keep what it did: record it'),
      );
      continue;
    }
    lines.push(
      `held: ${n} (its attempt was interrupted and may have partly run). Check, then either`,
      ...either(n, 'it is done: record it'),
    );
  }
  // A node under a sub-graph instance its join tolerated waits for nobody either.
  const tolerated = (n: string) =>
    n
      .split('/')
      .some((_, i, parts) => cur.state.nodes.get(parts.slice(0, i).join('/'))?.state === 'tolerated');
  for (const n of cp.escalated_nodes.filter((x) => !tolerated(x))) {
    lines.push(`escalated: ${n}`, ...reportLines(cur.state.nodes.get(n)?.report), '  Either');
    lines.push(...either(n, 'it is done: record it'), `  ${failRunCommand('cli', run)}   # end the run`);
  }
  // Nodes are ready and nothing runs them until a person gives `run` again; an effect runs only in the Action.
  const effects = cp.ready_nodes.filter((n) => graph && nodeById(graph, n)?.effect);
  for (const n of effects) lines.push(`ready: ${n} is an effect: it runs in the Action, not the CLI`);
  if (cp.ready_nodes.length > effects.length)
    lines.push(
      toGoOn(graph?.path ?? journalGraphPath(cur.journal), cp.run_id, how, journal, graphChanged).trimEnd(),
    );
  return lines.length ? `\n${lines.join('\n')}\n` : '';
}

/** The escalation report in plain lines. */
function reportLines(report: EscalationReport | undefined): string[] {
  if (!report) return [];
  const out = report.attempted.map((a) => {
    const f = report.failed.find((x) => x.attempt === a.attempt);
    const why = f ? f.failures.map((x) => `${x.check}: ${x.message}`).join('; ') : 'no failure recorded';
    return `  attempt ${a.attempt} (${a.approach}) ${a.work} — failed: ${why}`;
  });
  for (const c of report.cycles ?? []) {
    const outputs = Object.entries(c.outputs).map(([k, v]) => `${k}=${v}`);
    out.push(
      `  cycle ${c.cycle} (${c.attempt ? `attempt ${c.attempt}` : "its sub-graph's join"}) ${outputs.join(' ') || 'no outputs'} — until: ${c.until}`,
    );
  }
  if (report.approaches_tried.length) out.push(`  approaches tried: ${report.approaches_tried.join(', ')}`);
  out.push(`  needed: ${report.needed}`);
  return out;
}
