/**
 * `interlock replay <run> <node> [--attempt N]` (issue 48): runs a recorded agent attempt again, offline. The
 * recording's SHA-256 is checked against the journal first; then the attempt runs as it was dispatched (the graph
 * as it is now, the journal as it stood at the dispatch), in a copy of the tree it was dispatched in
 * (replay-copy.ts), with the replay proxy in the key proxy's place: each model call is answered from the recording, and the first request that
 * departs from it stops the replay (exit 4), named by its first differing field. Nothing is sent anywhere and the
 * run's journal is not written: the replay's output goes to a folder of its own, which it names.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileNameOf } from '../../graph/schema/subgraph.js';
import type { Failure } from '../../journal/events/fields.js';
import { guardCheckout } from '../../os/git/git-guard.js';
import { configureAgentCredentials, secretValues } from '../../os/node-user/node-credentials.js';
import { RECORDING_BYTES } from '../../os/proxies/key-proxy-tab.js';
import type { RecordedCall } from '../../os/proxies/replay-match.js';
import { type ReplayProxy, startReplayProxy } from '../../os/proxies/replay-proxy.js';
import { confineToWorkspace } from '../../os/workspace-path.js';
import type { ChainMember } from '../../protocol/chain-dispatch.js';
import { redactSecrets } from '../../render/redact.js';
import { type AttemptOptions, type AttemptSetup, executeAttempt } from '../../runner/attempt/attempt.js';
import { type RecordingRef, recordedAttempt, replayOptions } from '../../runner/replay.js';
import { executeChain } from '../../runner/serialized/run.js';
import { EXIT, type Io, UsageError } from '../io.js';
import { checkRunId, journalPath, openExisting } from '../journals.js';
import { replayHome } from '../replay-home.js';
import { CLI_ISOLATION, lineEcho } from '../setup.js';
import { replayCopy } from './replay-copy.js';

/** The recording's lines, once its SHA-256 is the journal's; read without following a link, bounded. */
function readRecording(io: Io, ref: RecordingRef): RecordedCall[] {
  const full = confineToWorkspace(io.cwd, ref.path, 'the recording path in the journal');
  let text: string;
  try {
    const fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (!fstatSync(fd).isFile() || fstatSync(fd).size > RECORDING_BYTES + 1_000_000)
        throw new Error('not a regular file of at most 64 MB');
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new UsageError(
      `the recording ${ref.path} cannot be read (${(e as Error).message}): nothing was replayed`,
    );
  }
  const sha = createHash('sha256').update(text).digest('hex');
  if (sha !== ref.sha256)
    throw new UsageError(
      `the recording ${ref.path} is not the one the journal recorded (its SHA-256 is ${sha}, the journal's ${ref.sha256}): it changed since the run, so nothing was replayed`,
    );
  return text
    .split('\n')
    .filter(Boolean)
    .map((line, i) => {
      try {
        return JSON.parse(line) as RecordedCall;
      } catch {
        throw new UsageError(`the recording ${ref.path}: line ${i + 1} is not JSON: nothing was replayed`);
      }
    });
}

/**
 * The request as it is compared: the secrets of this env removed; the copy's path read as the working directory
 * the attempt ran in (`recorded`: this one, or the Action's checkout), in each form an engine writes it (as it is;
 * with every other character than a letter or digit as `-`, Claude Code's folder of the project; its last name
 * lower-cased and dashed, Gemini CLI's name of the project's temporary folder); and the replay's fresh home as the
 * isolated node's (`home`, src/cli/replay-home.ts).
 */
function asCompared(
  io: Io,
  workspace: string,
  recorded: string,
  home: { now: string; recorded: string } | undefined,
) {
  const secrets = secretValues(io.env);
  const dashed = (p: string) => p.replace(/[^A-Za-z0-9]/g, '-');
  const slug = (p: string) =>
    basename(p)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '');
  const inJson = (p: string) => JSON.stringify(p).slice(1, -1);
  const pairs: Array<readonly [string, string]> = [
    [inJson(workspace), inJson(recorded)],
    [dashed(workspace), dashed(recorded)],
    [`/${slug(workspace)}`, `/${slug(recorded)}`],
    ...(home ? [[inJson(home.now), inJson(home.recorded)] as const] : []),
  ];
  return (body: string) =>
    pairs.reduce((text, [copy, own]) => text.split(copy).join(own), redactSecrets([body], secrets).value[0]!);
}

/** The replay's own folder, `.interlock/replays/<run>/<node>-<attempt>-<time>/`, made. */
function replayFolder(io: Io, runId: string, nodeId: string, attempt: number): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = resolve(io.cwd, '.interlock', 'replays', runId, `${fileNameOf(nodeId)}-${attempt}-${stamp}`);
  mkdirSync(out, { recursive: true });
  return out;
}

