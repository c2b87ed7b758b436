/**
 * One attempt of a node: its environment and prompt, its command (with a timeout), then its checks; and the
 * attempt boundary the faces may mark (`attemptStarted` / `attemptEnded`, always called as a pair).
 * Never throws for a failing node: every failure is in the outcome.
 */

import type { GitHubEvidence } from '../../evidence/github.js';
import type { Approach, Graph, GraphNode } from '../../graph/model.js';
import { splitOutputs } from '../../journal/events/output-name.js';
import { failpoint } from '../../os/crash-failpoint.js';
import { runScript } from '../../os/exec.js';
import type { Isolation } from '../../os/isolation.js';
import type { AttemptFiles } from '../../os/node-user/node-files.js';
import { type AttemptContext, expressionContext } from '../../protocol/attempt/context.js';
import type { AttemptOutcome } from '../../protocol/decide.js';
import type { EngineRun } from '../../protocol/engines/engine.js';
import { OutputExcerpt } from '../../render/excerpt.js';
import type { DailyCapSource } from '../daily-cap.js';
import type { RunSnapshot } from '../journal-io/read.js';
import {
  agentStderr,
  approachScript,
  type EngineWatch,
  endLive,
  engineEnd,
  engineRun,
  type LiveSink,
  liveFor,
  watchEngine,
} from './agent-run.js';
import { attemptChecks } from './attempt-checks.js';
import { shownPath } from './checks-live-log.js';
import { attemptEnv } from './env.js';
import {
  CONTEXT,
  makeAttemptFiles,
  OUTPUT,
  readOutputs,
  readUsageText,
  USAGE,
  writeContext,
} from './files.js';
import { expandInputs } from './inputs.js';
import { type AttemptTab, openMeter, type Recordings } from './metered.js';
import {
  type AttemptNetwork,
  attemptNetwork,
  connectionsOf,
  type NetworkSetup,
  refusedNetwork,
} from './network.js';
import { carrySession, keepSession, type SessionCache, transcriptsOf } from './session-carry.js';
import { type Overdue, softTimer } from './soft-timer.js';
import { AGENT_STDOUT_BYTES, readAttemptUsage } from './usage-read.js';

/** Which attempt a boundary hook is about. */
export interface AttemptMark {
  node: string;
  attempt: number;
  /** The approach's label (`default`, or the retry's). */
  approach: string;
}

/** What an attempt needs from the step's setup. */
export interface AttemptSetup extends NetworkSetup {
  graph: Graph;
  cwd: string;
  /** The environment the node's command inherits (PATH, HOME, the step's secrets). */
  baseEnv: NodeJS.ProcessEnv;
  /** What keeps the node apart from the step: which credentials it may have (src/os/isolation.ts). */
  isolation: Isolation;
  /** Answers the GitHub evidence checks; without it they fail with a clear reason. */
  github?: GitHubEvidence;
  /** Live output of the node's command. */
  echo?: (chunk: Buffer) => void;
  /**
   * Whether `echo` also gets an engine agent's raw stream (its JSON events), which the attempt's log keeps and
   * its live steps sum up; default true. The CLI gives it only with `--verbose`.
   */
  echoAgentStream?: boolean;
  /** A file that keeps an attempt's whole output. */
  logFile?: (node: string, attempt: number) => string | undefined;
  /** Where a metered attempt's model exchange is kept (the Action's); without it, beside `logFile`. */
  recordings?: Recordings;
  /** Called before an attempt's work starts (before its dispatch is announced and its command runs). */
  attemptStarted?: (mark: AttemptMark) => void;
  /** Called after the attempt's checks, also when it failed, timed out or threw. */
  attemptEnded?: (mark: AttemptMark) => void;
  /** The paths an effect may not change (the Action: the default branch's `protected_paths`, the graph, skills). */
  protectedPaths?: () => Promise<string[]>;
  /** Called once when the attempt passes a soft bound of its node (it goes on). */
  overdue?: (o: Overdue) => void;
  /** Live output of one evidence command (the Action: a log group per check). */
  checkOutput?: (mark: AttemptMark, check: string) => LiveCheckOutput;
  /** Carries a session's files between workflow runs (the Action: the Actions cache). */
  sessionCache?: SessionCache;
  /** Progress messages for people. */
  say?: (message: string) => void;
  /** The daily cost cap as this step counted it (the key proxy stops an attempt's calls at what is left). */
  dailyCap?: DailyCapSource;
  /** Where an engine attempt's live view goes (issue 38), for the snapshot its dispatch wrote. */
  live?: (cur: RunSnapshot, mark: AttemptMark) => LiveSink | undefined;
}

