/**
 * The maintainers' page model (issue 37): from folded runs to the rows of "Waiting for people", one per node
 * that waits for a person: a gate before its first attempt, a node held after an interruption, a node escalated
 * after its attempts (or at the run's budget). Each row carries what the page shows and what its form is bound
 * to (the node, its attempt, the graph hash). Pure: the shell reads the journals and graphs and passes them in.
 */
import type { Graph } from '../../graph/model.js';
import { nodeById } from '../../graph/model.js';
import type { Journal } from '../../journal/events/events.js';
import type { EscalationReport } from '../../journal/events/fields.js';
import { type SubjectRef, subjectOfRun } from '../../journal/run-id.js';
import { type NodeProgress, type RunState, waitingAttempt } from '../../journal/state.js';
import { effectivePolicy, policyWords, type RepoApprovals } from '../../protocol/policy.js';
import { throughDoor } from '../door.js';
import { excerptOf } from '../excerpt.js';
import {
  approveCommand,
  approveRerunCommand,
  continueCommand,
  type Face,
  failRunCommand,
  settleCommand,
} from '../next-commands.js';

/** The repository name of the CLI's local journals (`interlock ui`): no GitHub behind it. */
export const LOCAL = 'local';

/** One run as the shell read it: where it lives, its journal, its graph and the fold of both. */
export interface PageRun {
  /** `owner/name`, or `local` for the CLI's journals. */
  repo: string;
  journal: Journal;
  graph: Graph;
  state: RunState;
  /** The repository's `approvals` (from `.github/interlock.yml`), when known. */
  approvals?: RepoApprovals;
  /** The issue's or pull request's title (hostile text: shown escaped). */
  title?: string;
  /** Secrets of the face that shows the page (`interlock ui`: its environment's), which node text passes the door without. */
  secrets?: readonly string[];
}

type WaitKind = 'gate' | 'held' | 'escalated';

/** One node that waits for a person. */
export interface WaitingRow {
  repo: string;
  runId: string;
  subject?: SubjectRef;
  title?: string;
  graphName: string;
  /** The graph hash the run accepts: an action bound to another is refused as out of date. */
  graphHash: string;
  /** Its full name: an instance `work[3]`, a sub-graph node `review/build`. */
  node: string;
  kind: WaitKind;
  why: string;
  /** The attempt an approval or settlement names (`waitingAttempt`); 0 for a gate before any attempt. */
  attempt: number;
  since: string;
  approvals: { have: string[]; required: number };
  policy: string;
  failure?: string;
  report?: string;
  /**
   * The commands that do the same as the page's buttons, in the words of where the run lives: comment commands
   * for a repository's run, the CLI's verbs for a local journal (`interlock ui`), with the command that runs the
   * node once it is approved.
   */
  commands: string[];
  /** Where `commands` are typed: a comment on GitHub, or a terminal. */
  commandsFace: Face;
  startedBy?: string;
}

function kindOf(p: NodeProgress): WaitKind | undefined {
  if (p.state === 'awaiting_approval') return 'gate';
  if (p.state === 'held') return 'held';
  if (p.state === 'escalated') return 'escalated';
  return undefined;
}

function whyWords(kind: WaitKind, p: NodeProgress, required: number): string {
  const count = `${p.approvals.length} of ${required} approval${required === 1 ? '' : 's'}`;
  switch (kind) {
    case 'gate':
      return `approval before its first attempt (${count})`;
    case 'held':
      return p.rerun_hold
        ? `held by a rerun: replay: never, so a person approves its next attempt (${count})`
        : `held: attempt ${p.attempts} was interrupted and may have partly run (${count})`;
    case 'escalated':
      if (p.daily_cap_escalated) return `escalated: the repository is at its daily cost cap (${count})`;
      if (p.budget_escalated) return `escalated: the run is at its budget (${count})`;
      if (p.loop_escalated) return `escalated: its loop ran its last cycle (${count})`;
      return `escalated after ${p.attempts} failed attempt${p.attempts === 1 ? '' : 's'} (${count})`;
  }
}

/** When the node began to wait: the last event about it. */
function waitingSince(journal: Journal, node: string): string {
  for (let i = journal.events.length - 1; i >= 0; i--) {
    const e = journal.events[i]!;
    if ('node' in e && e.node === node) return e.at;
  }
  return journal.events[0]?.at ?? '';
}

function lastFailure(p: NodeProgress, secrets: readonly string[]): string | undefined {
  if (!p.last_failures.length) return undefined;
  const text = p.last_failures
    .map((f) => `${f.check}: ${f.message}${f.excerpt ? `\n${f.excerpt}` : ''}`)
    .join('\n');
  // The page escapes by construction (html.ts); the door removes the secrets.
  return throughDoor(excerptOf(text)?.text ?? text, 'plain', { secrets });
}

