/**
 * GitHub API faults at every request the Action and the app make. A normal run of each flow (a step, the post
 * step, an approval) is recorded first; then, for every request in its log and every fault kind, a fresh world
 * runs the flow with that one request broken (once, or for every try). What must hold: the journal stays valid
 * and append-only, no acknowledged event is lost, no side effect repeats, retries are bounded, a step that
 * gives up says what state the run is in, and the run can then be finished.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Probot, type ProbotOctokit } from 'probot';
import { interlockApp } from '../../src/app/probot.js';
import { appOctokit } from '../../src/app/server.js';
import { parseGraph } from '../../src/graph/load.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent, type RunnerInfo } from '../../src/journal/events.js';
import { fold } from '../../src/journal/fold.js';
import { appendEvents, parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { fastProbotOctokit } from '../app/world.js';
import { type StepOptions, type StepResult, startStep } from '../support/action-process.js';
import type { Fault, FaultRule, LoggedRequest } from '../support/github-server.js';
import { acksIn } from './crash-check.js';
import {
  type ActionWorld,
  APPROVER,
  FULL,
  JOURNAL_BRANCH,
  OWNER,
  REPO,
  startActionWorld,
  WORKFLOW,
  workspace,
} from './github-world.js';
import { canonical, concurrency, killTagged, Problems, pool } from './support.js';

/** The faults every request gets. */
export const FAULTS: Record<string, Fault> = {
  '500': { kind: 'status', status: 500 },
  '502': { kind: 'status', status: 502 },
  timeout: { kind: 'timeout' },
  'dropped connection': { kind: 'drop' },
  '403 secondary rate limit': { kind: 'secondary-rate-limit', retryAfter: 1 },
  '429': { kind: 'too-many-requests', retryAfter: 1 },
  '409': { kind: 'status', status: 409 },
};
export const FAULT_NAMES = Object.keys(FAULTS);

/** A request's timeout in these runs: a held connection fails after this, and is retried. */
const REQUEST_TIMEOUT_MS = 1000;
const STEP_LIMIT_MS = 90_000;

export type FlowName =
  | 'action: first step'
  | 'action: later step'
  | 'action: recovery step'
  | 'action: post step'
  | 'action: mode comment'
  | 'app: comment';
export const FLOWS: FlowName[] = [
  'action: first step',
  'action: later step',
  'action: recovery step',
  'action: post step',
  'action: mode comment',
  'app: comment',
];

export const GRAPH_PATH = '.github/interlock/faults.yml';
/** plan then ship, both `replay: never`, each leaving one line per attempt; ship's evidence asks GitHub. */
export const GRAPH = `interlock: 1
name: faults
nodes:
  - id: plan
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
  - id: ship
    depends_on: [plan]
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
    validates:
      - branch: main
      - issue: { state: open }
`;
const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH }), path: GRAPH_PATH };

/** One request of a flow's normal log: the `nth` request of its kind in that flow. */
export interface Point {
  flow: FlowName;
  kind: string;
  method: string;
  template: string;
  nth: number;
}

export interface FaultCase {
  point: Point;
  fault: string;
  /** `once`: the request fails once; `every`: it fails every time (retries run out). */
  mode: 'once' | 'every';
}

export interface FaultResult {
  id: string;
  c: FaultCase;
  /** recovered: same end state as the normal run; gave-up: the step failed and said the run's state. */
  outcome: 'recovered' | 'degraded' | 'gave-up' | 'broken';
  /** Requests of the faulted kind in the faulted flow (bounded retries). */
  tries: number;
  ms: number;
  message?: string;
  problems: string[];
}

// --- one world per case -----------------------------------------------------------------------------------

interface Case {
  world: ActionWorld;
  ws: string;
  tag: string;
  issue: number;
  runId: string;
  env: Record<string, string>;
  /** The job that dispatched the in-flight attempt (recovery and post flows). */
  job?: { runId: number; runner: string };
  commentPayload?: Record<string, unknown>;
}

const runnerOf = (job: { runId: number; runner: string }): RunnerInfo => ({
  kind: 'actions',
  workflow_run_id: job.runId,
  run_attempt: 1,
  job: 'interlock',
  runner_name: job.runner,
  workflow_ref: `${FULL}/.github/workflows/${WORKFLOW}@refs/heads/main`,
});

