import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GitHubEvidence, runGitHubCheck } from '../evidence/github.js';
import { type CheckInput, gitHead, isLocalCheck, runLocalCheck } from '../evidence/local.js';
import { type ExpressionContext, interpolate } from '../expressions/evaluate.js';
import type { Approach, Graph, GraphNode } from '../graph/model.js';
import type { Check } from '../graph/schema.js';
import {
  type Evidence,
  JOURNAL_FORMAT,
  type Journal,
  type NewEvent,
  type RunnerInfo,
} from '../journal/events.js';
import { type DispatchInfo, fold, JournalError, type RunState } from '../journal/fold.js';
import { splitOutputs } from '../journal/output-name.js';
import { appendEvents } from '../journal/parse.js';
import { runScript } from '../os/exec.js';
import {
  type AttemptContext,
  type AttemptOutcome,
  decideNext,
  decideResult,
  expressionContext,
} from '../protocol/decide.js';
import { graphChange, type Probe, recoverEvents, type Settlement } from '../protocol/settle.js';
import type { JournalStore } from '../store/types.js';
import { failpoint } from './failpoint.js';
import { parseOutputFile as parseOutputs } from './outputs.js';

export interface RunSetup {
  graph: Graph;
  store: JournalStore;
  runId: string;
  /** Recorded in RunStarted when the run starts here. */
  start: { intent: string; subject: string; inputs: Record<string, string>; github: unknown };
  /** Who allowed a changed graph, when someone did (`--allow-graph-change`). */
  allowGraphChangeBy?: string;
  now?: () => string;
}

export interface StepSetup extends RunSetup {
  cwd: string;
  /** The environment the node's command inherits (PATH, HOME, the step's secrets). */
  baseEnv: NodeJS.ProcessEnv;
  /** Describes this executor for NodeDispatched, given the attempt's execution tag. */
  runner: (execTag: string) => RunnerInfo;
  /** Whether an in-flight attempt's executor is provably gone (may ask an API). */
  probe: (node: string, dispatch: DispatchInfo) => Probe | Promise<Probe>;
  /** Answers the GitHub evidence checks; without it they fail with a clear reason. */
  github?: GitHubEvidence;
  recoveredBy: string;
  /** Live output of the node's command. */
  echo?: (chunk: Buffer) => void;
  /** A file that keeps an attempt's whole output. */
  logFile?: (node: string, attempt: number) => string | undefined;
  /** Progress messages for people. */
  say?: (message: string) => void;
}

export interface Current {
  journal: Journal;
  version: string | null;
  state: RunState;
}

export class RunRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunRefused';
  }
}

/**
 * Conflicts a commit lives through. Each one, in a race, means another writer's events landed (the journal
 * moved on), so the budget is generous: 32 parallel jobs on one journal met up to 33 each.
 */
const MAX_CONFLICTS = 200;
/**
 * A write refused although the journal did not move on is no race: the store keeps refusing it (GitHub answering
 * 409 to every try, say). Try it this many times, then give up rather than spend the conflict budget.
 */
const MAX_STALLED = 3;
/**
 * Writes whose outcome stayed unknown (5xx, dropped connections) after the client's own retries: re-read and
 * try again this many times, then give up, rather than keep a failing GitHub busy for the conflict budget.
 */
const MAX_UNKNOWN_OUTCOMES = 2;

/** Thrown when the journal could not be read or written: says what state this step left the run in. */
export class StoreUnavailable extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'StoreUnavailable';
  }
}

/** Refusals and damaged journals say what they mean already; any other error is the store failing. */
function storeFailure(e: unknown, say: (why: string) => string): unknown {
  if (e instanceof RunRefused || e instanceof JournalError) return e;
  return new StoreUnavailable(say((e as Error)?.message ?? String(e)), e);
}

