/**
 * A serialized chain's one call: every node's task in one prompt to the agent (the first node's command, with the
 * chain's summed limits), then each node's evidence checked in order, its outputs read from a file of its own
 * (`$INTERLOCK_OUTPUTS/<node>`), until the first node that does not pass. The call's usage is the first node's
 * (metered at the key proxy as one attempt's, its recording beside the first node's log); each node after it
 * carries the session and the time its own checks took. Never throws for a failing node.
 */

import { dirname } from 'node:path';
import { type ExpressionContext, interpolate } from '../../expressions/evaluate.js';
import type { GraphNode } from '../../graph/model.js';
import { fileNameOf } from '../../graph/schema/subgraph.js';
import { splitOutputs } from '../../journal/events/output-name.js';
import { failpoint } from '../../os/crash-failpoint.js';
import type { AttemptFiles } from '../../os/node-user/node-files.js';
import { expressionContext } from '../../protocol/attempt/context.js';
import { type ChainTask, chainPrompt } from '../../protocol/attempt/serialized-prompt.js';
import type { ChainMember } from '../../protocol/chain-dispatch.js';
import type { AttemptOutcome } from '../../protocol/decide.js';
import { type ChainOutcome, chainBudget, chainTimeoutMinutes } from '../../protocol/serialized.js';
import { type EngineEnd, engineEnd, engineRun, watchEngine } from '../attempt/agent-run.js';
import { type AttemptOptions, type AttemptSetup, runCommand } from '../attempt/attempt.js';
import { runChecks } from '../attempt/checks.js';
import { checkOutputs } from '../attempt/checks-live-log.js';
import { attemptEnv } from '../attempt/env.js';
import { CONTEXT, makeChainFiles, readOutputs, readUsageText, USAGE } from '../attempt/files.js';
import { type AttemptTab, openMeter } from '../attempt/metered.js';
import { type AttemptNetwork, attemptNetwork, connectionsOf, refusedNetwork } from '../attempt/network.js';
import { carrySession, keepSession, transcriptsOf } from '../attempt/session-carry.js';
import { readAttemptUsage } from '../attempt/usage-read.js';

type ChainPart = Pick<ChainMember, 'node' | 'attempt' | 'approach' | 'context'>;
type NodesContext = Record<string, { status: string; outputs: Record<string, string> }>;

/** The chain's first node as the one call sees it: the chain's budget and timeout. */
function callNode(chain: readonly GraphNode[]): { node: GraphNode; timeout: number } {
  const head = chain[0]!;
  const budget = chainBudget(chain);
  const { budget: _own, ...rest } = head;
  return { node: budget ? { ...rest, budget } : rest, timeout: chainTimeoutMinutes(chain) };
}

/** The chain's env (the first node's, which every node of the chain shares) and each node's task, expanded. */
function chainInputs(
  parts: readonly ChainPart[],
  exprCtx: ExpressionContext,
): { env: Record<string, string>; tasks: ChainTask[] } | { failure: { check: string; message: string } } {
  try {
    const env = Object.fromEntries(
      Object.entries(parts[0]!.approach.env).map(([k, v]) => [k, interpolate(v, exprCtx)]),
    );
    const tasks = parts.map((p) => ({
      prompt: interpolate(p.approach.prompt ?? '', exprCtx),
      context: p.context,
    }));
    return { env, tasks };
  } catch (e) {
    return { failure: { check: 'prompt', message: (e as Error).message } };
  }
}

/** A chain node's outputs file among the chain's files. */
const outputName = (node: GraphNode) => `outputs/${fileNameOf(node.id)}`;

/** The chain call's environment (the one builder, src/runner/attempt/env.ts): the first node's, with each node's outputs file in `$INTERLOCK_OUTPUTS`. */
function chainEnv(
  setup: AttemptSetup,
  opts: AttemptOptions,
  chain: readonly GraphNode[],
  f: { env: Record<string, string>; files: AttemptFiles },
): NodeJS.ProcessEnv {
  const outputFile = f.files.path(outputName(opts.node));
  return attemptEnv(setup, opts, f.env, {
    outputFile,
    contextFile: f.files.path(CONTEXT),
    usageFile: f.files.path(USAGE),
    chain: { outputsDir: dirname(outputFile), nodes: chain.map((n) => n.id) },
  });
}

/**
 * The call's usage: what the key proxy metered counting, when it metered (a stop at a limit is then the first
 * node's failure), else what the agent reported.
 */
async function callUsageOf(
  tab: AttemptTab | undefined,
  agent: { failures: AttemptOutcome['failures'] },
  read: Parameters<typeof readAttemptUsage>[0],
): Promise<AttemptOutcome['usage']> {
  const reported = readAttemptUsage(read);
  const metered = await tab?.close(reported, read.warn);
  if (metered?.stopped && !agent.failures.some((f) => f.check === 'budget'))
    agent.failures = [metered.stopped, ...agent.failures];
  return metered?.usage ?? reported;
}

