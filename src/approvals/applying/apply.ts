/**
 * Applies a person's command (`/approve`, `/approve-rerun`, `/settle`, `/fail-run`, the button) to one run: loads
 * it, refuses it under a changed graph, and writes its events (protocol/commands/person-commands.ts) through the commit.
 */
import type { Config } from '../../config/schema.js';
import type { Graph } from '../../graph/model.js';
import { subjectLabel } from '../../journal/run-id.js';
import { runEnded } from '../../journal/state.js';
import { pageOutOfDate } from '../../protocol/commands/page-binding.js';
import { handledBefore, personCommandEvents } from '../../protocol/commands/person-commands.js';
import { RunRefused, type RunSetup, type RunSnapshot } from '../../runner/journal-io/read.js';
import { commitPersonCommand } from '../../runner/person-command.js';
import { approvalTerms } from '../authorization/approval-terms.js';
import type { Command } from '../commands/parse.js';
import type { HandlerDeps } from '../deps.js';
import { type LoadedRun, loadRun, type RunPlace, stateOf } from '../lookup/load-run.js';
import { retriedDispatchReply } from '../replies/replies.js';
import { type CommandRequest, type Executed, refused } from '../request.js';
import { cancelInFlight } from '../workflow/cancel.js';
import { showApplied, updateSubject } from './follow-up.js';
import { forkFromComment } from './fork.js';
import { recoverFirst } from './recover-first.js';
import { retryOwedDispatch } from './retry-dispatch.js';

const PERSON_RUNNER = { kind: 'person' as const, host: 'interlock-app' };

/** The run a person's command is about, once run lookup chose it. */
export interface Target {
  config: Config;
  command: Exclude<Command, { kind: 'status' }>;
  runId: string;
  /** Every run of the subject: the label comes off only when none waits. */
  mine: string[];
  graphs: Map<string, Promise<Graph>>;
  /** Where lookup found each run (either store). */
  places?: ReadonlyMap<string, RunPlace>;
}

/** Why a command other than `/fail-run` is refused under a graph changed since the run started. */
function graphChanged(run: { graph: Graph; journal: { graph: { hash: string } } }, runId: string): string {
  return `the graph \`${run.graph.path}\` changed since run \`${runId}\` started (${run.journal.graph.hash.slice(0, 15)}… → ${run.graph.hash.slice(0, 15)}…): an approval or settlement under a changed graph is refused. Re-run the workflow with \`allow-graph-change: true\` to go on under the new graph (it is recorded), or \`/fail-run\` this run and start a new one`;
}

