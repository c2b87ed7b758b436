/**
 * `/rerun-from` on an ended run (issue 28): a new run forked from it on the journal branch (the next free id of its
 * series, journal/run-id.ts `nextRunId`: `<run-id>-2`, `fix/issue-1-2` → `fix/issue-1-3`), its first events from `forkRun` (protocol/commands/rerun-from.ts), then the workflow dispatched for
 * it. A redelivered comment finds the fork it made (`forked_from.source`) and forks nothing more.
 */
import type { Graph } from '../../graph/model.js';
import { nextRunId } from '../../journal/run-id.js';
import { forkRun } from '../../protocol/commands/rerun-from.js';
import { writeFork } from '../../runner/journal-io/fork-run.js';
import { GitStore } from '../../store/git.js';
import type { HandlerDeps } from '../deps.js';
import { type LoadedRun, stateOf } from '../lookup/load-run.js';
import { rerunFromReply } from '../replies/rerun-reply.js';
import { type CommandRequest, type Executed, refused } from '../request.js';
import { dispatchWorkflow, workflowOf } from '../workflow/workflow-dispatch.js';
import type { Target } from './apply.js';

/** The most forks of one run looked through for a free id: past this a person starts a new run instead. */
const MAX_FORKS = 50;

/** The first free fork id, or the fork this delivery already made. */
async function forkPlace(
  deps: HandlerDeps,
  runId: string,
  source: string,
): Promise<{ free: string; store: GitStore } | { made: string } | { full: true }> {
  const tried = new Set<string>();
  for (let n = 0; n < MAX_FORKS; n++) {
    const id = nextRunId(runId, (x) => tried.has(x));
    tried.add(id);
    const store = new GitStore(deps.octokit, deps.repo, id, deps.journalBranch);
    const stored = await store.read();
    if (!stored) return { free: id, store };
    const start = stored.journal.events[0];
    if (start?.type === 'RunStarted' && start.forked_from?.source === source) return { made: id };
  }
  return { full: true };
}

export async function forkFromComment(
  deps: HandlerDeps,
  req: CommandRequest,
  t: Target & { command: { kind: 'rerun-from'; node: string; guidance?: string } },
  run: LoadedRun,
  terms: { preventSelfApproval?: boolean },
): Promise<Executed> {
  const { command } = t;
  const graph: Graph = run.graph;
  // A fork is a new journal on the journal branch: a run kept in a check run has no branch to fork onto.
  const place = t.places?.get(run.runId);
  if (place && !(place.store instanceof GitStore))
    return refused(
      req.login,
      `run \`${run.runId}\` has ended and is kept in ${place.store.location}, not on the journal branch: a rerun from a node cannot fork it there; start a new run`,
      command,
    );
  // The run as loaded, folded as every command folds a loaded run (`stateOf`): one that does not fold is refused.
  const folded = stateOf(run);
  if (!folded.ok) return refused(req.login, folded.problem, command);
  const f = forkRun({
    run: { graph, journal: run.journal, state: folded.state },
    node: command.node,
    by: req.login,
    source: req.source,
    ...(command.guidance ? { guidance: command.guidance } : {}),
    ...(terms.preventSelfApproval ? { prevent_self_approval: true } : {}),
  });
  if (!f.ok) return refused(req.login, f.reason, command);
  const at = await forkPlace(deps, run.runId, req.source);
  if ('made' in at) return { outcome: { kind: 'ignored', why: `redelivered: already forked as ${at.made}` } };
  if ('full' in at)
    return refused(
      req.login,
      `run \`${run.runId}\` already has ${MAX_FORKS} forks: start a new run`,
      command,
    );
  const w = await writeFork(at.store, at.free, graph, f.events, deps.now);
  if (!w.ok) return refused(req.login, w.reason, command);
  const target = workflowOf(run.journal, deps.repo);
  let workflowRun: { link: string; file: string; workflowRunId?: number } | undefined;
  let workflowProblem: string | undefined;
  if (!target)
    workflowProblem = 'the run records no workflow of this repository (it was not started by the Action)';
  else
    try {
      workflowRun = {
        ...(await dispatchWorkflow(deps, target, at.free, req.defaultBranch)),
        file: target.file,
      };
    } catch (e) {
      workflowProblem = `GitHub refused to dispatch \`${target.file}\` (${(e as Error).message})`;
    }
  const carried = f.events.flatMap((e) => (e.type === 'NodeCarriedOver' ? [e.node] : []));
  const cp = w.cur.state.checkpoint;
  const nodes = graph.nodes.map((n) => n.id).filter((id) => !carried.includes(id));
  return {
    outcome: {
      kind: 'done',
      what: `forked ${run.runId} as ${at.free}, rerunning from ${command.node}`,
      command,
      ...(workflowRun ? { workflowRun: workflowRun.link } : {}),
      ...(workflowRun?.workflowRunId ? { workflowRunId: workflowRun.workflowRunId } : {}),
    },
    reply: rerunFromReply({
      login: req.login,
      node: command.node,
      runId: run.runId,
      nodes,
      held: cp.held_nodes,
      gated: nodes.filter((id) => graph.nodes.find((n) => n.id === id)?.approval === 'before'),
      forkedAs: at.free,
      carried,
      ...(workflowRun ? { workflowRun } : {}),
      ...(workflowProblem ? { workflowProblem } : {}),
    }),
  };
}