/** Where one evidence command's output goes live, and where a person finds it afterwards. */
interface LiveCheckOutput {
  echo: (chunk: Buffer) => void;
  end: () => void;
  /** Recorded with a failure as `log` when no log file keeps the output (`step log`). */
  where?: string;
}

export interface AttemptOptions {
  cur: RunSnapshot;
  node: GraphNode;
  attempt: number;
  approach: Approach;
  context: AttemptContext;
  execTag: string;
  /** When the dispatch was journaled: `git` checks count commits since then. */
  dispatchedAt: string;
  /** The commit checked out at dispatch, for `git` checks. */
  gitBase: string | undefined;
}

/** Runs `work` between the setup's two boundary hooks; the closing one runs whatever happens. */
export async function withinAttempt<T>(
  setup: Pick<AttemptSetup, 'attemptStarted' | 'attemptEnded'>,
  mark: AttemptMark,
  work: () => Promise<T>,
): Promise<T> {
  setup.attemptStarted?.(mark);
  try {
    return await work();
  } finally {
    setup.attemptEnded?.(mark);
  }
}

type Failures = AttemptOutcome['failures'];

/** Runs the approach's command; a command that cannot start, times out or exits non-zero is a failure. */
export async function runCommand(
  setup: AttemptSetup,
  opts: AttemptOptions,
  run: {
    env: NodeJS.ProcessEnv;
    stdin: string | undefined;
    watch: EngineWatch | undefined;
    engine: EngineRun;
    network: AttemptNetwork;
  },
): Promise<{ tail: string; stdout: string | undefined; failures: Failures }> {
  const { approach, node, attempt } = opts;
  const failures: Failures = [];
  const logFile = setup.logFile?.(node.id, attempt);
  const excerpt = new OutputExcerpt();
  const shown = run.watch && setup.echoAgentStream === false ? undefined : setup.echo;
  const echo = (chunk: Buffer) => {
    excerpt.push(chunk);
    shown?.(chunk);
  };
  const cancelSoft = softTimer(setup, node);
  // What an agent's CLI says on stderr when it cannot work (not found, a usage error) goes into its failure.
  const stderr = agentStderr(approach);
  // A command that cannot even start (an env value holding a NUL byte, say) is a failed attempt, not a
  // crash that would leave the attempt in flight.
  const res = await runScript({
    script: approachScript(approach, run.engine),
    env: run.env,
    grants: setup.isolation.credentials,
    cwd: setup.cwd,
    timeoutMs: approach.timeout_minutes * 60_000,
    ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
    echo,
    ...(logFile ? { logFile } : {}),
    // A prompt node's agent may end with a JSON result that says what it used.
    ...(approach.prompt !== undefined ? { keepStdout: AGENT_STDOUT_BYTES } : {}),
    ...(run.watch ? { onStdout: run.watch.onStdout, signal: run.watch.signal } : {}),
    ...(stderr ? { onStderr: stderr.push } : {}),
    ...(run.network.kind === 'namespaced' ? { network: run.network.scope } : {}),
  }).catch((e: unknown) => {
    failures.push({ check: 'exec', message: `the command could not start: ${(e as Error).message}` });
    return undefined;
  });
  cancelSoft();
  if (res?.survivors) failures.push({ check: 'processes', message: res.survivors });
  if (res?.timedOut)
    failures.push({ check: 'timeout', message: `killed after timeout_minutes ${approach.timeout_minutes}` });
  else if (res && res.exitCode !== 0) {
    const e = excerpt.finish();
    const exit = {
      check: 'exit',
      message: res.exitCode === null ? `killed by ${res.signal}` : `exited ${res.exitCode}`,
      ...(e ? { excerpt: e.text } : {}),
      ...(e && logFile ? { log: shownPath(setup.cwd, logFile) } : {}),
    };
    failures.push(stderr ? stderr.failure(exit, res.exitCode) : exit);
  }
  return { tail: res?.tail ?? '', stdout: res?.stdout, failures };
}

