import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { authorize, screenEvent } from '../approvals/authorize.js';
import { gatherAuthFacts } from '../approvals/permission.js';
import { parseConfig } from '../config/load.js';
import { route } from '../config/route.js';
import type { Config } from '../config/schema.js';
import { createClient, type GitHubClient, parseRepository, type RepoRef } from '../github/client.js';
import { formatSourceError, GraphError } from '../graph/errors.js';
import type { Graph } from '../graph/model.js';
import type { RunnerInfo } from '../journal/events.js';
import { defaultRunId } from '../journal/run-id.js';
import { confineToWorkspace } from '../os/workspace-path.js';
import { recover, type StepResult, type StepSetup, step } from '../runner/engine.js';
import { loadGraphFile } from '../runner/graph-file.js';
import { CheckRunStore } from '../store/check-run.js';
import { GitStore } from '../store/git.js';
import type { JournalStore } from '../store/types.js';
import { checkRunView } from './check-run-view.js';
import { commentMode } from './comment-mode.js';
import { type ActionEnv, type Inputs, nodeEnvironment, readActionEnv, readInputs } from './inputs.js';
import { type JobIdentity, probeActions } from './probe.js';
import { publishResult } from './publish.js';
import { stuckMode } from './stuck.js';
import { type Subject, subjectOf } from './subject.js';

/** What the action reports through; the runner's `@actions/core` in production, a recorder in tests. */
export interface ActionIO {
  setOutput(name: string, value: string): void;
  summary(markdown: string): Promise<void>;
  info(message: string): void;
  notice(message: string): void;
  warning(message: string): void;
  error(message: string, where?: { file: string; line: number; col: number }): void;
  saveState(name: string, value: string): void;
  /** Live output of a node's command, to the step log. */
  echo(chunk: Buffer): void;
}

export interface ActionResult {
  outputs: Record<string, string>;
  /** Set when the step must fail; says why and what state the run is in. */
  failed?: string;
}

export interface ActionContext {
  inputs: Inputs;
  env: ActionEnv;
  rawEnv: NodeJS.ProcessEnv;
  repo: RepoRef;
  octokit: GitHubClient;
  payload: Record<string, unknown>;
  workspace: string;
  io: ActionIO;
  me: JobIdentity;
}

export const CONFIG_FILE = '.github/interlock.yml';

function readEventPayload(path: string | undefined): Record<string, unknown> {
  if (!path || !existsSync(path)) return {};
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

/** The event as kept in RunStarted: the payload without the bulky repository/organization objects. */
function githubContext(ctx: ActionContext): Record<string, unknown> {
  const { repository: _r, organization: _o, enterprise: _e, installation: _i, sender, ...rest } = ctx.payload;
  const s = sender as { login?: string; type?: string } | undefined;
  return {
    event_name: ctx.env.GITHUB_EVENT_NAME,
    repository: `${ctx.repo.owner}/${ctx.repo.repo}`,
    ref: ctx.env.GITHUB_REF,
    sha: ctx.env.GITHUB_SHA,
    actor: ctx.env.GITHUB_ACTOR,
    event: { ...rest, ...(s ? { sender: { login: s.login, type: s.type } } : {}) },
  };
}

/** Optional tuning from the step's env, in ms: INTERLOCK_RETRY_BASE_MS, _WRITE_INTERVAL_MS, _REQUEST_TIMEOUT_MS. */
function tuning(env: NodeJS.ProcessEnv): {
  retryAfterBaseValue?: number;
  writeIntervalMs?: number;
  requestTimeoutMs?: number;
} {
  const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);
  const retry = num(env.INTERLOCK_RETRY_BASE_MS);
  const write = num(env.INTERLOCK_WRITE_INTERVAL_MS);
  const timeout = num(env.INTERLOCK_REQUEST_TIMEOUT_MS);
  return {
    ...(retry !== undefined ? { retryAfterBaseValue: retry } : {}),
    ...(write !== undefined ? { writeIntervalMs: write } : {}),
    ...(timeout ? { requestTimeoutMs: timeout } : {}),
  };
}

export function buildContext(
  rawEnv: NodeJS.ProcessEnv,
  io: ActionIO,
  clientOptions: { retryAfterBaseValue?: number } = {},
): ActionContext {
  const inputs = readInputs(rawEnv);
  const env = readActionEnv(rawEnv);
  const repo = parseRepository(env.GITHUB_REPOSITORY);
  const octokit = createClient({
    token: inputs.token,
    baseUrl: env.GITHUB_API_URL,
    log: (m) => io.info(m),
    ...tuning(rawEnv),
    ...(clientOptions.retryAfterBaseValue !== undefined
      ? { retryAfterBaseValue: clientOptions.retryAfterBaseValue }
      : {}),
  });
  return {
    inputs,
    env,
    rawEnv,
    repo,
    octokit,
    payload: readEventPayload(env.GITHUB_EVENT_PATH),
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
    io,
    me: {
      workflow_run_id: env.GITHUB_RUN_ID,
      run_attempt: env.GITHUB_RUN_ATTEMPT,
      job: env.GITHUB_JOB,
      runner_name: env.RUNNER_NAME,
    },
  };
}

