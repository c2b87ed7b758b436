/**
 * One API-fault case's world and how a flow is driven in it: the local GitHub and a workspace, journals seeded as
 * earlier steps leave them, the bundled Action run as a runner runs it, the App receiving a delivery, and what the
 * world holds afterwards (the journal, in either store, and the side effects).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Probot, type ProbotOctokit } from 'probot';
import { interlockApp } from '../../src/app/probot.js';
import { appOctokit } from '../../src/app/server.js';
import type { Graph } from '../../src/graph/model.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../../src/journal/events/events.js';
import type { RunnerInfo } from '../../src/journal/events/fields.js';
import { appendEvents, parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { decodeJournal } from '../../src/store/check-run.js';
import { pullRequestOpened } from '../action/world.js';
import { fastProbotOctokit } from '../app/world.js';
import { runStepWithin, type StepOptions } from '../support/action-process.js';
import { putJournalText } from '../support/journal-text.js';
import { type GitLayout, seedGitJournal } from '../support/seed-journal.js';
import { type ActionWorld, FULL, JOURNAL_BRANCH, WORKFLOW } from './github-world.js';

/** A request's timeout in these runs: a held connection fails after this, and is retried. */
export const REQUEST_TIMEOUT_MS = 1000;
export const STEP_LIMIT_MS = 90_000;
export const GRAPH_PATH = '.github/interlock/faults.yml';

export type Job = { runId: number; runner: string };

export interface Case {
  world: ActionWorld;
  ws: string;
  tag: string;
  graph: Graph & { path: string };
  subject: { kind: 'issue' | 'pr'; number: number };
  runId: string;
  store: 'git' | 'check-run';
  /** Where a flow's seed puts the run's journal: its own branch, or the journal branch of before. */
  layout: GitLayout;
  env: Record<string, string>;
  /** The job that dispatched the in-flight attempt (post and cancel flows). */
  job?: Job;
  /** The delivery the flow handles (a comment, a button press): delivered again to finish the run. */
  delivery?: { name: string; payload: Record<string, unknown> };
  /** What another job does as a request arrives (a race made deterministic). */
  onRequest?: (r: { method: string; path: string }) => void;
}

export interface FlowRun {
  ok: boolean;
  /** What the process or handler said (its log). */
  log: string;
  /** The `::error::` line, or the handler's error. */
  error?: string;
  timedOut: boolean;
}

export const subjectLabel = (c: Case) => `${c.subject.kind}-${c.subject.number}`;

export const runnerOf = (job: Job, name = 'interlock'): RunnerInfo => ({
  kind: 'actions',
  workflow_run_id: job.runId,
  run_attempt: 1,
  job: name,
  runner_name: job.runner,
  workflow_ref: `${FULL}/.github/workflows/${WORKFLOW}@refs/heads/main`,
});

export const started = (c: Case, job: Job): NewEvent => ({
  type: 'RunStarted',
  graph: { name: c.graph.name, hash: c.graph.hash, path: c.graph.path },
  intent: c.subject.kind === 'pr' ? 'pull_request.opened' : 'issues.labeled label=interlock',
  subject: subjectLabel(c),
  runner: runnerOf(job),
  inputs: {},
});
export const dispatched = (node: string, attempt: number, runner: RunnerInfo): NewEvent => ({
  type: 'NodeDispatched',
  node,
  attempt,
  replay: 'never',
  approach: 'default',
  runner,
});
export const recorded = (node: string, attempt: number): NewEvent => ({
  type: 'NodeRecorded',
  node,
  attempt,
  evidence: [],
  outputs: {},
  usage: { wall_ms: 5 },
});

/**
 * Writes a journal as earlier steps would have left it, by the git store's own writer, in the case's layout: on
 * the run's own branch, or on the journal branch of before (a run started before run branches). With its progress
 * comment unless `progress: false`; events are `ageMs` old (a minute by default).
 */
export async function seed(
  c: Case,
  events: NewEvent[],
  opts: { progress?: boolean; ageMs?: number } = {},
): Promise<void> {
  const ref = { name: c.graph.name, hash: c.graph.hash, path: c.graph.path };
  let j: Journal = { format: JOURNAL_FORMAT, run_id: c.runId, graph: ref, events: [] };
  let t = Date.now() - (opts.ageMs ?? 60_000);
  for (const e of events) {
    t += 1000;
    j = appendEvents(j, [e], new Date(t).toISOString());
  }
  if (opts.progress !== false) {
    const body = `<!-- interlock:progress ${c.runId} -->\nseeded`;
    const comment = c.world.repo.addComment(c.subject.number, body, 'github-actions[bot]');
    j = { ...j, progress_comment_id: comment.id };
  }
  await seedGitJournal(c.world.server, FULL, j, c.layout, JOURNAL_BRANCH);
}

