/**
 * GitHub API faults at every request the Action and the app make. A normal run of each flow (a step, the post
 * step, an approval) is recorded first; then, for every request in its log and every fault kind, a fresh world
 * runs the flow with that one request broken (once, or for every try). What must hold: the journal stays valid
 * and append-only, no acknowledged event is lost, no side effect repeats, retries are bounded, a step that
 * gives up says what state the run is in, and the run can then be finished.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import type { Fault, FaultRule, LoggedRequest } from '../support/github-server.js';
import type { GitLayout } from '../support/seed-journal.js';
import {
  type Case,
  type FlowRun,
  GRAPH_PATH,
  observe,
  REQUEST_TIMEOUT_MS,
  receive,
  STEP_LIMIT_MS,
  step,
  stepFor,
} from './api-faults-case.js';
import { commentDelivery, FLOWS, type FlowName, flowSpec, GRAPH, OF_BEFORE } from './api-faults-flows.js';
import { acksIn } from './crash-check.js';
import { OWNER, REPO, startActionWorld, workspace } from './github-world.js';
import { canonical, concurrency, killTagged, Problems, pool } from './support.js';

export { FLOWS, type FlowName, flowSpec, GRAPH, GRAPH_PATH, OF_BEFORE };

/** The faults every request gets. */
export const FAULTS: Record<string, Fault> = {
  '500': { kind: 'status', status: 500 },
  '502': { kind: 'status', status: 502 },
  timeout: { kind: 'timeout' },
  'dropped connection': { kind: 'drop' },
  '403 secondary rate limit': { kind: 'secondary-rate-limit', retryAfter: 1 },
  '429': { kind: 'too-many-requests', retryAfter: 1 },
  '409': { kind: 'status', status: 409 },
  '422': { kind: 'status', status: 422, message: 'Validation Failed' },
  // The request is carried out (a write lands) and only its answer is lost: the client cannot know it happened.
  'lost answer': { kind: 'drop' },
};
export const FAULT_NAMES = Object.keys(FAULTS);
/** Faults that strike after GitHub carried the request out; the rest strike before it. */
const AFTER: ReadonlySet<string> = new Set(['lost answer']);
/** A lost answer matters for a write only: a read carried out and not answered is a dropped connection. */
const faultsFor = (p: Point) => FAULT_NAMES.filter((f) => !AFTER.has(f) || p.method !== 'GET');

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

/** Brings a fresh world to the state just before the flow. */
async function prepare(flow: FlowName, root: string): Promise<Case> {
  const spec = flowSpec(flow);
  const text = spec.graph ?? GRAPH;
  const graph = { ...parseGraph({ path: GRAPH_PATH, text }), path: GRAPH_PATH };
  let c: Case | undefined;
  const world = await startActionWorld({
    files: { [GRAPH_PATH]: text },
    onRequest: (r) => c?.onRequest?.(r),
  });
  const kind = spec.subject ?? 'issue';
  const number = kind === 'pr' ? 100 : world.issue('Faults');
  const tag = randomUUID();
  const ws = workspace(root, { [GRAPH_PATH]: text });
  c = {
    world,
    ws,
    tag,
    graph,
    subject: { kind, number },
    runId: `faults/${kind}-${number}`,
    store: spec.store ?? 'git',
    layout: spec.layout ?? 'run-branch',
    env: {
      INTERLOCK_TEST_TAG: tag,
      TMPDIR: ws,
      INTERLOCK_RETRY_BASE_MS: '5',
      INTERLOCK_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    },
  };
  await spec.prepare(c);
  return c;
}

const runFlow = (flow: FlowName, c: Case): Promise<FlowRun> => flowSpec(flow).run(c);

/** Event shapes without times and runners, to compare a faulted run's end state with the normal one. */
const shape = (j: Journal | undefined) =>
  (j?.events ?? []).map(
    (e) => `${e.type}${'node' in e ? ` ${e.node}` : ''}${'attempt' in e ? `#${e.attempt}` : ''}`,
  );

/** A step that gives up must say what state the run is in. */
const SAYS_STATE =
  /no node ran|in flight|held|interrupted|is (running|blocked|completed|failed)|journal is intact|not applied|nothing more was written|released .* attempt|was not dispatched|not recorded|as it was/i;