/** Writes a journal to the journal branch, as earlier steps would have left it, with its progress comment. */
function seed(c: Case, events: NewEvent[]): void {
  const ref = { name: graph.name, hash: graph.hash, path: GRAPH_PATH };
  let j: Journal = { format: JOURNAL_FORMAT, run_id: c.runId, graph: ref, events: [] };
  let t = Date.now() - 60_000;
  for (const e of events) {
    t += 1000;
    j = appendEvents(j, [e], new Date(t).toISOString());
  }
  const comment = c.world.repo.addComment(
    c.issue,
    `<!-- interlock:progress ${c.runId} -->\nseeded`,
    'github-actions[bot]',
  );
  j = { ...j, progress_comment_id: comment.id };
  c.world.repo.commitFiles(
    JOURNAL_BRANCH,
    { [`runs/${c.runId}.json`]: serializeJournal(j) },
    {},
    { orphan: true },
  );
}

function started(job: { runId: number; runner: string }, issue: number): NewEvent {
  return {
    type: 'RunStarted',
    graph: { name: graph.name, hash: graph.hash, path: GRAPH_PATH },
    intent: 'issues.labeled label=interlock',
    subject: `issue-${issue}`,
    runner: runnerOf(job),
    inputs: {},
  };
}
const dispatched = (node: string, attempt: number, job: { runId: number; runner: string }): NewEvent => ({
  type: 'NodeDispatched',
  node,
  attempt,
  replay: 'never',
  approach: 'default',
  runner: runnerOf(job),
});
const recorded = (node: string, attempt: number): NewEvent => ({
  type: 'NodeRecorded',
  node,
  attempt,
  evidence: [],
  outputs: {},
  usage: { wall_ms: 5 },
});

/** Brings a fresh world to the state just before the flow. */
async function prepare(flow: FlowName, root: string): Promise<Case> {
  const world = await startActionWorld({ files: { [GRAPH_PATH]: GRAPH } });
  const issue = world.issue('Faults');
  const ws = workspace(root, { [GRAPH_PATH]: GRAPH });
  const tag = randomUUID();
  const c: Case = {
    world,
    ws,
    tag,
    issue,
    runId: `faults/issue-${issue}`,
    env: {
      INTERLOCK_TEST_TAG: tag,
      TMPDIR: ws,
      INTERLOCK_RETRY_BASE_MS: '5',
      INTERLOCK_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    },
  };
  if (flow === 'action: first step') return c;
  const earlier = world.job();
  world.endJob(earlier.runId);
  const base = [started(earlier, issue), dispatched('plan', 1, earlier), recorded('plan', 1)];
  if (flow === 'action: later step') {
    seed(c, base);
    return c;
  }
  if (flow === 'action: recovery step') {
    seed(c, [...base, dispatched('ship', 1, earlier)]);
    return c;
  }
  if (flow === 'action: post step') {
    c.job = world.job();
    seed(c, [...base, dispatched('ship', 1, c.job)]);
    return c;
  }
  seed(c, [
    ...base,
    dispatched('ship', 1, earlier),
    { type: 'NodeInterrupted', node: 'ship', attempt: 1, observed_usage: { wall_ms: 9 }, by: 'interlock' },
  ]);
  c.commentPayload = world.comment(issue, '/approve-rerun ship');
  return c;
}

interface FlowRun {
  ok: boolean;
  /** What the process or handler said (its log). */
  log: string;
  /** The `::error::` line, or the handler's error. */
  error?: string;
  timedOut: boolean;
}

async function step(opts: StepOptions): Promise<StepResult & { timedOut: boolean }> {
  const { child, done } = startStep(opts);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, STEP_LIMIT_MS);
  try {
    return { ...(await done), timedOut };
  } finally {
    clearTimeout(timer);
  }
}

/** The App's Octokit as `npm start` builds it (src/app/server.ts), with its waits made tiny. */
function appClient(): typeof ProbotOctokit {
  return appOctokit(fastProbotOctokit('reliability'), REQUEST_TIMEOUT_MS);
}