/**
 * Replaces the journal where the run keeps it, in the middle of a request the server is answering: what another
 * job's write does at that moment (a race made deterministic, so it cannot wait for a request of its own).
 */
export function writeJournal(c: Case, j: Journal): void {
  putJournalText(c.world.repo, c.runId, serializeJournal(j), JOURNAL_BRANCH);
}

/** Runs the bundle as a runner runs a step, killed after STEP_LIMIT_MS. */
export async function step(opts: StepOptions): Promise<FlowRun> {
  const { timedOut, ...r } = await runStepWithin(opts, STEP_LIMIT_MS);
  const error = r.stdout.split('\n').find((l) => l.startsWith('::error'));
  return { ok: r.code === 0 && !timedOut, log: r.stdout + r.stderr, ...(error ? { error } : {}), timedOut };
}

/** Step options for the run's own event (an issue labeled, or a pull request opened) in a new running job. */
export function stepFor(
  c: Case,
  inputs: Record<string, string>,
  extra: Partial<StepOptions> = {},
): StepOptions {
  const base = c.world.step(c.ws, c.subject.number, {
    inputs: {
      graph: c.graph.path,
      'on-held': 'succeed',
      ...(c.store === 'git' ? {} : { store: c.store }),
      ...inputs,
    },
    env: c.env,
    ...extra,
  });
  if (c.subject.kind === 'issue') return base;
  return { ...base, eventName: 'pull_request', payload: pullRequestOpened(c.world.repo, c.subject.number) };
}

/** The App's Octokit as `npm start` builds it (src/app/server.ts), with its waits made tiny. */
function appClient(): typeof ProbotOctokit {
  return appOctokit(fastProbotOctokit('reliability'), { requestTimeoutMs: REQUEST_TIMEOUT_MS });
}

/** The App receives one delivery, as Probot's webhook server hands it over. */
export async function receive(c: Case, delivery: { name: string; payload: Record<string, unknown> }) {
  const probot = new Probot({
    githubToken: 'ghs_app_token',
    baseUrl: c.world.server.url,
    logLevel: 'fatal',
    Octokit: appClient(),
  });
  await probot.load(interlockApp());
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), STEP_LIMIT_MS);
  });
  try {
    const r = await Promise.race([
      probot.receive({ id: `d-${randomUUID()}`, name: delivery.name, payload: delivery.payload } as never),
      limit,
    ]);
    return { ok: r !== 'timeout', log: '', timedOut: r === 'timeout' };
  } catch (e) {
    const message = (e as { errors?: Error[] }).errors?.map((x) => x.message).join('; ') ?? String(e);
    return { ok: false, log: message, error: message, timedOut: false };
  } finally {
    clearTimeout(timer);
  }
}

/** The run's journal text: on the journal branch, or in the newest check run named after the run. */
function journalText(c: Case): string | undefined {
  if (c.store === 'git') return c.world.journalText(c.runId);
  const name = `interlock: ${c.runId}`;
  const runs = [...c.world.repo.checkRuns.values()].filter((r) => r.name === name && r.output.text);
  return runs.at(-1)?.output.text ?? undefined;
}

/** An effect's hidden marker: the key it names (the value each attempt's mark carries differs). */
const MARKER = /<!-- interlock:effect (\S+)(?: [0-9a-f]{64})? -->/g;

/** Reads what a world holds after a flow: the journal and the side effects. */
export function observe(c: Case): { text?: string; journal?: Journal; effects: string[] } {
  const text = journalText(c);
  const log = join(c.ws, 'effects.log');
  const effects = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  // A comment an effect posted is a side effect too: its hidden marker names the node, so a second is a repeat.
  for (const m of c.world.repo.commentsOn(c.subject.number))
    for (const mark of m.body.matchAll(MARKER)) effects.push(`comment ${mark[1]}`);
  // So is a pull request (by the marker in its body) and a commit an effect made (by its trailer), on any branch.
  for (const i of c.world.repo.issues.values())
    for (const mark of (i.pull && i.body?.matchAll(MARKER)) || []) effects.push(`pull request ${mark[1]}`);
  for (const b of c.world.repo.branches()) {
    const seen = new Set<string>();
    for (let sha: string | undefined = b.sha; sha && !seen.has(sha); ) {
      seen.add(sha);
      const commit = c.world.repo.git.commit(sha);
      const mark = commit && /^Interlock-Effect: (\S+)/m.exec(commit.message)?.[1];
      if (mark) effects.push(`commit on ${b.name}: ${mark}`);
      sha = commit?.parents[0];
    }
  }
  let journal: Journal | undefined;
  try {
    if (text !== undefined)
      journal = c.store === 'git' ? parseJournal(text, 'journal') : decodeJournal(text, 'check run');
  } catch {
    journal = undefined;
  }
  return { ...(text !== undefined ? { text } : {}), ...(journal ? { journal } : {}), effects };
}