/** The engine run this attempt can have here (its session carried, or dropped), and what the attempt is told. */
async function resumable(setup: AttemptSetup, opts: AttemptOptions, files: AttemptFiles) {
  const { cur, node, context } = opts;
  const base = engineRun(setup.graph, cur.journal, node, opts.approach);
  const carried = await carrySession(setup, cur.journal.run_id, node, base);
  if (!carried.fresh) return { engine: carried.run, told: context };
  const told = { ...context, fresh_session: carried.fresh };
  writeContext(files, told);
  return { engine: carried.run, told };
}

/** Runs the attempt's command and every evidence check; never throws for a failing node. */
export async function executeAttempt(setup: AttemptSetup, opts: AttemptOptions): Promise<AttemptOutcome> {
  const { cur, node, attempt, context } = opts;
  const started = Date.now();
  const exprCtx = expressionContext({ graph: setup.graph, state: cur.state, attempt, node: node.id });
  // An effect's code is loaded only by a step that performs one.
  if (node.effect)
    return await (await import('../effects/effect-attempt.js')).effectAttempt(setup, opts, exprCtx, {
      started,
    });
  const files = makeAttemptFiles(context);
  let tab: AttemptTab | undefined;
  try {
    const network = attemptNetwork(setup, setup.graph, node);
    if (network.kind === 'refused') return refusedNetwork(network.message, started);
    const { engine, told } = await resumable(setup, opts, files);
    const inputs = expandInputs(opts.approach, exprCtx, told);
    const paths = {
      outputFile: files.path(OUTPUT),
      contextFile: files.path(CONTEXT),
      usageFile: files.path(USAGE),
    };
    const env = attemptEnv(setup, opts, inputs.env, paths);
    const live = liveFor(
      setup.live,
      cur,
      { node: node.id, attempt, approach: opts.approach.label },
      opts.approach,
    );
    const watch = watchEngine(opts.approach, node, setup.graph, cur.state, setup.overdue, live);
    tab = openMeter(setup, opts, watch);
    const ran = inputs.failures.length
      ? { tail: '', stdout: undefined, failures: [] }
      : await runCommand(setup, opts, { env, stdin: inputs.stdin, watch, engine, network });
    failpoint('after-command', node.id);
    if (watch?.stopped()) failpoint('after-budget-stop', node.id);
    const agent = watch && !inputs.failures.length ? engineEnd(opts.approach, engine, ran, watch) : undefined;
    const transcripts = agent ? transcriptsOf(node, agent.report.engine) : {};
    if (agent)
      await keepSession(setup, cur.journal.run_id, node, agent.report.engine, agent.report.session_id);
    await endLive(watch, live, node, agent?.usage.usage.cost_usd);
    // A file the node broke (a link, a FIFO, past its bound) fails the attempt, named (src/os/node-user/node-files.ts).
    const broken: Failures = [];
    const { outputs, failures: badOutputNames } = splitOutputs(readOutputs(files, OUTPUT, broken));
    const usageText = readUsageText(files, broken);
    const checked = agent?.skipChecks
      ? { evidence: [], failures: [] }
      : await attemptChecks(setup, opts, { exprCtx, env, outputs, network });
    const own = agent?.failures ?? ran.failures;
    const failures = [...inputs.failures, ...own, ...broken, ...badOutputNames, ...checked.failures];
    const warn = (m: string) => setup.echo?.(Buffer.from(`${m}\n`));
    const reported = readAttemptUsage({
      wallMs: Date.now() - started,
      agentStdout: ran.stdout,
      ...(agent ? { agent: agent.usage } : {}),
      usageText,
      warn,
    });
    const metered = await tab?.close(reported, warn);
    if (metered?.stopped && !failures.some((f) => f.check === 'budget')) failures.unshift(metered.stopped);
    const usage = metered?.usage ?? reported;
    // The session's transcripts as the agent left them: the next node of the session resumes them only unchanged.
    const report = agent ? { agent: { ...agent.report, ...transcripts } } : {};
    const connections = connectionsOf(setup, node.id, attempt, network);
    return {
      failures,
      evidence: checked.evidence,
      outputs,
      usage,
      output_tail: ran.tail,
      ...report,
      ...connections,
    };
  } finally {
    tab?.shut();
    files.close();
  }
}