/** Reads the run's journal and folds it; a run that has not started reads as a fresh RunStarted (not yet stored). */
export async function readRun(setup: RunSetup, runner: RunnerInfo): Promise<Current> {
  const stored = await setup.store.read();
  if (stored) {
    if (stored.journal.run_id !== setup.runId) {
      throw new RunRefused(
        `${setup.store.location} holds run "${stored.journal.run_id}", not "${setup.runId}"`,
      );
    }
    let state: RunState;
    try {
      state = fold(stored.journal, setup.graph);
      // The header names the graph the events accepted; a header that disagrees was edited or forged.
      if (stored.journal.graph.hash !== state.accepted_hash)
        throw new JournalError(
          `the header names graph ${stored.journal.graph.hash} but its events accepted ${state.accepted_hash}`,
          null,
        );
    } catch (e) {
      // Rule 7: the error names the file as well as the first bad event; nothing is written.
      if (e instanceof JournalError)
        throw new JournalError(
          `${setup.store.location}: ${e.message}; the journal was left untouched`,
          e.seq,
        );
      throw e;
    }
    return { journal: stored.journal, version: stored.version, state };
  }
  const g = { name: setup.graph.name, hash: setup.graph.hash, path: setup.graph.path };
  const fresh: Journal = { format: JOURNAL_FORMAT, run_id: setup.runId, graph: g, events: [] };
  const journal = appendEvents(
    fresh,
    [
      {
        type: 'RunStarted',
        graph: g,
        intent: setup.start.intent,
        subject: setup.start.subject,
        runner,
        inputs: setup.start.inputs,
        ...(setup.start.github ? { github: setup.start.github } : {}),
      },
    ],
    (setup.now ?? isoNow)(),
  );
  return { journal, version: null, state: fold(journal, setup.graph) };
}

/**
 * JSON with every object's keys sorted. A journal read back is parsed through the schema, which orders keys its
 * own way (a runner's known fields first, then its extra ones), so the events written and the same events read
 * back differ as plain JSON.
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** True when `now` holds, right after the first `from` events, exactly the events `attempt` appended. */
function landed(attempt: Journal, from: number, now: Journal): boolean {
  const ours = attempt.events.slice(from);
  if (ours.length === 0 || now.events.length < attempt.events.length) return false;
  const theirs = now.events.slice(from, from + ours.length);
  return canonical(theirs) === canonical(ours);
}

/** Errors after which a write's outcome is unknown and a fresh read decides: network failures and 5xx. */
function transient(e: unknown): boolean {
  const status = (e as { status?: unknown })?.status;
  if (typeof status === 'number') return status >= 500 || status === 0;
  const code =
    (e as { code?: unknown; cause?: { code?: unknown } })?.code ??
    (e as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|UND_ERR)/.test(code);
}

function isoNow(): string {
  return new Date().toISOString();
}

