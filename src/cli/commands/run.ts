/**
 * `interlock run <graph>`: one step (`--node ID`, or the next ready node), or every step until the run stops
 * (`--all`), through the engine's `runSteps`; each step's result on stderr, and an exit code for scripts.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ConfigLoader } from '../../config/load.js';
import { suggestion } from '../../graph/errors.js';
import { type Graph, nodeById } from '../../graph/model.js';
import { guardCheckout } from '../../os/git/git-guard.js';
import { serveAgentCredentials } from '../../os/proxies/key-proxy.js';
import { parseAgentCredentials } from '../../os/proxies/key-proxy-rules.js';
import { relativeToWorkspace } from '../../os/workspace-path.js';
import { loadGraphFile } from '../../runner/journal-io/graph-file.js';
import type { RunSetup } from '../../runner/journal-io/read.js';
import type { StepResult } from '../../runner/step-result.js';
import { runSteps } from '../../runner/steps.js';
import { FileStore } from '../../store/file.js';
import { cliConfig, cliDailyCap, cliModelPrices } from '../daily-cap.js';
import { EXIT, type Io, person, UsageError } from '../io.js';
import { checkRunId, journalPath, makeRunsFolder } from '../journals.js';
import { afterEnded } from '../next-steps.js';
import { parseInputs, readEvent, stepSetup } from '../setup.js';
import { inFlight, nextHint } from './status.js';

const STEP_EXIT: Record<string, number> = {
  recorded: EXIT.ok,
  skipped: EXIT.ok,
  'run-completed': EXIT.ok,
  failed: EXIT.failed,
  escalated: EXIT.failed,
  stale: EXIT.failed,
  blocked: EXIT.blocked,
  'awaiting-approval': EXIT.blocked,
  expanded: EXIT.ok,
  joined: EXIT.ok,
};

const MARK: Record<StepResult['kind'], string> = {
  recorded: '✓',
  skipped: '↷',
  failed: '✗',
  escalated: '⚠',
  'run-completed': '★',
  ended: '■',
  blocked: '⏸',
  'awaiting-approval': '✋',
  stale: '?',
  expanded: '⋔',
  joined: '⋈',
};

/** Prints one step's result, and the run's end when this step ended it. */
function report(io: Io, r: StepResult, ms: number): void {
  io.err(`${MARK[r.kind]} ${r.message}${'node' in r ? ` [${(ms / 1000).toFixed(1)}s]` : ''}\n`);
  const ended = r.cur.state.checkpoint.ended;
  if (ended && r.kind !== 'ended' && r.kind !== 'run-completed')
    io.err(`${ended.type === 'RunCompleted' ? '★ run completed' : '■ run failed'}: ${ended.reason}\n`);
}

/**
 * The exit code: a failed run fails; a node asked for that was already completed counts as blocked (this process
 * ran nothing, as when another process holds the node); otherwise the last step's kind.
 */
function exitCode(r: StepResult, all: boolean): number {
  const ended = r.cur.state.checkpoint.ended;
  if (r.kind === 'ended' || (all && ended))
    return ended?.type === 'RunFailed' ? EXIT.failed : (STEP_EXIT[r.kind] ?? EXIT.ok);
  if (r.kind === 'recorded' && r.already) return EXIT.blocked;
  return STEP_EXIT[r.kind]!;
}