/** The run's checkpoint as its journal now folds. */
function checkpoint(c: Case) {
  const j = observe(c).journal;
  return j ? fold(j, c.graph).checkpoint : undefined;
}

/**
 * After a failed flow, with GitHub healthy again: the same delivery is handled again (GitHub's redelivery, or the
 * job's re-run), then steps recover and go on, approving what is held, until the run ends as it should.
 */
async function finish(c: Case, flow: FlowName, p: Problems): Promise<void> {
  const ends = flowSpec(flow).ends ?? 'completed';
  for (const run of c.world.repo.workflowRuns.values())
    if (c.world.repo.latestAttempt(run).status !== 'completed') c.world.endJob(run.id);
  if (c.delivery) await runFlow(flow, c);
  for (let i = 0; i < 6; i++) {
    if (checkpoint(c)?.status === ends) return;
    const r = await step(stepFor(c, { node: 'all' }));
    const cp = checkpoint(c);
    if (cp?.status === ends) return;
    if (cp?.held_nodes.length || cp?.escalated_nodes.length) {
      const node = cp.held_nodes[0] ?? cp.escalated_nodes[0]!;
      await receive(c, commentDelivery(c, `/approve-rerun ${node}`));
      continue;
    }
    if (!r.ok && i > 2) p.add(`the run cannot be finished: ${r.error ?? '(no ::error:: line)'}`);
  }
  p.add(`the run did not end ${ends} within six steps after the fault was removed`);
}

