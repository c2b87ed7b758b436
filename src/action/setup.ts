/**
 * The engine's step setup for the Action: the run's start as RunStarted keeps it, this job as the executor,
 * recovery that asks the Actions API, GitHub evidence, and each attempt's log inside one collapsible group.
 */

import type { Graph } from '../graph/model.js';
import { runProtectedPaths } from '../protocol/attempt/protected-paths.js';
import type { AttemptMark } from '../runner/attempt/attempt.js';
import type { StepSetup } from '../runner/dispatch.js';
import { actionsProbes } from '../runner/recovery/actions-probe.js';
import { type ActionContext, actionsRunner, githubContext } from './context/context.js';
import type { ResolvedRun } from './context/resolve-run.js';
import { actionRecordings } from './recordings.js';
import { liveComment } from './report/live-comment.js';
import { actionsSessionCache } from './session-cache.js';

/** The log group's title of one attempt: `<node> · attempt <n> · <approach>`. */
function attemptTitle(a: AttemptMark): string {
  return `${a.node} · attempt ${a.attempt} · ${a.approach}`;
}

/** Who started the run: the event's sender (the labeler, commenter, dispatcher), else the workflow's actor. */
function startedBy(ctx: ActionContext): { started_by?: string } {
  const login = (ctx.payload.sender as { login?: unknown } | undefined)?.login;
  const who = typeof login === 'string' && login ? login : ctx.env.GITHUB_ACTOR;
  return who ? { started_by: who } : {};
}

/**
 * The step log's groups: one per attempt, and one per evidence command after it (the runner does not nest
 * groups, so a check's group closes the attempt's).
 */
function logGroups(ctx: ActionContext) {
  let open = false;
  const close = () => {
    if (open) ctx.io.endGroup?.();
    open = false;
  };
  const start = (title: string) => {
    close();
    ctx.io.group?.(title);
    open = true;
  };
  return {
    attemptStarted: (a: AttemptMark) => start(attemptTitle(a)),
    attemptEnded: close,
    checkOutput: (a: AttemptMark, check: string) => {
      start(`${attemptTitle(a)} · ${check}`);
      return { echo: (chunk: Buffer) => ctx.io.echo(chunk), end: close, where: 'step log' };
    },
  };
}

export function stepSetupFor(ctx: ActionContext, run: ResolvedRun): StepSetup {
  const inputsFromEvent = (ctx.payload.inputs ?? {}) as Record<string, unknown>;
  return {
    graph: run.graph,
    store: run.store,
    runId: run.runId,
    start: {
      intent: run.intent,
      subject: run.subject.label,
      inputs: Object.fromEntries(Object.entries(inputsFromEvent).map(([k, v]) => [k, String(v)])),
      github: githubContext(ctx),
      ...startedBy(ctx),
    },
    ...(ctx.inputs['allow-graph-change'] === 'true'
      ? { allowGraphChangeBy: ctx.env.GITHUB_ACTOR || 'workflow' }
      : {}),
    // What was written before this step started is what it must see before it decides there is nothing to do.
    staleRead: {
      at: Date.now() - process.uptime() * 1000,
      windowMs: ctx.tuning.INTERLOCK_STALE_READ_MS,
    },
    lineUpSlotMs: ctx.tuning.INTERLOCK_LINE_UP_SLOT_MS,
    cwd: ctx.workspace,
    baseEnv: ctx.nodeEnv,
    isolation: ctx.isolation,
    runner: (execTag) => ({ ...actionsRunner(ctx), exec_tag: execTag }),
    probe: (node, d) => actionsProbes(ctx.octokit, ctx.repo, ctx.me)(node, d),
    probes: () => actionsProbes(ctx.octokit, ctx.repo, ctx.me),
    recoveredBy: `interlock (workflow run ${ctx.me.workflow_run_id} attempt ${ctx.me.run_attempt})`,
    echo: (chunk) => ctx.io.echo(chunk),
    say: (m) => ctx.io.info(`interlock: ${m}`),
    secrets: ctx.secrets,
    redacted: (m) => ctx.io.warning(`interlock: ${m}`),
    live: (cur) => liveComment(ctx, { graph: run.graph, store: run.store, issue: run.subject.number }, cur),
    ...logGroups(ctx),
    github: {
      octokit: ctx.octokit,
      repo: ctx.repo,
      ...(run.subject.number ? { subject: run.subject.number } : {}),
    },
    protectedPaths: () => protectedPathsOf(ctx, run.graph),
    ...recordingsOf(ctx, run.runId),
    sessionCache: actionsSessionCache(`${ctx.repo.owner}/${ctx.repo.repo}`, (m) =>
      ctx.io.info(`interlock: ${m}`),
    ),
  };
}

/** Each metered attempt's model exchange, kept as a workflow artifact (src/action/recordings.ts); none under `recording: none`. */
function recordingsOf(ctx: ActionContext, runId: string) {
  const recordings = actionRecordings(ctx, runId);
  return recordings ? { recordings } : {};
}

/** What an effect may not change: the default branch's `protected_paths` and the run's own files (`runProtectedPaths`). */
async function protectedPathsOf(ctx: ActionContext, graph: Graph): Promise<string[]> {
  const config = await ctx.config.defaultBranch.orDefaults();
  return runProtectedPaths(graph, config.protected_paths);
}
