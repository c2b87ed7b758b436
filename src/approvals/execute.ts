import type { Config } from '../config/schema.js';
import { statusOf } from '../github/status.js';
import { formatSourceError, GraphError } from '../graph/errors.js';
import type { Graph } from '../graph/model.js';
import type { RunState } from '../journal/fold.js';
import { NEEDS_HUMAN_LABEL } from '../render/labels.js';
import { progressComment } from '../render/markdown.js';
import { type Current, RunRefused, type RunSetup, settleRun } from '../runner/engine.js';
import { authorize, type Need } from './authorize.js';
import { publishCheckRun } from './check-run.js';
import type { Command, ParsedComment } from './commands.js';
import type { HandlerDeps, Outcome } from './deps.js';
import { dispatchWorkflow, workflowOf } from './dispatch.js';
import { type LoadedRun, loadRun, stateOf } from './load-run.js';
import { gatherAuthFacts } from './permission.js';
import {
  approvalReply,
  failedRunReply,
  refusedReply,
  settledReply,
  statusReply,
  whichRunReply,
} from './replies.js';
import { loadRepoConfig } from './repo-files.js';
import { listRunIds, runsAbout, subjectOfRun } from './runs.js';
import { settleCommand } from './settlement.js';

/** One command to carry out, whichever face and event it came from. */
export interface CommandRequest {
  parsed: Exclude<ParsedComment, { kind: 'none' }>;
  login: string;
  /** The comment's URL, or the button delivery's: recorded as the source, and applied once. */
  source: string;
  subject: { kind: 'issue' | 'pr'; number: number };
  /** The subject's labels as the event showed them. */
  labels: string[];
  defaultBranch: string;
  /** For a button: the node it names, found in the run's graph. */
  resolveNode?: (graph: Graph) => string | undefined;
}

export interface Executed {
  outcome: Outcome;
  /** The reply to post on the subject; none for a redelivery that changes nothing. */
  reply?: string;
}

const MAX_STATUS_RUNS = 10;
const PERSON_RUNNER = { kind: 'person' as const, host: 'interlock-app' };

function refused(login: string, why: string, command?: Command): Executed {
  return {
    outcome: { kind: 'refused', why, ...(command ? { command } : {}) },
    reply: refusedReply(login, why),
  };
}

const subjectWord = (s: CommandRequest['subject']) =>
  `${s.kind === 'pr' ? 'pull request' : 'issue'} #${s.number}`;

/**
 * Carries out a screened command: configuration, authorization, the run, the settlement through the store's
 * compare-and-swap, the workflow dispatch, and what people see. Throws only for unexpected API failures.
 */