/** Runs the chain whose first node `opts` dispatched; its outcomes in chain order, up to the first that fails. */
export async function executeChain(
  setup: AttemptSetup,
  opts: AttemptOptions,
  members: readonly ChainMember[],
): Promise<ChainOutcome[]> {
  const { cur, node: head, context } = opts;
  const parts = [{ node: head, attempt: opts.attempt, approach: opts.approach, context }, ...members];
  const chain = parts.map((p) => p.node);
  const started = Date.now();
  const files = makeChainFiles(
    parts.map((p) => fileNameOf(p.node.id)),
    { chain: parts.map((p) => p.context) },
  );
  let tab: AttemptTab | undefined;
  try {
    const exprCtx = expressionContext({ graph: setup.graph, state: cur.state, attempt: opts.attempt });
    const inputs = chainInputs(parts, exprCtx);
    if ('failure' in inputs)
      return [
        {
          node: head.id,
          attempt: opts.attempt,
          outcome: { failures: [inputs.failure], evidence: [], outputs: {}, usage: { wall_ms: 0 } },
        },
      ];
    const runEnv = chainEnv(setup, opts, chain, { env: inputs.env, files });
    const tasks = inputs.tasks;
    const call = callNode(chain);
    const approach = { ...opts.approach, timeout_minutes: call.timeout };
    const watch = watchEngine(approach, call.node, setup.graph, cur.state, setup.overdue)!;
    const carried = await carrySession(
      setup,
      cur.journal.run_id,
      head,
      engineRun(setup.graph, cur.journal, call.node, approach),
    );
    const engine = carried.run;
    if (carried.fresh)
      tasks[0] = { ...tasks[0]!, context: { ...tasks[0]!.context, fresh_session: carried.fresh } };
    const stdin = chainPrompt(head.session!.name, tasks);
    // The call runs under the calling node's network (issue 27); where it cannot have one, nothing runs.
    const network = attemptNetwork(setup, setup.graph, call.node);
    if (network.kind === 'refused')
      return [{ node: head.id, attempt: opts.attempt, outcome: refusedNetwork(network.message, started) }];
    const callOpts = { ...opts, approach, node: call.node };
    // The call's model calls are metered (and recorded) as one attempt's: the first node's, under the chain's limits.
    tab = openMeter(setup, callOpts, watch);
    const ran = await runCommand(setup, callOpts, { env: runEnv, stdin, watch, engine, network });
    failpoint('after-command', head.id);
    const ended = engineEnd(approach, engine, ran, watch);
    // The session's transcripts as the call left them: each node's record carries their hash.
    const agent = { ...ended, report: { ...ended.report, ...transcriptsOf(head, ended.report.engine) } };
    await keepSession(setup, cur.journal.run_id, head, agent.report.engine, agent.report.session_id);
    const callUsage = await callUsageOf(tab, agent, {
      wallMs: Date.now() - started,
      agentStdout: ran.stdout,
      agent: agent.usage,
      usageText: readUsageText(files, agent.failures),
      warn: (m) => setup.echo?.(Buffer.from(`${m}\n`)),
    });
    return await checkInOrder(setup, opts, {
      parts,
      files,
      runEnv,
      exprCtx,
      agent,
      callUsage,
      tail: ran.tail,
      network,
    });
  } finally {
    tab?.shut();
    files.close();
  }
}

/** What checking the chain's nodes needs from its call. */
interface Called {
  parts: readonly ChainPart[];
  files: AttemptFiles;
  runEnv: NodeJS.ProcessEnv;
  exprCtx: ExpressionContext;
  agent: EngineEnd;
  callUsage: AttemptOutcome['usage'];
  tail: string;
  /** The call's network: every node's checks run in it, as a node's own checks run in its attempt's. */
  network: AttemptNetwork;
}

/** Each node's evidence checked in order, up to the first node that does not pass. */
async function checkInOrder(setup: AttemptSetup, opts: AttemptOptions, c: Called): Promise<ChainOutcome[]> {
  const { parts, files, runEnv, exprCtx, agent, callUsage } = c;
  const { final_message, ...report } = agent.report;
  // Later nodes of the chain name the call's session, not the one it resumed.
  const { resumed_session: _resumed, ...later } = report;
  const outcomes: ChainOutcome[] = [];
  const nodesCtx: NodesContext = { ...(exprCtx.nodes as NodesContext) };
  for (const [i, p] of parts.entries()) {
    const t0 = Date.now();
    const broken: AttemptOutcome['failures'] = [];
    const { outputs, failures: badNames } = splitOutputs(readOutputs(files, outputName(p.node), broken));
    const checked =
      i === 0 && agent.skipChecks
        ? { evidence: [], failures: [] }
        : await runChecks({
            node: p.node,
            context: { ...exprCtx, nodes: { ...nodesCtx, [p.node.id]: { status: 'in_flight', outputs } } },
            github: setup.github,
            input: {
              cwd: setup.cwd,
              grants: setup.isolation.credentials,
              env: {
                ...runEnv,
                INTERLOCK_NODE: p.node.id,
                INTERLOCK_OUTPUT: files.path(outputName(p.node)),
              },
              outputs,
              dispatchedAt: opts.dispatchedAt,
              ...(c.network.kind === 'namespaced' ? { network: c.network.scope } : {}),
              ...(opts.gitBase ? { gitBase: opts.gitBase } : {}),
              commandOutput: checkOutputs(setup, { ...opts, node: p.node, attempt: p.attempt }),
            },
          });
    const failures = [...(i === 0 ? agent.failures : []), ...broken, ...badNames, ...checked.failures];
    const last = failures.length > 0 || i === parts.length - 1;
    const outcome: AttemptOutcome = {
      failures,
      evidence: checked.evidence,
      outputs,
      usage: i === 0 ? callUsage : { wall_ms: Date.now() - t0 },
      ...(i === 0 ? { output_tail: c.tail } : {}),
      ...(last ? connectionsOf(setup, p.node.id, p.attempt, c.network) : {}),
      agent: {
        ...(i === 0 ? report : later),
        // The agent's last words are the whole chain's: kept once, with the last node the call got to.
        ...(last && final_message !== undefined ? { final_message } : {}),
      },
    };
    outcomes.push({ node: p.node.id, attempt: p.attempt, outcome });
    if (failures.length || (i === 0 && agent.skipChecks)) break;
    nodesCtx[p.node.id] = { status: 'completed', outputs };
  }
  return outcomes;
}