/** A path in the workspace. */
function inWorkspace(ctx: ActionContext, relative: string): string {
  return resolve(ctx.workspace, relative);
}

/** A path inside the workspace, relative to it; any other path as it is. */
function fromWorkspace(ctx: ActionContext, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(ctx.workspace, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

function loadConfig(ctx: ActionContext): Config | undefined {
  const path = inWorkspace(ctx, CONFIG_FILE);
  if (!existsSync(path)) return undefined;
  return parseConfig(CONFIG_FILE, readFileSync(path, 'utf8'));
}

export function makeStore(ctx: ActionContext, runId: string, subject: Subject, graph?: Graph): JournalStore {
  if (ctx.inputs.store === 'check-run') {
    const store = new CheckRunStore(ctx.octokit, ctx.repo, runId, subject.headSha ?? ctx.env.GITHUB_SHA);
    if (graph) store.render = checkRunView(graph);
    return store;
  }
  return new GitStore(ctx.octokit, ctx.repo, runId, ctx.inputs['journal-branch']);
}

export function actionsRunner(ctx: ActionContext): RunnerInfo {
  return {
    kind: 'actions',
    workflow_run_id: ctx.me.workflow_run_id,
    run_attempt: ctx.me.run_attempt,
    job: ctx.me.job,
    runner_name: ctx.me.runner_name,
    ...(ctx.env.GITHUB_WORKFLOW_REF ? { workflow_ref: ctx.env.GITHUB_WORKFLOW_REF } : {}),
  };
}

const RUN_ID = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** The graph, run id, subject and store this step works on; or why there is none. */
export async function resolveRun(
  ctx: ActionContext,
): Promise<
  | { graph: Graph; runId: string; subject: Subject; store: JournalStore; intent: string }
  | { noRoute: string }
  | { refused: string }
> {
  let subject = subjectOf(ctx.payload, ctx.env.GITHUB_REF);
  let graphPath = ctx.inputs.graph;
  let intent = `${ctx.env.GITHUB_EVENT_NAME}${typeof ctx.payload.action === 'string' ? `.${ctx.payload.action}` : ''}`;
  const givenRunId = ctx.inputs['run-id'];
  if (givenRunId && (!RUN_ID.test(givenRunId) || givenRunId.split('/').some((p) => p === '.' || p === '..')))
    throw new Error(`run-id "${givenRunId}" may only hold letters, digits, ".", "_", "-" and "/"`);
  // Resuming by id from an event with no subject (workflow_dispatch): the journal names the graph and subject.
  if (givenRunId && (!graphPath || subject.kind === 'ref')) {
    // Resuming a run by id (e.g. dispatched after an approval): the journal names its graph and subject.
    const probeStore = makeStore(ctx, givenRunId, subject);
    const stored = await probeStore.read();
    if (stored) {
      const started = stored.journal.events[0];
      graphPath ||= stored.journal.graph.path;
      if (started?.type === 'RunStarted') {
        intent = started.intent;
        subject = subjectFromLabel(started.subject) ?? subject;
      }
    }
  }
  if (!graphPath) {
    const config = loadConfig(ctx);
    const match = config ? route(config, { name: ctx.env.GITHUB_EVENT_NAME, payload: ctx.payload }) : null;
    if (!match) {
      return {
        noRoute: config
          ? `no route in ${CONFIG_FILE} matches ${intent}; nothing to run`
          : `no graph input and no ${CONFIG_FILE}: set the graph input or add a routes table`,
      };
    }
    graphPath = match.graph;
    intent = match.intent;
    // A comment is anyone's to write: a run started by a slash command needs the same people an approval
    // does (approvals.permission, or approvals.approvers), else anyone could start an agent with the secrets.
    if (config?.routes[match.index]?.command !== undefined) {
      const refused = await refuseCommenter(ctx, config);
      if (refused) return { refused };
    }
  }
  const graph = {
    ...loadGraphFile(confineToWorkspace(ctx.workspace, graphPath, 'graph path')),
    path: graphPath,
  };
  const runId = givenRunId || defaultRunId(graph.name, subject.label);
  return { graph, runId, subject, store: makeStore(ctx, runId, subject, graph), intent };
}

/** Why the comment that matched a command route may not start a run, or undefined when it may. */
async function refuseCommenter(ctx: ActionContext, config: Config): Promise<string | undefined> {
  const p = ctx.payload as {
    action?: string;
    sender?: { login: string; type?: string };
    comment?: { user?: { login: string; type?: string } | null };
  };
  const author = p.comment?.user ?? p.sender;
  if (!author || !p.sender) return 'the event names no commenter';
  const screen = screenEvent({ action: p.action ?? '', sender: p.sender, author });
  if (!screen.ok) return screen.why;
  const facts = await gatherAuthFacts(ctx, config.approvals, 'settle', author.login);
  const auth = authorize(config.approvals, 'settle', facts);
  return auth.ok ? undefined : auth.reason.replace('settling needs', 'starting a run from a comment needs');
}

function subjectFromLabel(label: string): Subject | undefined {
  const m = /^(issue|pr)-(\d+)$/.exec(label);
  if (!m) return undefined;
  return { kind: m[1] as 'issue' | 'pr', number: Number(m[2]), label };
}

export function stepSetupFor(
  ctx: ActionContext,
  graph: Graph,
  runId: string,
  subject: Subject,
  store: JournalStore,
  intent: string,
): StepSetup {
  const inputsFromEvent = (ctx.payload.inputs ?? {}) as Record<string, unknown>;
  return {
    graph,
    store,
    runId,
    start: {
      intent,
      subject: subject.label,
      inputs: Object.fromEntries(Object.entries(inputsFromEvent).map(([k, v]) => [k, String(v)])),
      github: githubContext(ctx),
    },
    ...(ctx.inputs['allow-graph-change'] === 'true'
      ? { allowGraphChangeBy: ctx.env.GITHUB_ACTOR || 'workflow' }
      : {}),
    cwd: ctx.workspace,
    baseEnv: nodeEnvironment(ctx.rawEnv),
    runner: (execTag) => ({ ...actionsRunner(ctx), exec_tag: execTag }),
    probe: (_node, d) => probeActions(ctx.octokit, ctx.repo, ctx.me, d, Date.now()),
    recoveredBy: `interlock (workflow run ${ctx.me.workflow_run_id} attempt ${ctx.me.run_attempt})`,
    echo: (chunk) => ctx.io.echo(chunk),
    say: (m) => ctx.io.info(`interlock: ${m}`),
    github: { octokit: ctx.octokit, repo: ctx.repo, ...(subject.number ? { subject: subject.number } : {}) },
  };
}

/** The `status` output for a step result. */
export function statusFor(r: StepResult, wanted: string | undefined): string {
  switch (r.kind) {
    case 'recorded':
      return 'completed';
    case 'failed':
    case 'stale':
      return 'failed';
    case 'escalated':
      return 'escalated';
    case 'skipped':
      return 'skipped';
    case 'run-completed':
      return 'run-completed';
    case 'ended':
      return r.cur.state.checkpoint.status === 'completed' ? 'run-completed' : 'failed';
    case 'blocked': {
      const cp = r.cur.state.checkpoint;
      if (wanted && cp.held_nodes.includes(wanted)) return 'held';
      if (wanted && cp.escalated_nodes.includes(wanted)) return 'escalated';
      if (!wanted && cp.held_nodes.length && !cp.ready_nodes.length && !cp.active_nodes.length) return 'held';
      if (!wanted && cp.escalated_nodes.length && !cp.ready_nodes.length && !cp.active_nodes.length)
        return 'escalated';
      return 'not-ready';
    }
  }
}

/** Runs the action; never calls process.exit and never throws for a node's failure. */
export async function runAction(ctx: ActionContext): Promise<ActionResult> {
  const mode = ctx.inputs.mode;
  if (mode === 'stuck') return stuckMode(ctx);
  if (mode === 'comment') return commentMode(ctx);
  let resolved: Awaited<ReturnType<typeof resolveRun>>;
  try {
    resolved = await resolveRun(ctx);
  } catch (e) {
    if (e instanceof GraphError) {
      // Annotations name files from the repository root, as GitHub shows them on the diff.
      const errors = e.errors.map((err) => ({ ...err, file: fromWorkspace(ctx, err.file) }));
      for (const err of errors) ctx.io.error(err.message, err);
      ctx.io.setOutput('status', 'failed');
      return {
        outputs: { status: 'failed' },
        failed: `${[...new Set(errors.map((x) => x.file))].join(', ')} is not valid:\n${errors.map(formatSourceError).join('\n')}`,
      };
    }
    throw e;
  }
  if ('refused' in resolved) {
    ctx.io.notice(`interlock: not started: ${resolved.refused}`);
    ctx.io.setOutput('status', 'refused');
    return { outputs: { status: 'refused' } };
  }
  if ('noRoute' in resolved) {
    ctx.io.notice(resolved.noRoute);
    ctx.io.setOutput('status', 'no-route');
    return { outputs: { status: 'no-route' } };
  }
  const { graph, runId, subject, store, intent } = resolved;
  ctx.io.saveState('run-id', runId);
  ctx.io.saveState('graph', graph.path);
  ctx.io.saveState('subject', subject.label);
  ctx.io.saveState('subject-sha', subject.headSha ?? '');
  const setup = stepSetupFor(ctx, graph, runId, subject, store, intent);
  const outputs: Record<string, string> = { 'run-id': runId };

  if (mode === 'plan' || mode === 'recover') {
    const r = await recover(setup);
    const cp = r.cur.state.checkpoint;
    for (const id of r.interrupted)
      ctx.io.info(
        `interlock: "${id}" was interrupted: ${r.cur.state.nodes.get(id)?.state === 'held' ? 'held' : 'ready again'}`,
      );
    for (const l of r.left) ctx.io.info(`interlock: "${l.node}" left alone: ${l.why}`);
    Object.assign(outputs, {
      status:
        cp.status === 'completed'
          ? 'run-completed'
          : cp.status === 'blocked'
            ? cp.held_nodes.length
              ? 'held'
              : cp.escalated_nodes.length
                ? 'escalated'
                : 'not-ready'
            : cp.status,
      ready: JSON.stringify(cp.ready_nodes),
      checkpoint: JSON.stringify(cp),
    });
    await publishResult(
      ctx,
      setup,
      r.cur,
      {
        kind: mode,
        interrupted: r.interrupted,
        headline: `${mode}: ready ${JSON.stringify(cp.ready_nodes)}`,
      },
      subject,
    );
    for (const [k, v] of Object.entries(outputs)) ctx.io.setOutput(k, v);
    return { outputs };
  }

  const wanted = ctx.inputs.node === 'next' || ctx.inputs.node === 'all' ? undefined : ctx.inputs.node;
  if (wanted && !graph.nodes.some((n) => n.id === wanted)) {
    ctx.io.setOutput('status', 'failed');
    return { outputs: { ...outputs, status: 'failed' }, failed: `node "${wanted}" is not in ${graph.path}` };
  }
  let last: StepResult;
  const interrupted: string[] = [];
  while (true) {
    last = await step(setup, wanted);
    const mine = wanted ? last.cur.state.nodes.get(wanted) : undefined;
    if (last.kind === 'blocked' && mine?.state === 'completed') {
      // Re-running a workflow resumes where the run stands: a completed node only reports what it recorded.
      last = {
        kind: 'recorded',
        node: wanted!,
        attempt: mine.attempts,
        cur: last.cur,
        message: `"${wanted}" was already completed (attempt ${mine.attempts}); nothing to do`,
      };
    }
    ctx.io.info(`interlock: ${last.message}`);
    for (const e of last.cur.journal.events)
      if (e.type === 'NodeInterrupted' && !interrupted.includes(e.node)) interrupted.push(e.node);
    if (ctx.inputs.node !== 'all' || ['run-completed', 'ended', 'blocked', 'stale'].includes(last.kind))
      break;
    if (last.cur.state.checkpoint.ended) break;
  }
  const status = statusFor(last, wanted);
  const nodeId = 'node' in last ? last.node : (wanted ?? '');
  const p = nodeId ? last.cur.state.nodes.get(nodeId) : undefined;
  Object.assign(outputs, {
    node: nodeId,
    attempt: p ? String(p.attempts) : '',
    status,
    ready: JSON.stringify(last.cur.state.checkpoint.ready_nodes),
    checkpoint: JSON.stringify(last.cur.state.checkpoint),
  });
  if (p?.state === 'completed') for (const [k, v] of Object.entries(p.outputs)) outputs[`output-${k}`] = v;
  for (const [k, v] of Object.entries(outputs)) ctx.io.setOutput(k, v);
  ctx.io.saveState('done', 'true');
  await publishResult(
    ctx,
    setup,
    last.cur,
    { kind: 'step', result: last, interrupted, headline: last.message },
    subject,
  );
  const cp = last.cur.state.checkpoint;
  if (status === 'failed') return { outputs, failed: `${last.message}. Run ${runId} is ${cp.status}.` };
  if ((status === 'held' || status === 'escalated') && ctx.inputs['on-held'] === 'fail') {
    return {
      outputs,
      failed: `${last.message}. Run ${runId} waits for a person: see the comment on the ${subject.kind === 'ref' ? 'job summary' : `${subject.kind} #${subject.number}`}.`,
    };
  }
  return { outputs };
}
