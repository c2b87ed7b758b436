/**
 * The commands a person gives next, in the words of the face they read: the CLI's verbs in a terminal
 * (`interlock approve report --by NAME --run-id hello`), the comment forms on GitHub (`/approve report`). Every
 * "next" line interlock prints is built here, so a terminal never shows a comment form and a comment never
 * shows a CLI verb. Pure.
 */

/** Where the words are read: a terminal (the CLI) or GitHub (comments, summaries, check runs). */
export type Face = 'cli' | 'comment';

/** What a command needs to name its run: the CLI always names it; a comment only when several runs could match. */
export interface RunRef {
  runId: string;
  /** A comment names the run only when the issue or pull request has several (`/approve-rerun x <run-id>`). */
  several?: boolean;
  /** The journal file the person named (`--journal F`): the CLI's commands name it, not the run id. */
  journal?: string | undefined;
  /**
   * The graph file changed since the run started and nobody allowed it yet: the CLI's command carries
   * `--allow-graph-change`, which records who allowed the change in the same write (rule 6).
   */
  graphChanged?: boolean | undefined;
}

/** How a CLI command names its run: by the journal file the person gave, else by the run id. */
function runFlag(run: RunRef): string {
  return run.journal ? `--journal ${shellWord(run.journal)}` : `--run-id ${run.runId}`;
}

/** An instance's name (`work[3]`) is a shell pattern, a journal's path may hold a space: quoted, it is copied as it is. */
function shellWord(node: string): string {
  return node === '' || /[[\]*?\s'"$`\\;&|<>()#~!{}]/.test(node) ? `'${node.replace(/'/g, `'\\''`)}'` : node;
}

/** `interlock replay <run> <node> --attempt N`: an agent attempt again, offline, from its recording (issue 48). */
export function replayCommand(runId: string, node: string, attempt: number): string {
  return `interlock replay ${shellWord(runId)} ${shellWord(node)} --attempt ${attempt}`;
}

/** Without --by the CLI records git's user.name (or the login name) and says so: the command is copied as is. */
function cli(verb: string, node: string | undefined, rest: string, run: RunRef): string {
  const allow = run.graphChanged ? ' --allow-graph-change' : '';
  return `interlock ${verb}${node ? ` ${shellWord(node)}` : ''}${rest} ${runFlag(run)}${allow}`;
}

/**
 * A CLI command given again as the person typed it (`words`: what followed `interlock`), with
 * `--allow-graph-change`: the way on after a refusal under a changed graph.
 */
export function againAllowingGraphChange(words: readonly string[]): string {
  const kept = words.filter((w) => w !== '--allow-graph-change').map(shellWord);
  return `interlock ${[...kept, '--allow-graph-change'].join(' ')}`;
}

/** Let a node with `approval: before` run. */
export function approveCommand(face: Face, node: string, run: RunRef): string {
  return face === 'cli'
    ? cli('approve', node, '', run)
    : `/approve ${node}${run.several ? ` ${run.runId}` : ''}`;
}

/** Run a held or escalated node again. */
export function approveRerunCommand(face: Face, node: string, run: RunRef): string {
  return face === 'cli'
    ? cli('approve-rerun', node, '', run)
    : `/approve-rerun ${node}${run.several ? ` ${run.runId}` : ''}`;
}

/** Record a held or escalated node as done. */
export function settleCommand(face: Face, node: string, run: RunRef): string {
  return face === 'cli'
    ? cli('settle', node, ' --note "what you checked"', run)
    : `/settle ${run.several ? `--run=${run.runId} ` : ''}${node} <what you checked>`;
}

/** End the run as failed. */
export function failRunCommand(face: Face, run: RunRef): string {
  return face === 'cli' ? cli('fail-run', undefined, ' --reason "why"', run) : '/fail-run <reason>';
}

/**
 * The CLI command that carries a running run on. `--all` runs until the next stop (what a person who just
 * approved or settled means); a one-node command says that it runs one node.
 */
export function continueCommand(
  graphPath: string,
  runId: string,
  how: 'all' | 'one',
  journal?: string | undefined,
  graphChanged?: boolean,
): string {
  const allow = graphChanged ? ' --allow-graph-change' : '';
  const cmd = `interlock run ${shellWord(graphPath)} ${runFlag({ runId, journal })}${allow}`;
  return how === 'all'
    ? `${cmd} --all   # runs until the next stop`
    : `${cmd}   # runs the next ready node; add --all to run until the next stop`;
}

/** Mark the in-flight attempts whose process is gone as interrupted (the CLI; the Action recovers at each step). */
export function recoverCommand(run: RunRef): string {
  return `interlock recover ${runFlag(run)}`;
}