export async function executeCommand(deps: HandlerDeps, req: CommandRequest): Promise<Executed> {
  let config: Config;
  try {
    config = await loadRepoConfig(deps);
  } catch (e) {
    if (!(e instanceof GraphError)) throw e;
    const why = `the configuration file is not valid: ${e.errors.map(formatSourceError).join('; ')}`;
    return { outcome: { kind: 'failed', why }, reply: refusedReply(req.login, why) };
  }
  const need: Need =
    req.parsed.kind === 'command' && req.parsed.command.kind === 'status' ? 'read' : 'settle';
  const auth = authorize(
    config.approvals,
    need,
    await gatherAuthFacts(deps, config.approvals, need, req.login),
  );
  if (!auth.ok) return refused(req.login, auth.reason);
  if (req.parsed.kind === 'refused') return refused(req.login, req.parsed.reason);
  const command = req.parsed.command;

  const all = await listRunIds(deps);
  const label = `${req.subject.kind}-${req.subject.number}`;
  const mine = runsAbout(all, label);
  let targets: string[];
  if (command.runId !== undefined) {
    if (!mine.includes(command.runId)) {
      const other = subjectOfRun(command.runId);
      return refused(
        req.login,
        all.includes(command.runId)
          ? `run \`${command.runId}\` is about ${other ? `${other.kind === 'pr' ? 'pull request' : 'issue'} #${other.number}` : 'another subject'}, not ${subjectWord(req.subject)}: comment there`
          : `there is no run \`${command.runId}\` on ${subjectWord(req.subject)}${mine.length ? ` (its runs: ${mine.map((r) => `\`${r}\``).join(', ')})` : ''}`,
        command,
      );
    }
    targets = [command.runId];
  } else if (mine.length === 0) {
    return refused(req.login, `there is no interlock run on ${subjectWord(req.subject)}`, command);
  } else if (mine.length > 1 && command.kind !== 'status') {
    return {
      outcome: { kind: 'refused', why: `several runs: ${mine.join(', ')}`, command },
      reply: whichRunReply(req.login, subjectWord(req.subject), command, mine),
    };
  } else targets = mine.slice(0, MAX_STATUS_RUNS);

  const graphs = new Map<string, Promise<Graph>>();
  if (command.kind === 'status') {
    const shown = [];
    for (const runId of targets) {
      const l = await loadRun(deps, runId, graphs);
      const s = l.ok ? stateOf(l.run) : undefined;
      shown.push(
        l.ok && s?.ok
          ? { runId, graph: l.run.graph, state: s.state }
          : { runId, problem: !l.ok ? l.problem : s && !s.ok ? s.problem : 'unreadable' },
      );
    }
    return {
      outcome: { kind: 'done', what: `status of ${targets.join(', ')}`, command },
      reply: statusReply(shown),
    };
  }

  const runId = targets[0]!;
  const loaded = await loadRun(deps, runId, graphs);
  if (!loaded.ok) return refused(req.login, loaded.problem, command);
  const run = loaded.run;
  if (req.resolveNode && command.kind === 'approve-rerun') {
    const node = req.resolveNode(run.graph);
    if (!node) return refused(req.login, 'the button names a node that is no longer in the graph', command);
    command.node = node;
  }
  const changed = run.journal.graph.hash !== run.graph.hash;
  if (changed && command.kind !== 'fail-run') {
    return refused(
      req.login,
      `the graph \`${run.graph.path}\` changed since run \`${runId}\` started (${run.journal.graph.hash.slice(0, 15)}… → ${run.graph.hash.slice(0, 15)}…): an approval or settlement under a changed graph is refused. Re-run the workflow with \`allow-graph-change: true\` to go on under the new graph (it is recorded), or \`/fail-run\` this run and start a new one`,
      command,
    );
  }

  const setup: RunSetup = {
    graph: run.graph,
    store: run.store,
    runId,
    start: { intent: 'comment', subject: label, inputs: {}, github: null },
    // Ending a run under a changed graph is allowed, and the journal records who allowed it.
    ...(changed ? { allowGraphChangeBy: req.login } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  };
  let duplicate = false;
  let result: Awaited<ReturnType<typeof settleRun>>;
  try {
    result = await settleRun(setup, PERSON_RUNNER, (cur) => {
      const s = settleCommand(run.graph, cur, command, {
        login: req.login,
        source: req.source,
        required: config.approvals.required,
        graphHash: run.graph.hash,
      });
      duplicate = !s.ok && s.duplicate === true;
      return s;
    });
  } catch (e) {
    if (e instanceof RunRefused) return refused(req.login, e.message, command);
    throw e;
  }
  if (!result.ok) {
    if (duplicate) return { outcome: { kind: 'ignored', why: `redelivered: ${result.reason}` } };
    return refused(req.login, result.reason, command);
  }
  return afterSettlement(deps, req, config, command, run, result.cur, mine, graphs);
}

/** Dispatch, reply, progress comment, label and check run, once the journal holds the settlement. */
async function afterSettlement(
  deps: HandlerDeps,
  req: CommandRequest,
  config: Config,
  command: Exclude<Command, { kind: 'status' }>,
  run: LoadedRun,
  cur: Current,
  mine: string[],
  graphs: Map<string, Promise<Graph>>,
): Promise<Executed> {
  const state = cur.state;
  const cp = state.checkpoint;
  const warn = (what: string, e: unknown) =>
    deps.log?.(`interlock: could not ${what}: ${(e as Error).message}`);

  let dispatched: { link: string; file: string } | undefined;
  let dispatchProblem: string | undefined;
  let dispatchFailed = false;
  const dispatch = async (node?: string) => {
    const target = workflowOf(cur.journal, deps.repo, node);
    if (!target) {
      dispatchProblem = 'the run records no workflow of this repository (it was not started by the Action)';
      return;
    }
    try {
      dispatched = {
        link: await dispatchWorkflow(deps, target, run.runId, req.defaultBranch),
        file: target.file,
      };
    } catch (e) {
      dispatchFailed = true;
      dispatchProblem = `GitHub refused to dispatch \`${target.file}\` (${statusOf(e) ?? 'error'}: ${(e as Error).message})`;
    }
  };

  let reply: string;
  let what: string;
  if (command.kind === 'approve-rerun') {
    const p = state.nodes.get(command.node)!;
    const released = p.state !== 'held' && p.state !== 'escalated';
    if (released) await dispatch(command.node);
    reply = approvalReply({
      login: req.login,
      node: command.node,
      attempt: p.attempts,
      runId: run.runId,
      approvers: p.approvals,
      required: config.approvals.required,
      released,
      interrupted: p.interrupted,
      ...(dispatched ? { dispatched } : {}),
      ...(dispatchProblem ? { dispatchProblem } : {}),
    });
    what = `${released ? 'released' : 'approved'} ${command.node} attempt ${p.attempts} (${p.approvals.length} of ${config.approvals.required})`;
  } else if (command.kind === 'settle') {
    const p = state.nodes.get(command.node)!;
    const nothingToRun = cp.ended !== null || cp.ready_nodes.length === 0;
    if (!nothingToRun) await dispatch();
    reply = settledReply({
      login: req.login,
      node: command.node,
      attempt: p.attempts,
      runId: run.runId,
      note: command.note,
      runStatus: cp.status,
      nothingToRun,
      ...(dispatched ? { dispatched } : {}),
      ...(dispatchProblem ? { dispatchProblem } : {}),
    });
    what = `settled ${command.node} attempt ${p.attempts}`;
  } else {
    reply = failedRunReply({ login: req.login, runId: run.runId, reason: command.reason });
    what = `failed run ${run.runId}`;
  }

  if (cur.journal.progress_comment_id) {
    try {
      await deps.octokit.rest.issues.updateComment({
        ...deps.repo,
        comment_id: cur.journal.progress_comment_id,
        body: progressComment(run.graph, state, {}),
      });
    } catch (e) {
      if (statusOf(e) !== 404) warn('update the progress comment', e);
    }
  }
  if (req.labels.includes(NEEDS_HUMAN_LABEL)) {
    try {
      if (await nothingWaits(deps, state, run.runId, mine, graphs))
        await deps.octokit.rest.issues.removeLabel({
          ...deps.repo,
          issue_number: req.subject.number,
          name: NEEDS_HUMAN_LABEL,
        });
    } catch (e) {
      if (statusOf(e) !== 404) warn(`remove the label "${NEEDS_HUMAN_LABEL}"`, e);
    }
  }
  if (deps.checkRuns) {
    try {
      await publishCheckRun(deps, req.subject, run.graph, state, run.runId);
    } catch (e) {
      warn('update the check run', e);
    }
  }
  const outcome: Outcome = dispatchFailed
    ? { kind: 'failed', why: `${what}, but the workflow was not dispatched: ${dispatchProblem}` }
    : { kind: 'done', what, command, ...(dispatched ? { dispatched: dispatched.link } : {}) };
  return { outcome, reply };
}

/** Whether no run of the subject has a held or escalated node any more (an unreadable run counts as waiting). */
async function nothingWaits(
  deps: HandlerDeps,
  state: RunState,
  runId: string,
  mine: string[],
  graphs: Map<string, Promise<Graph>>,
): Promise<boolean> {
  const waits = (s: RunState) =>
    !s.checkpoint.ended && s.checkpoint.held_nodes.length + s.checkpoint.escalated_nodes.length > 0;
  if (waits(state)) return false;
  for (const other of mine) {
    if (other === runId) continue;
    const l = await loadRun(deps, other, graphs);
    const s = l.ok ? stateOf(l.run) : undefined;
    if (!s?.ok || waits(s.state)) return false;
  }
  return true;
}