async function runFlow(flow: FlowName, c: Case): Promise<FlowRun> {
  const o = (extra: Partial<StepOptions>): StepOptions => ({
    ...c.world.step(c.ws, c.issue, {
      inputs: { graph: GRAPH_PATH, node: 'next', 'on-held': 'succeed' },
      env: c.env,
    }),
    ...extra,
  });
  const fromStep = (r: StepResult & { timedOut: boolean }): FlowRun => {
    const error = r.stdout.split('\n').find((l) => l.startsWith('::error'));
    return { ok: r.code === 0, log: r.stdout + r.stderr, ...(error ? { error } : {}), timedOut: r.timedOut };
  };
  switch (flow) {
    case 'action: first step':
    case 'action: later step':
    case 'action: recovery step':
      return fromStep(await step(o({})));
    case 'action: post step':
      return fromStep(
        await step(
          o({
            entry: 'post.js',
            job: c.job!,
            state: { 'run-id': c.runId, graph: GRAPH_PATH, subject: `issue-${c.issue}`, 'subject-sha': '' },
          }),
        ),
      );
    case 'action: mode comment':
      return fromStep(
        await step({
          apiUrl: c.world.server.url,
          repository: FULL,
          workspace: c.ws,
          eventName: 'issue_comment',
          payload: c.commentPayload!,
          inputs: { mode: 'comment' },
          job: c.world.job(),
          env: c.env,
        }),
      );
    case 'app: comment': {
      const probot = new Probot({
        githubToken: 'ghs_app_token',
        baseUrl: c.world.server.url,
        logLevel: 'fatal',
        Octokit: appClient(),
      });
      await probot.load(interlockApp());
      const log: string[] = [];
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), STEP_LIMIT_MS);
      });
      try {
        const r = await Promise.race([
          probot.receive({
            id: `d-${randomUUID()}`,
            name: 'issue_comment',
            payload: c.commentPayload,
          } as never),
          limit,
        ]);
        return { ok: r !== 'timeout', log: log.join('\n'), timedOut: r === 'timeout' };
      } catch (e) {
        const message = (e as { errors?: Error[] }).errors?.map((x) => x.message).join('; ') ?? String(e);
        return { ok: false, log: message, error: message, timedOut: false };
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

/** Reads what a world holds after a flow: the journal and the side effects. */
function observe(c: Case): { text?: string; journal?: Journal; effects: string[] } {
  const text = c.world.journalText(c.runId);
  const log = join(c.ws, 'effects.log');
  const effects = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  let journal: Journal | undefined;
  try {
    journal = text ? parseJournal(text, 'journal') : undefined;
  } catch {
    journal = undefined;
  }
  return { ...(text !== undefined ? { text } : {}), ...(journal ? { journal } : {}), effects };
}

/** Event shapes without times and runners, to compare a faulted run's end state with the normal one. */
const shape = (j: Journal | undefined) =>
  (j?.events ?? []).map(
    (e) => `${e.type}${'node' in e ? ` ${e.node}` : ''}${'attempt' in e ? `#${e.attempt}` : ''}`,
  );

/** A step that gives up must say what state the run is in. */
const SAYS_STATE =
  /no node ran|in flight|held|interrupted|is (running|blocked|completed|failed)|journal is intact|not applied|nothing more was written|released .* attempt|was not dispatched|not recorded|as it was/i;

/** After a failed flow, with GitHub healthy again: recover, approve when held, and run to the end. */
async function finish(c: Case, p: Problems): Promise<void> {
  for (const run of c.world.repo.workflowRuns.values())
    if (c.world.repo.latestAttempt(run).status !== 'completed') c.world.endJob(run.id);
  if (c.commentPayload) {
    // The comment's job is re-run (the same delivery): an approval not yet recorded is recorded now.
    await runFlow('action: mode comment', c);
  }
  for (let i = 0; i < 6; i++) {
    const r = await step({
      ...c.world.step(c.ws, c.issue, {
        inputs: { graph: GRAPH_PATH, node: 'all', 'on-held': 'succeed' },
        env: c.env,
      }),
    });
    const state = observe(c).journal;
    const cp = state ? fold(state, graph).checkpoint : undefined;
    if (cp?.status === 'completed') return;
    if (cp?.held_nodes.length || cp?.escalated_nodes.length) {
      const node = cp.held_nodes[0] ?? cp.escalated_nodes[0]!;
      c.commentPayload = c.world.comment(c.issue, `/approve-rerun ${node}`, APPROVER);
      await runFlow('action: mode comment', c);
      continue;
    }
    if (r.code !== 0 && i > 2)
      p.add(
        `the run cannot be finished: ${r.stdout
          .split('\n')
          .filter((l) => l.startsWith('::error'))
          .join(' | ')}`,
      );
  }
  p.add('the run did not complete within six steps after the fault was removed');
}

/** The requests a flow makes when nothing fails: its points. */
export interface Baseline {
  shape: string[];
  /** Warnings the normal flow gives (the post step always warns that it interrupted the node). */
  warnings: number;
}

const warningsIn = (log: string) => (log.match(/^::warning/gm) ?? []).length;

export async function recordPoints(
  flow: FlowName,
): Promise<{ points: Point[]; log: LoggedRequest[]; baseline: Baseline }> {
  const root = mkdtempSync(join(tmpdir(), 'interlock-faults-'));
  const c = await prepare(flow, root);
  try {
    const mark = c.world.server.requests.mark();
    const r = await runFlow(flow, c);
    if (!r.ok) throw new Error(`the normal ${flow} failed: ${r.error ?? r.log}`);
    const log = c.world.server.requests.filter({ since: mark });
    const seen = new Map<string, number>();
    const points = log.map((q) => {
      const n = (seen.get(q.kind) ?? 0) + 1;
      seen.set(q.kind, n);
      const [method, template] = [
        q.kind.slice(0, q.kind.indexOf(' ')),
        q.kind.slice(q.kind.indexOf(' ') + 1),
      ];
      return { flow, kind: q.kind, method: method!, template: template!, nth: n };
    });
    return { points, log, baseline: { shape: shape(observe(c).journal), warnings: warningsIn(r.log) } };
  } finally {
    await killTagged(c.tag);
    await c.world.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export const caseId = (c: FaultCase) =>
  `${c.point.flow} · ${c.point.kind} #${c.point.nth} · ${c.fault}${c.mode === 'every' ? ' (every try)' : ''}`;

/** Runs one case in a world of its own. */
export async function runFaultCase(c: FaultCase, baseline: Baseline): Promise<FaultResult> {
  const root = mkdtempSync(join(tmpdir(), 'interlock-faults-'));
  const p = new Problems();
  const t0 = Date.now();
  const k = await prepare(c.point.flow, root);
  try {
    const before = observe(k);
    const rule: FaultRule = {
      method: c.point.method,
      path: c.point.template,
      nth: c.point.nth,
      ...(c.mode === 'every' ? { every: true } : { times: 1 }),
      fault: FAULTS[c.fault]!,
    };
    const mark = k.world.server.requests.mark();
    const handle = k.world.server.faults.inject(rule);
    const r = await runFlow(c.point.flow, k);
    handle.remove();
    const ms = Date.now() - t0;
    const tries = k.world.server.requests.count({ since: mark, kind: c.point.kind }) - (c.point.nth - 1);
    p.check(!r.timedOut, `the flow hung for ${STEP_LIMIT_MS / 1000}s`);
    p.check(handle.fired > 0, 'the fault never fired (the request was not made)');
    // Bounded: the client's retries (3 after the first try; a rate limit waits its retry-after), times the few
    // re-reads a journal write gets when its outcome is unknown or the store keeps refusing it.
    const bound = 16;
    p.check(tries <= bound, `${tries} tries of the faulted request (at most ${bound})`);
    const after = observe(k);
    if (after.text !== undefined && !after.journal) p.add('the journal no longer parses');
    if (before.journal && after.journal) {
      const lost = before.journal.events.findIndex(
        (e, i) => canonical(e) !== canonical(after.journal!.events[i]),
      );
      p.check(lost < 0, `event ${lost + 1} of the journal before the flow is missing or changed`);
    }
    if (after.journal) {
      try {
        fold(after.journal, graph);
      } catch (e) {
        p.add(`the journal does not fold: ${(e as Error).message}`);
      }
      for (const a of acksIn('flow', r.log))
        p.check(
          after.journal.events.some((e) => e.type === a.type && 'node' in e && e.node === a.node),
          `acknowledged ${a.type} ${a.node} is missing`,
        );
    }
    const dup = after.effects.filter((l, i) => after.effects.indexOf(l) !== i);
    p.check(dup.length === 0, `side effects repeated: ${dup.join(', ')}`);
    const same = canonical(shape(after.journal)) === canonical(baseline.shape);
    let outcome: FaultResult['outcome'];
    if (r.ok && same) outcome = warningsIn(r.log) > baseline.warnings ? 'degraded' : 'recovered';
    else if (!r.ok) {
      outcome = 'gave-up';
      p.check(
        SAYS_STATE.test(r.error ?? ''),
        `the failure does not say what state the run is in: ${r.error ?? '(no ::error:: line)'}`,
      );
    } else {
      // The step succeeded with another end state: acceptable only when it says so (a failed check, say).
      outcome = 'degraded';
    }
    // A flow that ended elsewhere than the normal run: GitHub heals, and the run must still be finished.
    const continued = !same || !r.ok;
    if (continued) await finish(k, p);
    const end = observe(k);
    if (end.journal) {
      const cp = fold(end.journal, graph).checkpoint;
      if (continued) p.check(cp.status === 'completed', `the run ended ${cp.status}`);
      const dupEnd = end.effects.filter((l, i) => end.effects.indexOf(l) !== i);
      p.check(dupEnd.length === 0, `side effects repeated by the end: ${dupEnd.join(', ')}`);
      // A never node runs again after an interruption only with an approval.
      for (const node of ['plan', 'ship']) {
        let interrupted = 0;
        for (const e of end.journal.events) {
          if (!('node' in e) || e.node !== node) continue;
          if (e.type === 'NodeInterrupted') interrupted = e.attempt;
          if (e.type === 'NodeDispatched' && interrupted && e.attempt === interrupted + 1)
            p.check(
              end.journal.events.some(
                (x) => x.type === 'RerunApproved' && x.node === node && x.attempt === interrupted,
              ),
              `${node} attempt ${e.attempt} ran after an interruption without approval`,
            );
        }
      }
    }
    if (p.list.length) outcome = 'broken';
    return {
      id: caseId(c),
      c,
      outcome,
      tries,
      ms,
      ...(r.error ? { message: r.error } : {}),
      problems: p.list,
    };
  } finally {
    await killTagged(k.tag);
    await k.world.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Every case of the given flows: each point × each fault, once and (when `every`) with retries run out. */
export async function faultCases(
  flows: FlowName[] = FLOWS,
  opts: { every?: boolean; sample?: boolean } = {},
): Promise<{ cases: FaultCase[]; baselines: Map<FlowName, Baseline>; points: Point[] }> {
  const cases: FaultCase[] = [];
  const baselines = new Map<FlowName, Baseline>();
  const all: Point[] = [];
  let k = 0;
  for (const flow of flows) {
    const { points, baseline } = await recordPoints(flow);
    baselines.set(flow, baseline);
    all.push(...points);
    for (const point of points) {
      const faults = opts.sample ? [FAULT_NAMES[k++ % FAULT_NAMES.length]!] : FAULT_NAMES;
      for (const fault of faults) cases.push({ point, fault, mode: 'once' });
      if (opts.every) for (const fault of faults) cases.push({ point, fault, mode: 'every' });
    }
  }
  return { cases, baselines, points: all };
}

export async function runFaultCases(
  cases: FaultCase[],
  baselines: Map<FlowName, Baseline>,
  opts: { jobs?: number; onResult?: (r: FaultResult) => void } = {},
): Promise<FaultResult[]> {
  return pool(cases, opts.jobs ?? concurrency(), async (c) => {
    let r: FaultResult;
    try {
      r = await runFaultCase(c, baselines.get(c.point.flow)!);
    } catch (e) {
      r = {
        id: caseId(c),
        c,
        outcome: 'broken',
        tries: 0,
        ms: 0,
        problems: [`could not run: ${(e as Error).stack}`],
      };
    }
    opts.onResult?.(r);
    return r;
  });
}

export { OWNER, REPO };
