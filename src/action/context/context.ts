/**
 * The Action's context: what a step reports through (`ActionIO`), the inputs and runner environment read once,
 * the GitHub client, the event payload, this job's identity, the repository's config (read once a step); and the pieces built from it (the store, the runner
 * description, workspace paths, the event as kept in RunStarted).
 */

import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { type ConfigLoader, configLoader } from '../../config/load.js';
import {
  clientTuning,
  createClient,
  type GitHubClient,
  parseRepository,
  type RepoRef,
} from '../../github/client.js';
import { defaultBranchReader } from '../../github/repo-text.js';
import type { Graph } from '../../graph/model.js';
import type { RunnerInfo } from '../../journal/events/fields.js';
import type { Isolation } from '../../os/isolation.js';
import { parseNodeCredentials } from '../../os/node-user/node-credentials.js';
import { readCheckoutFile } from '../../os/node-user/node-files.js';
import { readTuning, type Tuning } from '../../os/tuning.js';
import type { JobIdentity } from '../../runner/recovery/actions-probe.js';
import { CheckRunStore } from '../../store/check-run.js';
import { GitStore } from '../../store/git.js';
import type { JournalStore } from '../../store/types.js';
import { storeCheckRunView } from '../report/store-check-run-view.js';
import { freshStore } from './fresh-stores.js';
import { type ActionEnv, type Inputs, nodeEnvironment, readActionEnv, readInputs } from './inputs.js';
import { pullHistory } from './pull-head.js';
import { stepSecrets } from './step-secrets.js';
import type { Subject } from './subject.js';

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
  /** Opens and closes a collapsible group of log lines around one attempt (optional: a recorder may skip it). */
  group?(title: string): void;
  endGroup?(): void;
}

export interface ActionResult {
  outputs: Record<string, string>;
  /** Set when the step must fail; says why and what state the run is in. */
  failed?: string;
  /** Set when the problem was already reported as an annotation: the step fails without a second `::error::`. */
  reported?: true;
}

export interface ActionContext {
  inputs: Inputs;
  env: ActionEnv;
  /**
   * The step's whole environment, for the few that need more than the typed `env`: the entry's masks and key
   * proxy (the credentials' values), the artifact service (its runtime token) and the post step's saved state.
   */
  rawEnv: NodeJS.ProcessEnv;
  /**
   * The step's secrets (`stepSecrets`), kept out of the journal, recordings and the store's view. Worked out at
   * the first read, once: a bad `node-credentials` list fails the step that reads it, not every mode's context.
   */
  readonly secrets: readonly string[];
  /** The environment a node starts from (`nodeEnvironment`: no inputs, runner files or credentials not granted). */
  readonly nodeEnv: NodeJS.ProcessEnv;
  /** What keeps a node apart from the step (src/os/isolation.ts): the `node-credentials` grants, parsed at first read. */
  readonly isolation: Isolation;
  /** The `INTERLOCK_*` tuning variables of the step's environment, parsed once (src/os/tuning.ts). */
  tuning: Tuning;
  repo: RepoRef;
  octokit: GitHubClient;
  payload: Record<string, unknown>;
  workspace: string;
  io: ActionIO;
  me: JobIdentity;
  /**
   * `.github/interlock.yml`, each read once this step: the checkout's (routes, the daily cap, model prices: what
   * the workflow runs with) and the default branch's (approval rules and protected paths, which no node of the
   * run can have edited).
   */
  config: { checkout: ConfigLoader; defaultBranch: ConfigLoader };
}

function readEventPayload(path: string | undefined): Record<string, unknown> {
  if (!path || !existsSync(path)) return {};
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
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
    ...clientTuning(rawEnv),
    ...(clientOptions.retryAfterBaseValue !== undefined
      ? { retryAfterBaseValue: clientOptions.retryAfterBaseValue }
      : {}),
  });
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd();
  let secrets: readonly string[] | undefined;
  let nodeEnv: NodeJS.ProcessEnv | undefined;
  let isolation: Isolation | undefined;
  return {
    inputs,
    env,
    rawEnv,
    get secrets() {
      secrets ??= stepSecrets(inputs, rawEnv);
      return secrets;
    },
    get nodeEnv() {
      nodeEnv ??= nodeEnvironment(rawEnv);
      return nodeEnv;
    },
    get isolation() {
      isolation ??= { credentials: parseNodeCredentials(inputs['node-credentials']) };
      return isolation;
    },
    tuning: readTuning(rawEnv),
    repo,
    octokit,
    payload: readEventPayload(env.GITHUB_EVENT_PATH),
    workspace,
    config: {
      checkout: configLoader((path) => {
        const file = resolve(workspace, path);
        return existsSync(file) ? readCheckoutFile(file, path) : undefined;
      }),
      defaultBranch: configLoader(defaultBranchReader(octokit, repo)),
    },
    io,
    me: {
      workflow_run_id: env.GITHUB_RUN_ID,
      run_attempt: env.GITHUB_RUN_ATTEMPT,
      job: env.GITHUB_JOB,
      runner_name: env.RUNNER_NAME,
    },
  };
}

/** The event as kept in RunStarted: the payload without the bulky repository/organization objects. */
export function githubContext(ctx: ActionContext): Record<string, unknown> {
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

/** A path inside the workspace, relative to it; any other path as it is. */
export function fromWorkspace(ctx: ActionContext, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(ctx.workspace, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

export function makeStore(ctx: ActionContext, runId: string, subject: Subject, graph?: Graph): JournalStore {
  if (ctx.inputs.store === 'check-run') {
    const head = subject.headSha ?? ctx.env.GITHUB_SHA;
    const store = new CheckRunStore(ctx.octokit, ctx.repo, {
      runId,
      head,
      history: pullHistory(ctx, subject),
    });
    if (graph) store.render = storeCheckRunView(graph, ctx.secrets);
    return store;
  }
  // Reads by branch name may answer from the past: this step's reads never go back in time.
  return freshStore(
    ctx,
    runId,
    () => new GitStore(ctx.octokit, ctx.repo, runId, ctx.inputs['journal-branch']),
  );
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
