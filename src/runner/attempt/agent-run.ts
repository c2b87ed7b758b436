/**
 * A prompt node whose agent is an engine: its command with interlock's arguments, its output watched while it
 * runs (stopped, process group and all, once it is over what the attempt may use), and what it said at the end:
 * usage, session, final message, and an end that fails the attempt (an API error, its turn limit, a stop).
 */
import type { Approach, Graph, GraphNode } from '../../graph/model.js';
import { runSpent } from '../../journal/checkpoint-usage.js';
import type { Journal } from '../../journal/events/events.js';
import type { Failure } from '../../journal/events/fields.js';
import type { RunState } from '../../journal/state.js';
import { agentCredentialsEnv } from '../../os/node-user/node-credentials.js';
import type { AgentReport } from '../../protocol/decide.js';
import { agentExitFailure } from '../../protocol/engines/agent-setup.js';
import { type EngineRun, engineCommand, readEngine } from '../../protocol/engines/engine.js';
import { EngineMeter, type LiveLimits, overLiveLimit } from '../../protocol/engines/meter.js';
import type { UsageReading } from '../../protocol/engines/reported-usage.js';
import { sessionToResume } from '../../protocol/engines/sessions.js';
import type { AgentStep } from '../../protocol/engines/steps.js';
import type { LiveView } from '../../render/live/live.js';
import type { RunSnapshot } from '../journal-io/read.js';
import type { AttemptMark } from './attempt.js';
import type { Overdue } from './soft-timer.js';

/** How much of an agent's final message the journal keeps (later nodes are told it). */
const FINAL_MESSAGE_CHARS = 2000;

/** What the engine is asked for this attempt: its turn limit, the session it continues, the key proxy's URL. */
export function engineRun(graph: Graph, journal: Journal, node: GraphNode, approach: Approach): EngineRun {
  const resume = sessionToResume(graph, journal, node, approach);
  const openai = agentCredentialsEnv().OPENAI_BASE_URL;
  return {
    ...(node.budget?.turns !== undefined ? { maxTurns: node.budget.turns } : {}),
    ...(resume ? { resume } : {}),
    ...(openai && approach.engine === 'codex' ? { openaiBaseUrl: openai } : {}),
  };
}

/** The script an approach runs: `run`, the agent command, or the agent command with the engine's arguments. */
export function approachScript(approach: Approach, run: EngineRun): string {
  if (approach.run !== undefined) return approach.run;
  if (approach.engine && approach.prompt !== undefined)
    return engineCommand(approach.agent!, approach.engine, run);
  return approach.agent!;
}

/** The most stderr an agent's failure is read from (its first lines are what it quotes). */
const STDERR_HEAD_CHARS = 8192;

/** An agent command's stderr, kept from its start, and its exit failure put in words; undefined for `run:`. */
export function agentStderr(approach: Approach) {
  if (approach.prompt === undefined || approach.agent === undefined) return undefined;
  const agent = approach.agent;
  let text = '';
  return {
    push: (chunk: Buffer) => {
      if (text.length < STDERR_HEAD_CHARS)
        text += chunk.toString('utf8').slice(0, STDERR_HEAD_CHARS - text.length);
    },
    failure: (exit: Failure, exitCode: number | null): Failure =>
      agentExitFailure(exit, { exitCode, stderr: text, agent, engine: approach.engine }),
  };
}

/** Where an engine attempt's live view goes (the Action: the progress comment and the step log). */
export interface LiveSink {
  /** A new step (or several): the view as it stands, and the steps just taken. */
  step: (view: LiveView, steps: AgentStep[]) => void;
  /** The agent's command ended: the final view, awaited before the attempt's record. */
  end: (view: LiveView) => Promise<void>;
}

/** The live view of an attempt from its meter. */
function liveView(
  meter: EngineMeter,
  node: GraphNode,
  attempt: number,
  started: number,
  end?: { cost_usd?: number | undefined },
): LiveView {
  return {
    node: node.id,
    attempt,
    elapsedMs: Date.now() - started,
    usage: meter.usage(),
    ...(end?.cost_usd !== undefined ? { cost_usd: end.cost_usd } : {}),
    ...(node.budget ? { budget: node.budget } : {}),
    steps: [...meter.steps],
    stepCount: meter.stepCount,
    state: end ? 'ended' : 'running',
  };
}

/** The live sink of an engine attempt, when the face keeps a live view; undefined for other attempts. */
export function liveFor(
  make: ((cur: RunSnapshot, mark: AttemptMark) => LiveSink | undefined) | undefined,
  cur: RunSnapshot,
  mark: AttemptMark,
  approach: Approach,
): { sink: LiveSink; attempt: number } | undefined {
  const sink = approach.engine && approach.prompt !== undefined ? make?.(cur, mark) : undefined;
  return sink ? { sink, attempt: mark.attempt } : undefined;
}