/** The escalation report as plain lines (node text: through the door, escaped by the page). */
function reportText(r: EscalationReport, secrets: readonly string[] = []): string {
  const text = [
    ...r.attempted.map((a) => `attempt ${a.attempt} (${a.approach}): ${a.work}`),
    ...r.failed.flatMap((f) =>
      f.failures.map((x) => `attempt ${f.attempt} failed: ${x.check}: ${x.message}`),
    ),
    `needed: ${r.needed}`,
  ].join('\n');
  return throughDoor(text, 'plain', { secrets });
}

function commandsFor(kind: WaitKind, node: string, runId: string): string[] {
  if (kind === 'gate') return [`/approve ${node} ${runId}`, `/fail-run ${runId} <reason>`];
  return [
    `/approve-rerun ${node} ${runId}`,
    `/settle ${node} ${runId} <what you checked>`,
    `/fail-run ${runId} <reason>`,
  ];
}

/**
 * The CLI's verbs for a local run: nothing runs an approved node until `interlock run … --all` is given again.
 * Under a graph file changed since the run started, each takes `--allow-graph-change` (rule 6).
 */
function cliCommandsFor(
  kind: WaitKind,
  node: string,
  runId: string,
  graph: Graph,
  state: RunState,
): string[] {
  const graphChanged = graph.hash !== state.accepted_hash;
  const run = { runId, graphChanged };
  const approve = kind === 'gate' ? approveCommand('cli', node, run) : approveRerunCommand('cli', node, run);
  return [
    approve,
    ...(kind === 'gate' ? [] : [settleCommand('cli', node, run)]),
    failRunCommand('cli', run),
    `then, to run it: ${continueCommand(graph.path, runId, 'all', undefined, graphChanged)}`,
  ];
}

/** Who may approve, in words: the node's policy, then the repository's permission or listing. */
function whoMay(words: string, repo: RepoApprovals | undefined): string {
  if (!repo) return words;
  const listed = repo.approvers.length ? ` or listed (${repo.approvers.join(', ')})` : '';
  return `${words}; ${repo.permission} permission on the repository${listed}`;
}

/** The rows of one run, in the order the fold keeps its nodes. */
function waitingRowsOf(run: PageRun): WaitingRow[] {
  if (run.state.checkpoint.ended) return [];
  const rows: WaitingRow[] = [];
  for (const [node, p] of run.state.nodes) {
    const kind = kindOf(p);
    if (!kind) continue;
    const policy = effectivePolicy(run.approvals, nodeById(run.graph, node));
    const starter = run.state.started?.started_by;
    const failure = kind === 'gate' ? undefined : lastFailure(p, run.secrets ?? []);
    const subject = subjectOfRun(run.journal.run_id);
    rows.push({
      repo: run.repo,
      runId: run.journal.run_id,
      ...(subject ? { subject } : {}),
      ...(run.title !== undefined ? { title: run.title } : {}),
      graphName: run.graph.name,
      graphHash: run.state.accepted_hash,
      node,
      kind,
      why: whyWords(kind, p, policy.required),
      attempt: kind === 'gate' ? p.attempts : waitingAttempt(p),
      since: waitingSince(run.journal, node),
      approvals: { have: [...p.approvals], required: policy.required },
      policy: whoMay(policyWords(policy, starter), run.approvals),
      ...(failure ? { failure } : {}),
      ...(p.report ? { report: reportText(p.report, run.secrets) } : {}),
      ...(run.repo === LOCAL
        ? {
            commands: cliCommandsFor(kind, node, run.journal.run_id, run.graph, run.state),
            commandsFace: 'cli' as const,
          }
        : { commands: commandsFor(kind, node, run.journal.run_id), commandsFace: 'comment' as const }),
      ...(starter ? { startedBy: starter } : {}),
    });
  }
  return rows;
}

/**
 * Rows by the run they were made from: a run read once is shown to every person who loads the page while it is
 * kept (the App keeps a repository's runs for a while), and its rows are the same for each. Held no longer than the
 * run itself (a weak map), so this keeps nothing the reader has let go. Rows are never changed once made.
 */
const ROWS = new WeakMap<PageRun, WaitingRow[]>();

function rowsKept(run: PageRun): WaitingRow[] {
  const kept = ROWS.get(run);
  if (kept) return kept;
  const rows = waitingRowsOf(run);
  ROWS.set(run, rows);
  return rows;
}

/** Every waiting row of every run, oldest first (ties by repository, run and node, so the order is stable). */
export function waitingRows(runs: readonly PageRun[]): WaitingRow[] {
  return runs
    .flatMap(rowsKept)
    .sort(
      (a, b) =>
        a.since.localeCompare(b.since) ||
        a.repo.localeCompare(b.repo) ||
        a.runId.localeCompare(b.runId) ||
        a.node.localeCompare(b.node),
    );
}
