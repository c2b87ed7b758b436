/**
 * `mode: stuck`'s search for lost runners: a node in flight whose workflow run has ended, because the whole runner
 * died and no post step ran. Each scheduled run asks GitHub, as the comment handler does before it applies a
 * command (`recoverEnded`), records the interruption, and asks a person about a held node, so a maintainer hears of it
 * within one period of the schedule rather than after `stuck-after`.
 */

import { recoverEnded } from '../../approvals/applying/recover-first.js';
import type { HandlerDeps } from '../../approvals/deps.js';
import { type LoadedRun, loadRun, type RunPlace, stateOf } from '../../approvals/lookup/load-run.js';
import { statusOf } from '../../github/status.js';
import type { Graph } from '../../graph/model.js';
import type { Journal } from '../../journal/events/events.js';
import { parseJournal } from '../../journal/parse.js';
import { parseSubjectLabel } from '../../journal/run-id.js';
import { JournalError, runEnded } from '../../journal/state.js';
import { recoveryWords } from '../../render/recovery-words.js';
import { RunRefused } from '../../runner/journal-io/read.js';
import { type GitPlace, GitStore } from '../../store/git.js';
import { type ActionContext, actionsRunner } from '../context/context.js';
import { askForAttention } from '../report/publish.js';

/** A journal as the journal branch listed it. */
export interface JournalFile {
  runId: string;
  version: string;
  text: string;
  /** Which branch it was read from: the run's own, or the journal branch of before. */
  place?: GitPlace;
}

/** A run whose lost attempts were recorded: the nodes interrupted, and those of them now held for a person. */
interface LostRun {
  run_id: string;
  interrupted: string[];
  held: string[];
  subject?: string;
}

/** The run with its graph from the default branch (the stuck workflow has no checkout), or why not. */
async function load(
  ctx: ActionContext,
  f: JournalFile,
  graphs: Map<string, Promise<Graph>>,
): Promise<{ run?: LoadedRun; journal?: Journal; problem?: string }> {
  let journal: Journal;
  try {
    journal = parseJournal(f.text, f.runId);
  } catch (e) {
    // The stuck report names a journal that does not parse; nothing to recover in it.
    if (e instanceof JournalError) return {};
    throw e;
  }
  if (runEnded(journal)) return {};
  const branch = ctx.inputs['journal-branch'];
  const deps: HandlerDeps = {
    octokit: ctx.octokit,
    repo: ctx.repo,
    config: ctx.config.defaultBranch,
    journalBranch: branch,
    webUrl: ctx.env.GITHUB_SERVER_URL,
  };
  const store = new GitStore(ctx.octokit, ctx.repo, f.runId, branch, f.place);
  const places = new Map<string, RunPlace>([[f.runId, { store, stored: { journal, version: f.version } }]]);
  const l = await loadRun(deps, f.runId, graphs, places);
  return l.ok ? { run: l.run, journal } : { problem: l.problem };
}

/** Records the interruption of each attempt whose workflow run has ended; undefined when none has. */
async function recoverRun(
  ctx: ActionContext,
  run: LoadedRun,
  journal: Journal,
): Promise<LostRun | undefined> {
  const started = journal.events[0];
  const subject = started?.type === 'RunStarted' ? started.subject : undefined;
  const r = await recoverEnded(ctx, {
    setup: {
      graph: run.graph,
      store: run.store,
      runId: run.runId,
      start: { intent: 'stuck', subject: subject ?? '', inputs: {}, github: null },
    },
    recoveredBy: `interlock mode: stuck (workflow run ${ctx.me.workflow_run_id})`,
    runner: { ...actionsRunner(ctx), exec_tag: 'recovery' },
  });
  if (!r.interrupted.length) return undefined;
  const held = r.interrupted.filter((n) => r.cur.state.nodes.get(n)?.state === 'held');
  const how = 'was in flight in a workflow run that has ended (its runner was lost)';
  for (const node of r.interrupted)
    ctx.io.warning(`interlock: run ${run.runId}: ${recoveryWords(r.cur.state, node, { how })}`);
  const number = parseSubjectLabel(subject ?? '')?.number;
  if (held.length && number)
    await askForAttention(ctx, { graph: run.graph, state: r.cur.state }, run.runId, held, number);
  return { run_id: run.runId, interrupted: r.interrupted, held, ...(subject ? { subject } : {}) };
}

/**
 * Every run with a node in flight whose workflow run has ended, recovered; problems are warned, not thrown.
 * `graphs` keeps each run's graph as read from the default branch (by path), for the stuck notice after.
 */
export async function recoverLostRunners(
  ctx: ActionContext,
  files: JournalFile[],
  graphs = new Map<string, Promise<Graph>>(),
): Promise<LostRun[]> {
  const lost: LostRun[] = [];
  for (const f of files) {
    try {
      const { run, journal, problem } = await load(ctx, f, graphs);
      const state = run && stateOf(run);
      const why = problem ?? (state && !state.ok ? state.problem : undefined);
      if (why) ctx.io.warning(`interlock: run ${f.runId}: cannot look for a lost runner: ${why}`);
      if (!run || !journal || !state?.ok || !state.state.checkpoint.active_nodes.length) continue;
      const found = await recoverRun(ctx, run, journal);
      if (found) lost.push(found);
    } catch (e) {
      const status = statusOf(e);
      if (!(e instanceof RunRefused) && status === undefined) throw e;
      const fix =
        status === 403 || status === 404 ? ' (mode: stuck needs contents: write and actions: read)' : '';
      ctx.io.warning(
        `interlock: run ${f.runId}: cannot look for a lost runner: ${(e as Error).message}${fix}`,
      );
    }
  }
  return lost;
}