/** What the replay found, in words, and its exit code. */
function verdict(proxy: ReplayProxy, calls: RecordedCall[]): { code: number; words: string } {
  const d = proxy.departure();
  if (d) return { code: EXIT.departed, words: `departed from the recording: ${d.message}` };
  if (proxy.answered.length < calls.length)
    return {
      code: EXIT.departed,
      words: `departed from the recording: the agent ended after ${proxy.answered.length} of its ${calls.length} calls`,
    };
  return {
    code: EXIT.ok,
    words: `reproduced: its ${calls.length} model calls were answered from the recording`,
  };
}

/** Runs the replayed attempt (a serialized chain's one call with its nodes' checks); the checks' failures. */
async function replayed(
  setup: AttemptSetup,
  opts: AttemptOptions & { chain?: ChainMember[] },
): Promise<{ failures: Failure[] }> {
  if (!opts.chain) return await executeAttempt(setup, opts);
  const outcomes = await executeChain(setup, opts, opts.chain);
  return { failures: outcomes.flatMap((o) => o.outcome.failures) };
}

export async function cmdReplay(io: Io, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { attempt: { type: 'string' }, graph: { type: 'string' }, verbose: { type: 'boolean' } },
  });
  const [runId, nodeId] = positionals;
  if (!runId || !nodeId || positionals.length > 2)
    throw new UsageError('usage: interlock replay <run> <node> [--attempt N] [--graph F]');
  const attemptNo = values.attempt === undefined ? undefined : Number(values.attempt);
  if (attemptNo !== undefined && !(Number.isInteger(attemptNo) && attemptNo > 0))
    throw new UsageError(`--attempt ${values.attempt}: give an attempt number (1, 2, ...)`);
  const journalFile = journalPath(io, undefined, checkRunId(runId));
  const { graph, store } = await openExisting(io, { journalFile, graphPath: values.graph });
  const { journal } = (await store.read())!;
  const which = recordedAttempt(journal, nodeId, attemptNo);
  if (typeof which === 'string') throw new UsageError(`${which}: nothing was replayed`);
  // The GitHub client is loaded only to fetch a recording the Action kept (an artifact).
  if (which.recording.artifact)
    await (await import('../replay-fetch.js')).fetchRecording(io, which.recording);
  const calls = readRecording(io, which.recording);
  const opts = replayOptions(graph, journal, {
    node: nodeId,
    attempt: which.attempt,
    isolation: CLI_ISOLATION,
  });
  if (typeof opts === 'string') throw new UsageError(`${opts}: nothing was replayed`);
  const out = replayFolder(io, runId, nodeId, which.attempt);
  const copy = await replayCopy(io.cwd, opts.gitBase);
  const workspace = copy.path;
  // The replayed tool calls run in the copy: its .git is what git reads and runs from (src/os/git/git-guard.ts).
  guardCheckout({ workspace, warn: (m) => io.err(`interlock: ${m}\n`) });
  const shown = relative(io.cwd, out);
  io.err(
    `interlock: replaying "${nodeId}" attempt ${which.attempt} of run "${runId}" offline from ${which.recording.path} (${calls.length} calls) in ${workspace}; its log and recording go to ${shown}/, the run's journal is not written\n`,
  );
  io.err(`interlock: the copy holds ${copy.tree}\n`);
  const { env, home } = replayHome(calls, io.env);
  const compared = asCompared(io, workspace, which.recording.workspace ?? io.cwd, home);
  const proxy = await startReplayProxy(calls, compared, env);
  configureAgentCredentials(proxy);
  let outcome: { failures: Failure[] };
  try {
    const setup: AttemptSetup = {
      graph,
      cwd: workspace,
      baseEnv: env,
      isolation: CLI_ISOLATION,
      logFile: (n, a) => join(out, `${fileNameOf(n)}-${a}.log`),
      echo: lineEcho(io),
      echoAgentStream: values.verbose === true,
      say: (m) => io.err(`interlock: ${m}\n`),
    };
    outcome = await replayed(setup, opts);
  } finally {
    configureAgentCredentials(undefined);
    await proxy.stop();
  }
  const v = verdict(proxy, calls);
  const summary = {
    run: runId,
    node: nodeId,
    attempt: which.attempt,
    recording: which.recording,
    workspace,
    tree: copy.tree,
    answered: proxy.answered,
    ...(proxy.departure() ? { departure: proxy.departure() } : {}),
    result: v.words,
    failures: outcome.failures,
  };
  writeFileSync(join(out, 'replay.json'), `${JSON.stringify(summary, null, 2)}\n`);
  io.err(`interlock: replay of "${nodeId}" attempt ${which.attempt}: ${v.words}\n`);
  if (v.code === EXIT.ok && outcome.failures.length)
    io.err(
      `interlock: the replayed attempt failed its checks: ${outcome.failures.map((f) => f.message).join('; ')}\n`,
    );
  io.err(`interlock: the replay's log, recording and summary (replay.json) are in ${shown}/\n`);
  return v.code;
}
