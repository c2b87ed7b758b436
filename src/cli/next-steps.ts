/**
 * The command a person types next where the CLI would otherwise stop without one: a run that has ended (start a
 * new one under its own id), and a run a person has just unblocked (run the graph again to go on). The commands
 * themselves are worded in `src/render/next-commands.ts`, the one place for every face.
 */
import { continueCommand } from '../render/next-commands.js';

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
export function toGoOn(graphPath: string, runId: string, how: 'all' | 'one', journal?: string): string {
  return `next: ${continueCommand(graphPath, runId, how, journal)}\n`;
}