/** The requests a flow makes when nothing fails: its points. */
export interface Baseline {
  shape: string[];
  /** Which git layout holds the run's journal after the flow ('both', or undefined for neither). */
  layout: GitLayout | 'both' | undefined;
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
    const baseline = {
      shape: shape(observe(c).journal),
      layout: c.world.journalLayout(c.runId),
      warnings: warningsIn(r.log),
    };
    return { points, log, baseline };
  } finally {
    await killTagged(c.tag);
    await c.world.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export const caseId = (c: FaultCase) =>
  `${c.point.flow} · ${c.point.kind} #${c.point.nth} · ${c.fault}${c.mode === 'every' ? ' (every try)' : ''}`;

type Observed = ReturnType<typeof observe>;

/** Right after the flow: the journal parses, folds and kept every earlier event and every acknowledged one. */
function checkAfterFlow(k: Case, before: Observed, after: Observed, r: FlowRun, p: Problems): void {
  if (after.text !== undefined && !after.journal) p.add('the journal no longer parses');
  if (before.journal && after.journal) {
    const lost = before.journal.events.findIndex(
      (e, i) => canonical(e) !== canonical(after.journal!.events[i]),
    );
    p.check(lost < 0, `event ${lost + 1} of the journal before the flow is missing or changed`);
  }
  if (after.journal) {
    try {
      fold(after.journal, k.graph);
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
}

/** At the end: the run ended as it should (when it had to be finished), nothing repeated, no rerun unapproved. */
function checkEnd(k: Case, flow: FlowName, continued: boolean, p: Problems): void {
  const end = observe(k);
  if (!end.journal) return;
  const cp = fold(end.journal, k.graph).checkpoint;
  const ends = flowSpec(flow).ends ?? 'completed';
  if (continued) p.check(cp.status === ends, `the run ended ${cp.status}, not ${ends}`);
  const dupEnd = end.effects.filter((l, i) => end.effects.indexOf(l) !== i);
  p.check(dupEnd.length === 0, `side effects repeated by the end: ${dupEnd.join(', ')}`);
  // A never node runs again after an interruption only with an approval (a safe one, an effect among them, may:
  // what it must not do twice is caught as a repeated side effect above).
  const events = end.journal.events;
  for (const node of k.graph.nodes.filter((n) => n.replay === 'never').map((n) => n.id)) {
    let interrupted = 0;
    for (const e of events) {
      if (!('node' in e) || e.node !== node) continue;
      if (e.type === 'NodeInterrupted') interrupted = e.attempt;
      if (e.type === 'NodeDispatched' && interrupted && e.attempt === interrupted + 1)
        p.check(
          events.some((x) => x.type === 'RerunApproved' && x.node === node && x.attempt === interrupted),
          `${node} attempt ${e.attempt} ran after an interruption without approval`,
        );
    }
  }
}

/** How the flow came out against its normal run; a give-up must say what state the run is in. */
function classify(r: FlowRun, same: boolean, baseline: Baseline, p: Problems): FaultResult['outcome'] {
  if (r.ok && same) return warningsIn(r.log) > baseline.warnings ? 'degraded' : 'recovered';
  // The step succeeded with another end state: acceptable only when it says so (a failed check, say).
  if (r.ok) return 'degraded';
  p.check(
    SAYS_STATE.test(r.error ?? ''),
    `the failure does not say what state the run is in: ${r.error ?? '(no ::error:: line)'}`,
  );
  return 'gave-up';
}

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
      ...(AFTER.has(c.fault) ? { when: 'after' as const } : {}),
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
    checkAfterFlow(k, before, after, r, p);
    const same = canonical(shape(after.journal)) === canonical(baseline.shape);
    let outcome = classify(r, same, baseline, p);
    // A flow that ended elsewhere than the normal run: GitHub heals, and the run must still be finished.
    const continued = !same || !r.ok;
    if (continued) await finish(k, c.point.flow, p);
    checkEnd(k, c.point.flow, continued, p);
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

/**
 * The part of interlock that meets a flow's failures: a step, its recovery, the post step, stuck mode, or the
 * comment handler (src/approvals), which the App and `mode: comment` share (the App's flows come first, so its
 * own client meets the faults; the Action's client meets them in every other part).
 */
export function faceOf(flow: FlowName): string {
  if (flow.startsWith('app:') || flow.startsWith('action: mode comment')) return 'the comment handler';
  if (flow.startsWith('action: post step')) return 'the post step';
  // Recovery writes what the last job left unfinished: a write of its own, before the step's.
  if (flow.startsWith('action: recovery step')) return 'recovery';
  if (flow.startsWith('action: mode stuck')) return 'stuck mode';
  return 'a step';
}

/** Requests that write the journal: a step's first and last writes (dispatch, record) play different parts. */
const JOURNAL_WRITE =
  /^(PUT \/repos\/\{owner\}\/\{repo\}\/contents\/|PATCH \/repos\/\{owner\}\/\{repo\}\/check-runs\/)/;

/**
 * The points faulted: each request kind once for each face that makes it (its first place in the first flow of
 * that face that makes it), and a journal write's last place there too. A kind's other places in the same face
 * go through the same client call and the same handling; the flows are still all recorded, and every request
 * kind in them is faulted.
 */
export function distinctPoints(points: Point[]): Point[] {
  const firstFlow = new Map<string, FlowName>();
  for (const p of points) {
    const key = `${faceOf(p.flow)} ${p.kind}`;
    if (!firstFlow.has(key)) firstFlow.set(key, p.flow);
  }
  return points.filter((p) => {
    if (firstFlow.get(`${faceOf(p.flow)} ${p.kind}`) !== p.flow) return false;
    if (p.nth === 1) return true;
    const last = Math.max(...points.filter((q) => q.flow === p.flow && q.kind === p.kind).map((q) => q.nth));
    return JOURNAL_WRITE.test(p.kind) && p.nth === last;
  });
}

/**
 * Every case of the given flows: each distinct point × each fault, once and (when `every`) with retries run out.
 * The flows' normal runs are recorded once, side by side.
 */
export async function faultCases(
  flows: FlowName[] = FLOWS,
  opts: { every?: boolean; jobs?: number } = {},
): Promise<{ cases: FaultCase[]; baselines: Map<FlowName, Baseline>; points: Point[]; faulted: Point[] }> {
  const recorded = await pool(flows, opts.jobs ?? concurrency(), recordPoints);
  const baselines = new Map<FlowName, Baseline>(flows.map((f, i) => [f, recorded[i]!.baseline]));
  const points = recorded.flatMap((r) => r.points);
  const faulted = distinctPoints(points);
  const cases: FaultCase[] = [];
  for (const point of faulted) {
    for (const fault of faultsFor(point)) cases.push({ point, fault, mode: 'once' });
    if (opts.every) for (const fault of faultsFor(point)) cases.push({ point, fault, mode: 'every' });
  }
  return { cases, baselines, points, faulted };
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