/** The final live view once the agent's command ended (its cost, when the engine reported one). */
export async function endLive(
  watch: EngineWatch | undefined,
  live: { sink: LiveSink; attempt: number } | undefined,
  node: GraphNode,
  cost: unknown,
): Promise<void> {
  if (!watch || !live) return;
  const end = typeof cost === 'number' ? { cost_usd: cost } : {};
  await live.sink.end(liveView(watch.meter, node, live.attempt, watch.started, end));
}

/** An engine's output read as it comes, and the stop it may call. */
export interface EngineWatch {
  onStdout: (chunk: Buffer) => void;
  signal: AbortSignal;
  /** Why the agent was stopped, once it was. */
  stopped: () => string | undefined;
  /** Stops the agent, saying why (the key proxy refused its call at a limit). */
  stop: (why: string) => void;
  meter: EngineMeter;
  /** When the watch began (the live view's elapsed time). */
  started: number;
}

/** Watches an engine's agent against the node's budget and what is left of the run's; undefined for others. */
export function watchEngine(
  approach: Approach,
  node: GraphNode,
  graph: Graph,
  state: RunState,
  overdue?: (o: Overdue) => void,
  live?: { sink: LiveSink; attempt: number },
): EngineWatch | undefined {
  if (!approach.engine || approach.prompt === undefined) return undefined;
  const meter = new EngineMeter(approach.engine);
  const limits: LiveLimits = {
    ...(node.budget ? { node: node.budget } : {}),
    ...(graph.budget ? { run: { budget: graph.budget, spent: runSpent(graph, state.nodes) } } : {}),
  };
  const abort = new AbortController();
  let why: string | undefined;
  const softTurns = node.soft?.turns;
  let overdueSaid = false;
  const started = Date.now();
  let seen = 0;
  return {
    meter,
    started,
    signal: abort.signal,
    stopped: () => why,
    stop: (w) => {
      if (why) return;
      why = w;
      abort.abort();
    },
    onStdout: (chunk) => {
      meter.push(chunk);
      if (live && meter.stepCount > seen) {
        const fresh = meter.steps.slice(-Math.min(meter.stepCount - seen, meter.steps.length));
        seen = meter.stepCount;
        live.sink.step(liveView(meter, node, live.attempt, started), fresh);
      }
      const turns = meter.usage().turns;
      if (softTurns !== undefined && !overdueSaid && turns > softTurns) {
        overdueSaid = true;
        overdue?.({ bound: 'soft_turns', limit: softTurns, observed: turns });
      }
      if (why) return;
      why = overLiveLimit(limits, meter.usage());
      if (why) abort.abort();
    },
  };
}

/** What the attempt's failures, usage and agent report are once an engine's agent ended. */
export interface EngineEnd {
  failures: Failure[];
  usage: UsageReading;
  report: AgentReport;
  /** The agent did not get to finish (an API error, a budget stop): its evidence is not checked. */
  skipChecks: boolean;
}

/** Reads how an engine's agent ended; `failures` are the command's own (exit, timeout). */
export function engineEnd(
  approach: Approach,
  run: EngineRun,
  ran: { stdout: string | undefined; failures: Failure[] },
  watch: EngineWatch,
): EngineEnd {
  const engine = approach.engine!;
  const reading = readEngine(engine, ran.stdout ?? '', run);
  const report: AgentReport = {
    engine,
    ...(run.resume ? { resumed_session: run.resume.id } : {}),
    ...(reading.session_id ? { session_id: reading.session_id } : {}),
    ...(reading.final_message !== undefined
      ? { final_message: reading.final_message.slice(0, FINAL_MESSAGE_CHARS) }
      : {}),
  };
  const stoppedWhy = watch.stopped();
  if (stoppedWhy) {
    // Killed mid-way: no result; what the meter saw is the attempt's usage (the engine's own numbers win).
    const live = watch.meter.usage();
    const seen = { turns: live.turns, input_tokens: live.input_tokens, output_tokens: live.output_tokens };
    return {
      failures: [{ check: 'budget', message: stoppedWhy }],
      usage: { usage: { ...seen, ...reading.usage.usage }, warnings: [] },
      report,
      skipChecks: true,
    };
  }
  if (reading.failure) {
    const own = ran.failures.filter((f) => f.check !== 'exit');
    return { failures: [...own, reading.failure], usage: reading.usage, report, skipChecks: true };
  }
  return { failures: ran.failures, usage: reading.usage, report, skipChecks: false };
}