/** The run as a person's command writes it: under the graph the App loaded, its stale window carried (issue 50). */
function commandSetup(
  deps: HandlerDeps,
  req: CommandRequest,
  o: { graph: Graph; store: RunSetup['store']; runId: string; changed: boolean },
): RunSetup {
  return {
    graph: o.graph,
    store: o.store,
    runId: o.runId,
    start: { intent: 'comment', subject: subjectLabel(req.subject), inputs: {}, github: null },
    // Ending a run under a changed graph is allowed, and the journal records who allowed it.
    ...(o.changed ? { allowGraphChangeBy: req.login } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    // A copy of a command read from before the command's write is refused, read after read, with the journal
    // "unmoved": the commit tries on until a read begun a stale window after the refusal.
    ...(deps.staleWindowMs ? { staleRead: { windowMs: deps.staleWindowMs } } : {}),
  };
}

export async function applyCommand(deps: HandlerDeps, req: CommandRequest, t: Target): Promise<Executed> {
  const { command, runId } = t;
  const loaded = await loadRun(deps, runId, t.graphs, t.places);
  if (!loaded.ok) return refused(req.login, loaded.problem, command);
  const run = loaded.run;
  if (req.resolveNode && command.kind === 'approve-rerun') {
    const node = req.resolveNode(run.graph, run.journal);
    if (!node) return refused(req.login, 'the button names a node that is no longer in the graph', command);
    command.node = node;
  }
  const changed = run.journal.graph.hash !== run.graph.hash;
  if (changed && command.kind !== 'fail-run') return refused(req.login, graphChanged(run, runId), command);
  const terms = await approvalTerms(deps, { ...t, graph: run.graph, login: req.login });
  if (!terms.ok) return refused(req.login, terms.reason, command);
  // Rerunning from a node of an ended run forks a new run from it (issue 28).
  if (command.kind === 'rerun-from' && runEnded(run.journal))
    return forkFromComment(deps, req, { ...t, command }, run, terms);
  const setup = commandSetup(deps, req, { graph: run.graph, store: run.store, runId, changed });
  const before = stateOf(run);
  if (before.ok) {
    const first = await recoverFirst(deps, {
      setup,
      state: before.state,
      command,
      runner: PERSON_RUNNER,
      login: req.login,
    }).catch((e: unknown) => {
      if (e instanceof RunRefused) return { ok: false as const, why: e.message };
      throw e;
    });
    if (!first.ok) return refused(req.login, first.why, command);
  }
  // The commit's first read is the journal loaded (PrimedStore): the state folded above is taken, not folded again.
  const base = before.ok ? { journal: run.journal, version: run.version, state: before.state } : undefined;
  let duplicate = false;
  let result: Awaited<ReturnType<typeof commitPersonCommand>>;
  try {
    result = await commitPersonCommand(
      setup,
      PERSON_RUNNER,
      (cur) => {
        // A form of the maintainers' page acts only on what it showed, read in the same compare-and-swap.
        const stale =
          req.bound &&
          !handledBefore(cur.journal, cur.state, req.source) &&
          pageOutOfDate(cur.state, req.bound);
        if (stale) return { ok: false, reason: stale };
        const giver = {
          login: req.login,
          source: req.source,
          required: terms.required,
          preventSelfApproval: terms.preventSelfApproval,
          graphHash: run.graph.hash,
        };
        const s = personCommandEvents({ run: cur, command, giver });
        duplicate = !s.ok && s.duplicate === true;
        return s;
      },
      base,
    );
  } catch (e) {
    if (e instanceof RunRefused) return refused(req.login, e.message, command);
    throw e;
  }
  if (!result.ok) return notApplied(deps, req, t, { run, setup, result, duplicate });
  // The journal holds the failure first; only then is the work it stopped cancelled.
  const cancelled = command.kind === 'fail-run' ? await cancelInFlight(deps, result.cur.state) : undefined;
  return showApplied(deps, req, t, {
    run,
    cur: result.cur,
    ...(cancelled ? { cancelled } : {}),
    retry: () =>
      retryOwedDispatch(deps, setup, PERSON_RUNNER, {
        source: req.source,
        defaultBranch: req.defaultBranch,
        known: result.cur.journal,
      }),
  });
}

/**
 * A command the journal did not take: refused, or already in it. A redelivery, or a job re-run on the same event
 * after it died past its write: what people see on the subject (the progress comment, the label, the check run)
 * is brought up to the journal; an approval whose dispatch was lost is dispatched then (issue 50).
 */
async function notApplied(
  deps: HandlerDeps,
  req: CommandRequest,
  t: Target,
  o: { run: LoadedRun; setup: RunSetup; result: { reason: string; cur: RunSnapshot }; duplicate: boolean },
): Promise<Executed> {
  if (!o.duplicate) return refused(req.login, o.result.reason, t.command);
  await updateSubject(deps, req, t, { run: o.run, cur: o.result.cur });
  return redelivered(deps, req, { ...o.result, setup: o.setup }, t.command);
}

/** A copy of a command the journal holds: nothing, unless its approval's dispatch never happened (issue 50). */
async function redelivered(
  deps: HandlerDeps,
  req: CommandRequest,
  o: { setup: RunSetup; reason: string; cur: RunSnapshot },
  command: Target['command'],
): Promise<Executed> {
  const { setup, reason } = o;
  const r = await retryOwedDispatch(deps, setup, PERSON_RUNNER, {
    source: req.source,
    defaultBranch: req.defaultBranch,
    known: o.cur.journal,
  });
  if (!('dispatched' in r)) {
    if (r.failed) return { outcome: { kind: 'failed', why: `redelivered: ${reason}; ${r.why}` } };
    return { outcome: { kind: 'ignored', why: `redelivered: ${reason}; ${r.why}` } };
  }
  const { link, file, workflowRunId } = r.dispatched;
  return {
    outcome: {
      kind: 'done',
      what: `dispatched \`${file}\` for run ${setup.runId}: the dispatch after the journaled approval was lost`,
      command,
      workflowRun: link,
      ...(workflowRunId !== undefined ? { workflowRunId } : {}),
    },
    reply: retriedDispatchReply({ login: req.login, runId: setup.runId, workflowRun: { link, file } }),
  };
}