function describe(events: NewEvent[]): string {
  return events
    .map((e) => ('node' in e ? `${e.type} ${e.node}${'attempt' in e ? `#${e.attempt}` : ''}` : e.type))
    .join(', ');
}

/**
 * Compare-and-swap commit: reads, lets `decide` choose events from the current state, writes them if the
 * journal is still at that version; on a conflict it re-reads and decides again (never re-appends blindly).
 */
export async function commit<T extends { events: NewEvent[] }>(
  setup: RunSetup,
  runner: RunnerInfo,
  decide: (cur: Current) => T | Promise<T>,
  create = false,
  /** The state just written by this process: the first try decides from it without reading again. */
  known?: Current,
): Promise<{ cur: Current; decision: T; conflicts: number }> {
  let conflicts = 0;
  let unknown = 0;
  let stalled = 0;
  let tried: { journal: Journal; decision: T; from: number; version: string | null; why: string } | undefined;
  let start = known;
  while (true) {
    let cur = start ?? (await readRun(setup, runner));
    start = undefined;
    if (tried && landed(tried.journal, tried.from, cur.journal)) {
      // The last write landed although its answer was lost (a timeout or a 502 after the write): it is ours.
      return { cur, decision: tried.decision, conflicts };
    }
    if (tried && cur.version === tried.version && ++stalled > MAX_STALLED) {
      throw new Error(
        `${setup.store.location}: the write was refused ${stalled} times although the journal did not change (${tried.why}); the journal is intact, run again`,
      );
    }
    const change = graphChange(setup.graph, cur.state, setup.allowGraphChangeBy);
    if (!change.ok) throw new RunRefused(change.reason);
    const decision = await decide(cur);
    const events = [...change.events, ...decision.events];
    if (events.length === 0 && (cur.version !== null || !create)) return { cur, decision, conflicts };
    let journal = appendEvents(cur.journal, events, (setup.now ?? isoNow)());
    if (change.events.length)
      journal = {
        ...journal,
        graph: { name: setup.graph.name, hash: setup.graph.hash, path: setup.graph.path },
      };
    const message = `interlock: ${setup.runId} ${cur.version === null ? 'RunStarted' : ''}${cur.version === null && events.length ? ', ' : ''}${describe(events)}`;
    let r: Awaited<ReturnType<JournalStore['write']>>;
    try {
      r = await setup.store.write(journal, cur.version, message);
    } catch (e) {
      // Unknown outcome: read again before anything else, and recognise the write if it landed.
      if (!transient(e) || ++unknown > MAX_UNKNOWN_OUTCOMES || conflicts >= MAX_CONFLICTS) throw e;
      r = { ok: false, conflict: (e as Error).message };
    }
    if (r.ok) {
      cur = { journal, version: r.version, state: fold(journal, setup.graph) };
      return { cur, decision, conflicts };
    }
    tried = { journal, decision, from: cur.journal.events.length, version: cur.version, why: r.conflict };
    conflicts++;
    if (conflicts > MAX_CONFLICTS) {
      throw new Error(
        `${setup.store.location}: gave up after ${conflicts} write conflicts; the journal is intact, run again`,
      );
    }
    await new Promise((res) =>
      setTimeout(res, Math.random() * Math.min(200, 5 * 2 ** Math.min(conflicts, 6))),
    );
  }
}

/** Applies a person's settlement (approve, settle, fail) through the same compare-and-swap. */
export async function settleRun(
  setup: RunSetup,
  runner: RunnerInfo,
  decide: (cur: Current) => Settlement,
): Promise<{ ok: true; cur: Current } | { ok: false; reason: string }> {
  const r = await commit(setup, runner, (cur) => {
    if (cur.version === null)
      return { events: [] as NewEvent[], refusal: `no run "${setup.runId}" at ${setup.store.location}` };
    const s = decide(cur);
    if (s.ok) failpoint('before-settle-write');
    return s.ok ? { events: s.events, refusal: undefined } : { events: [] as NewEvent[], refusal: s.reason };
  });
  if (!r.decision.refusal) failpoint('after-settle-write');
  return r.decision.refusal ? { ok: false, reason: r.decision.refusal } : { ok: true, cur: r.cur };
}

/** Recovery: marks in-flight attempts whose executor is provably gone as interrupted. */
export async function recover(
  setup: StepSetup,
): Promise<{ cur: Current; interrupted: string[]; left: Array<{ node: string; why: string }> }> {
  const runner = setup.runner('recovery');
  const r = await commit(setup, runner, async (cur) => {
    if (cur.version === null) return { events: [] as NewEvent[], left: [] };
    const rec = recoverEvents(cur.state, await probed(cur.state, setup.probe), setup.recoveredBy);
    if (rec.events.length) failpoint('before-recover-write');
    return rec;
  });
  if (r.decision.events.length) failpoint('after-recover-write');
  return {
    cur: r.cur,
    interrupted: r.decision.events.map((e) => ('node' in e ? e.node : '')),
    left: r.decision.left,
  };
}

export type StepResult =
  | {
      kind: 'recorded' | 'failed' | 'escalated';
      node: string;
      attempt: number;
      cur: Current;
      message: string;
    }
  | { kind: 'skipped'; node: string; cur: Current; message: string }
  | { kind: 'run-completed' | 'ended' | 'blocked' | 'stale'; cur: Current; message: string };

/** One step of the protocol: recover, decide, dispatch (stored before the work), execute, check, record. */
export async function step(setup: StepSetup, only?: string): Promise<StepResult> {
  const say = setup.say ?? (() => {});
  const execTag = randomUUID();
  const runner = setup.runner(execTag);
  const dispatchTime = new Map<string, string | undefined>();
  failpoint('before-dispatch-write');
  let planned: { node: string; attempt: number; replay: string } | undefined;
  // One read and one write: recovery and the dispatch decision go into the same compare-and-swap.
  const d = await commit(
    setup,
    runner,
    async (cur) => {
      const rec =
        cur.version === null
          ? { events: [] as NewEvent[], left: [] }
          : recoverEvents(cur.state, await probed(cur.state, setup.probe), setup.recoveredBy);
      let { journal, state } = cur;
      if (rec.events.length) {
        journal = appendEvents(journal, rec.events, (setup.now ?? isoNow)());
        state = fold(journal, setup.graph);
      }
      const decision = decideNext(
        setup.graph,
        journal,
        state,
        { ...runner, ...gitBaseOf(setup.cwd, dispatchTime) },
        only,
      );
      planned =
        decision.kind === 'dispatch'
          ? { node: decision.node.id, attempt: decision.attempt, replay: decision.node.replay }
          : undefined;
      if (decision.kind === 'dispatch') failpoint('before-dispatch-write', decision.node.id);
      const writes =
        decision.kind === 'dispatch' ||
        decision.kind === 'skip' ||
        decision.kind === 'complete' ||
        decision.kind === 'precheck_failed';
      return {
        decision,
        recovered: rec.events,
        left: rec.left,
        events: [...rec.events, ...(writes ? decision.events : [])],
      };
    },
    true,
  ).catch((e: unknown) => {
    throw storeFailure(
      e,
      (why) =>
        `${setup.store.location}: this step could not read the journal, recover, or store its dispatch (${why}), so no node ran in it. The journal is intact (every write is a whole compare-and-swap)${planned ? `: as it was, or, if the last write landed although its answer was lost, with "${planned.node}" attempt ${planned.attempt} dispatched by this job, which the next step's recovery marks interrupted (${heldOrRerun(planned.replay)})` : ''}. Run the step again when GitHub answers.`,
    );
  });
  for (const l of d.decision.left) say(`"${l.node}" is in flight and left alone: ${l.why}`);
  for (const e of d.decision.recovered) {
    if (e.type !== 'NodeInterrupted') continue;
    const held = d.cur.state.nodes.get(e.node)?.state === 'held';
    say(
      `recovered: "${e.node}" attempt ${e.attempt} was interrupted; ${held ? 'held until a person approves a rerun or settles it' : 'replay: safe, it runs again'}`,
    );
  }
  const decision = d.decision.decision;
  const cur = d.cur;
  switch (decision.kind) {
    case 'ended':
      return { kind: 'ended', cur, message: `the run has ended (${decision.status}: ${decision.reason})` };
    case 'blocked':
      return { kind: 'blocked', cur, message: decision.reason };
    case 'complete':
      return { kind: 'run-completed', cur, message: 'run completed: every node completed or skipped' };
    case 'skip':
      return {
        kind: 'skipped',
        node: decision.node,
        cur,
        message: `skipped "${decision.node}": no execute_condition was true`,
      };
    case 'precheck_failed': {
      const esc = decision.events.some((e) => e.type === 'NodeEscalated');
      return {
        kind: esc ? 'escalated' : 'failed',
        node: decision.node,
        attempt: decision.attempt,
        cur,
        message: `"${decision.node}" failed its pre-check: ${decision.events.flatMap((e) => (e.type === 'NodeFailed' ? e.failures.map((f) => f.message) : [])).join('; ')}`,
      };
    }
  }
  const { node, attempt, approach, context } = decision;
  failpoint('after-dispatch-write', node.id);
  const dispatchedAt = cur.state.nodes.get(node.id)?.dispatch?.at ?? isoNow();
  say(
    `dispatched "${node.id}" attempt ${attempt} (${approach.label}${approach.description ? `: ${approach.description}` : ''})`,
  );
  const outcome = await executeAttempt(
    setup,
    cur,
    node,
    attempt,
    approach,
    context,
    execTag,
    dispatchedAt,
    dispatchTime.get('head'),
  );
  failpoint('before-record-write', node.id);
  // One write for the result: from the state the dispatch write left, re-reading only on a conflict.
  const r = await commit(
    setup,
    runner,
    (c) => decideResult(setup.graph, c.journal, c.state, node.id, attempt, outcome),
    false,
    cur,
  ).catch((e: unknown) => {
    const result = outcome.failures.length
      ? `it failed: ${outcome.failures.map((f) => `${f.check}: ${f.message}`).join('; ')}`
      : outcome.evidence.length
        ? `${outcome.evidence.length} check(s) passed`
        : 'it succeeded';
    throw storeFailure(
      e,
      (why) =>
        `"${node.id}" attempt ${attempt} ran (${result}) but its result could not be stored (${why}). The journal at ${setup.store.location} is intact and shows the node in flight, dispatched by this job; this job's post step, or the next step's recovery, marks it interrupted (${heldOrRerun(node.replay)}).`,
    );
  });
  failpoint('after-record-write', node.id);
  if (r.decision.kind === 'stale') return { kind: 'stale', cur: r.cur, message: r.decision.reason };
  const secs = (outcome.usage.wall_ms / 1000).toFixed(1);
  if (r.decision.recorded) {
    return {
      kind: 'recorded',
      node: node.id,
      attempt,
      cur: r.cur,
      message: `"${node.id}" attempt ${attempt} recorded in ${secs}s: ${outcome.evidence.length} check(s) passed`,
    };
  }
  const why = outcome.failures.map((f) => `${f.check}: ${f.message}`).join('; ');
  return {
    kind: r.decision.escalated ? 'escalated' : 'failed',
    node: node.id,
    attempt,
    cur: r.cur,
    message: `"${node.id}" attempt ${attempt} failed in ${secs}s (${why})${r.decision.escalated ? '; escalated: it needs a person' : '; it will be retried'}`,
  };
}

function heldOrRerun(replay: string): string {
  return replay === 'safe'
    ? 'replay: safe, it runs again'
    : 'replay: never, so it is held until a person records it (/settle) or approves a rerun (/approve-rerun)';
}

function gitBaseOf(cwd: string, memo: Map<string, string | undefined>): { git_head?: string } {
  if (!memo.has('head')) memo.set('head', gitHead(cwd));
  const head = memo.get('head');
  return head ? { git_head: head } : {};
}

/** Runs the attempt's command and every evidence check; never throws for a failing node. */
async function executeAttempt(
  setup: StepSetup,
  cur: Current,
  node: GraphNode,
  attempt: number,
  approach: Approach,
  context: AttemptContext,
  execTag: string,
  dispatchedAt: string,
  gitBase: string | undefined,
): Promise<AttemptOutcome> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'interlock-'));
  try {
    const outputFile = join(dir, 'output');
    const contextFile = join(dir, 'context.json');
    writeFileSync(outputFile, '');
    writeFileSync(contextFile, `${JSON.stringify(context, null, 2)}\n`);
    const exprCtx = expressionContext(setup.graph, cur.state, attempt);
    const failures: AttemptOutcome['failures'] = [];
    const nodeEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(approach.env)) {
      try {
        nodeEnv[k] = interpolate(v, exprCtx);
      } catch (e) {
        failures.push({ check: `env ${k}`, message: (e as Error).message });
      }
    }
    let stdin: string | undefined;
    if (approach.prompt !== undefined) {
      try {
        stdin = `${interpolate(approach.prompt, exprCtx)}\n\n---\ninterlock context:\n${JSON.stringify(context, null, 2)}\n`;
      } catch (e) {
        failures.push({ check: 'prompt', message: (e as Error).message });
      }
    }
    const env: NodeJS.ProcessEnv = {
      ...setup.baseEnv,
      ...nodeEnv,
      INTERLOCK_RUN_ID: cur.journal.run_id,
      INTERLOCK_NODE: node.id,
      INTERLOCK_ATTEMPT: String(attempt),
      INTERLOCK_IDEMPOTENCY_KEY: context.idempotency_key,
      INTERLOCK_OUTPUT: outputFile,
      INTERLOCK_CONTEXT: contextFile,
      INTERLOCK_EXEC_TAG: execTag,
    };
    let tail = '';
    if (failures.length === 0) {
      const script = approach.run ?? approach.agent!;
      // A command that cannot even start (an env value holding a NUL byte, say) is a failed attempt, not a
      // crash that would leave the attempt in flight.
      const res = await runScript({
        script,
        env,
        cwd: setup.cwd,
        timeoutMs: approach.timeout_minutes * 60_000,
        ...(stdin !== undefined ? { stdin } : {}),
        ...(setup.echo ? { echo: setup.echo } : {}),
        ...(setup.logFile?.(node.id, attempt) ? { logFile: setup.logFile(node.id, attempt)! } : {}),
      }).catch((e: unknown) => {
        failures.push({ check: 'exec', message: `the command could not start: ${(e as Error).message}` });
        return undefined;
      });
      tail = res?.tail ?? '';
      if (res?.timedOut)
        failures.push({
          check: 'timeout',
          message: `killed after timeout_minutes ${approach.timeout_minutes}`,
        });
      else if (res && res.exitCode !== 0) {
        failures.push({
          check: 'exit',
          message: res.exitCode === null ? `killed by ${res.signal}` : `exited ${res.exitCode}`,
        });
      }
    }
    failpoint('after-command', node.id);
    const { outputs, failures: badOutputNames } = splitOutputs(parseOutputFileSafe(outputFile));
    failures.push(...badOutputNames);
    const evidence: Evidence[] = [];
    // Checks may name this attempt's own outputs: nodes.<this node>.outputs.<name>.
    const nodesCtx = exprCtx.nodes as Record<string, { status: string; outputs: Record<string, string> }>;
    const checkCtx: ExpressionContext = {
      ...exprCtx,
      nodes: { ...nodesCtx, [node.id]: { status: 'in_flight', outputs } },
    };
    for (const check of node.validates) {
      let ev: Evidence;
      try {
        ev = await runCheck(interpolateCheck(check, checkCtx), setup.github, {
          cwd: setup.cwd,
          env,
          outputs,
          dispatchedAt,
          ...(gitBase ? { gitBase } : {}),
        });
      } catch (e) {
        ev = {
          check: Object.keys(check)[0] ?? 'check',
          passed: false,
          observed: `the check could not run: ${(e as Error).message}`,
        };
      }
      evidence.push(ev);
      if (!ev.passed) failures.push({ check: ev.check, message: ev.observed });
    }
    for (const promised of node.outputs) {
      if (
        outputs[promised] === undefined &&
        !node.validates.some((c) => 'output' in c && c.output === promised)
      ) {
        failures.push({
          check: `output ${promised}`,
          message: `the node promised output "${promised}" but did not set it`,
        });
      }
    }
    return { failures, evidence, outputs, usage: { wall_ms: Date.now() - started }, output_tail: tail };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseOutputFileSafe(path: string): Record<string, string> {
  try {
    return parseOutputs(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

/** Probes every in-flight attempt once (probes may be slow API calls), then answers recovery synchronously. */
async function probed(
  state: RunState,
  probe: StepSetup['probe'],
): Promise<(node: string, dispatch: DispatchInfo) => Probe> {
  const results = new Map<string, Probe>();
  for (const id of state.checkpoint.active_nodes) {
    const d = state.nodes.get(id)?.dispatch;
    if (d) results.set(id, await probe(id, d));
  }
  return (node) => results.get(node) ?? { gone: false, why: 'not probed', observed_ms: 0 };
}

/** Expands `${{ }}` in a check's strings (e.g. a branch from a node output); never through a shell. */
function interpolateCheck(check: Check, ctx: ExpressionContext): Check {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.includes('${{') ? interpolate(v, ctx) : v;
    if (Array.isArray(v)) return v.map(walk);
    // A command check is a shell script: never expanded (the loader refuses `${{` there too).
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'command' ? x : walk(x)]));
    return v;
  };
  return walk(check) as Check;
}

async function runCheck(check: Check, github: GitHubEvidence | undefined, input: CheckInput) {
  if (isLocalCheck(check) || !github) return runLocalCheck(check, input);
  try {
    return await runGitHubCheck(check, github);
  } catch (e) {
    const kind = Object.keys(check)[0] ?? 'check';
    return { check: kind, passed: false, observed: `GitHub API error: ${(e as Error).message}` };
  }
}
