/**
 * The command a person types next where the CLI would otherwise stop without one: a run that has ended (start a
 * new one under its own id), and a run a person has just unblocked (run the graph again to go on). The commands
 * themselves are worded in `src/render/next-commands.ts`, the one place for every face.
 */
import { againAllowingGraphChange, continueCommand } from '../render/next-commands.js';
import type { GraphChangeRefused } from '../runner/journal-io/read.js';

/**
 * The run id to start afresh with: `<id>-2`, or the next number after one that already has it (`hello-2` gives
 * `hello-3`); an issue's or pull request's number is not a run's (`fix/issue-42` gives `fix/issue-42-2`).
 */
export function freshRunId(runId: string): string {
  const m = /^(.*)-(\d+)$/.exec(runId);
  if (!m || m[1] === '' || /(?:^|\/)(?:issue|pr)$/.test(m[1]!)) return `${runId}-2`;
  return `${m[1]}-${Number(m[2]) + 1}`;
}

/**
 * Said after `run` found the run ended: it stays ended, and this is how to run the graph again (with a journal
 * named by --journal, the new run needs a file of its own as well).
 */
export function afterEnded(graphPath: string, runId: string, journal?: string): string {
  const fresh = freshRunId(runId);
  const where = journal
    ? ` --journal ${journal.replace(/(\.json)?$/, `-${fresh.replace(/\//g, '-')}.json`)}`
    : '';
  return `  a run that has ended stays ended; to run the graph again, start a new run under its own id:\n  interlock run ${graphPath} --run-id ${fresh}${where}\n`;
}

/**
 * Said after an approval or settlement that lets the run go on: nothing runs until `run` is given again, and a
 * person who just unblocked a run means it to go on to its next stop (`--all`).
 */
export function afterDecision(graphPath: string, runId: string, status: string, journal?: string): string {
  if (status !== 'running') return '';
  return `next (nothing runs until you do): ${continueCommand(graphPath, runId, 'all', journal)}\n`;
}

/** Said where a running run has a node ready and nobody runs it: `status`, or `run` that ran one node. */
export function toGoOn(
  graphPath: string,
  runId: string,
  how: 'all' | 'one',
  journal?: string,
  graphChanged?: boolean,
): string {
  return `next: ${continueCommand(graphPath, runId, how, journal, graphChanged)}\n`;
}

/** A graph hash short enough for a line: `sha256:` and its first 10 digits. */
const short = (hash: string) => `${hash.slice(0, 17)}…`;

/**
 * Said when a command was refused because the graph changed since the run started (rule 6): nothing was
 * recorded, and the one way on is the same command again with `--allow-graph-change` (docs/cli.md, "When the
 * graph file changed"), which records who allowed the change and what the command does in one write. `argv`:
 * the words after `interlock`, as typed.
 */
export function graphChangeRefusal(verb: string, e: GraphChangeRefused, argv: readonly string[]): string {
  const what = `the graph changed since the run started (${short(e.state.accepted_hash)} → ${short(e.to)})`;
  return `interlock: ${verb} refused: ${what}, and nothing was recorded; to go on under the new graph (you are recorded as allowing it): ${againAllowingGraphChange(argv)}`;
}