/** `--agent-credentials NAMES`: the model keys are served through the key proxy while the steps run. */
async function withModelKeys<T>(
  io: Io,
  config: ConfigLoader,
  given: string[] | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (!given) return work();
  let names: string[];
  try {
    names = parseAgentCredentials(given.join(' '), '--agent-credentials');
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const proxy = await serveAgentCredentials(names, io.env, [], await cliModelPrices(config));
  if (!proxy) io.err(`interlock: --agent-credentials: none of ${names.join(', ')} is set; no key proxy\n`);
  else
    io.err(
      `interlock: ${proxy.withheld.join(', ')} served through the key proxy on 127.0.0.1:${proxy.port}; nodes get a placeholder\n`,
    );
  try {
    return await work();
  } finally {
    await proxy?.stop();
  }
}

/** `--node ID` names a node of the graph (an instance `b[x]` or a sub-graph's node `b/x` included), before any run is made. */
function checkNode(graph: Graph, graphPath: string, id: string): void {
  if (nodeById(graph, id)) return;
  const ids = graph.nodes.map((n) => n.id);
  throw new UsageError(
    `--node "${id}": ${graphPath} has no node of that id${suggestion(id, ids)}; its nodes: ${ids.join(', ')}. Nothing was run or written`,
  );
}

export async function cmdRun(io: Io, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      journal: { type: 'string' },
      'run-id': { type: 'string' },
      node: { type: 'string' },
      all: { type: 'boolean' },
      event: { type: 'string' },
      input: { type: 'string', multiple: true },
      'allow-graph-change': { type: 'boolean' },
      'assume-dead': { type: 'boolean' },
      by: { type: 'string' },
      quiet: { type: 'boolean' },
      verbose: { type: 'boolean' },
      'agent-credentials': { type: 'string', multiple: true },
    },
  });
  const graphPath = positionals[0];
  if (!graphPath || positionals.length > 1) throw new UsageError('usage: interlock run <graph> [options]');
  if (values.node && values.all) throw new UsageError('give --node ID or --all, not both');
  // The journal names the graph relative to the repository, wherever the command was given it.
  const recorded = relativeToWorkspace(io.cwd, graphPath, 'the graph');
  const graph = { ...loadGraphFile(resolve(io.cwd, recorded)), path: recorded };
  if (values.node !== undefined) checkNode(graph, graphPath, values.node);
  const runId = checkRunId(values['run-id'] ?? graph.name);
  const journalFile = journalPath(io, values.journal, runId);
  const ev = readEvent(io, values.event);
  makeRunsFolder(io, journalFile);
  const base: RunSetup = {
    graph,
    store: new FileStore(journalFile),
    runId,
    start: {
      intent: ev.intent,
      subject: ev.subject,
      inputs: parseInputs(values.input),
      github: ev.github,
      started_by: person(io, values.by),
    },
    ...(values['allow-graph-change'] ? { allowGraphChangeBy: person(io, values.by) } : {}),
  };
  const setup = stepSetup(io, base, {
    journalFile,
    assumeDead: values['assume-dead'] ?? false,
    live: !values.quiet,
    verbose: values.verbose ?? false,
  });
  const config = cliConfig(io);
  const dailyCap = await cliDailyCap(io, config, journalFile, runId);
  if (dailyCap) setup.dailyCap = dailyCap;
  // What git reads and runs from .git/ stays as this invocation found it (src/os/git/git-guard.ts).
  guardCheckout({ workspace: io.cwd, warn: (m) => io.err(`interlock: ${m}\n`) });
  const all = values.all ?? false;
  const started = Date.now();
  const last = await withModelKeys(io, config, values['agent-credentials'], () =>
    runSteps(setup, all ? { all: true } : { node: values.node }, { onStep: (r, ms) => report(io, r, ms) }),
  );
  if (all && !(last.kind === 'ended' || last.cur.state.checkpoint.ended)) {
    // Left alone in flight (its process, or the command of a killed CLI, still runs): say which, and what to do.
    const stopped = inFlight(last.cur, values.journal);
    io.err(
      stopped ||
        `interlock: ${last.cur.state.checkpoint.status} after ${((Date.now() - started) / 1000).toFixed(1)}s\n`,
    );
  }
  // Where the run stopped for a person, or had already ended, say the command that goes on from there.
  if (last.kind === 'ended') io.err(afterEnded(graphPath, runId, values.journal));
  else if (!last.cur.state.checkpoint.ended)
    io.err(nextHint(last.cur, all ? 'all' : 'one', graph, values.journal));
  return exitCode(last, all);
}
