/**
 * Running a command: a bash script in its own process group, its output streamed and its tail kept, the whole
 * group killed on timeout; and stopping every command this process started.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { restoreCheckout } from './git/git-guard.js';
import { childProcess } from './lazy.js';
import { innerProxyPort } from './netns.js';
import type { CredentialGrants } from './node-user/node-credentials.js';
import { checkNodeHome } from './node-user/node-home.js';
import { survivorsMessage } from './node-user/node-processes.js';
import { type ScriptNamespace, scriptCommand } from './node-user/node-script.js';
import { endNodeUserProcesses, nodeUser, sweepNodeUser } from './node-user/node-user.js';
import type { EgressChannel, EgressRules } from './proxies/egress-proxy.js';

interface ExecRequest {
  /** A bash script (node `run`, or the agent command for prompts). Comes from the graph, never from untrusted text. */
  script: string;
  env: NodeJS.ProcessEnv;
  /** Which node may have which of the step's credentials (`node-credentials`): the rest are withheld from it. */
  grants: CredentialGrants;
  cwd: string;
  /** Given on stdin (prompt nodes). */
  stdin?: string;
  timeoutMs: number;
  /** Where live output goes (the terminal, the step log). */
  echo?: (chunk: Buffer) => void;
  /** A file that keeps the whole output. */
  logFile?: string;
  /** Keep the last this many bytes of stdout alone (an agent's JSON result) in `stdout`. */
  keepStdout?: number;
  /** Stdout alone, as it comes (an engine's JSON events, read while the agent runs). */
  onStdout?: (chunk: Buffer) => void;
  /** Stderr alone, as it comes (what an agent's CLI says when it cannot work). */
  onStderr?: (chunk: Buffer) => void;
  /** Stops the command as a timeout does (TERM, then KILL of its process group); the result says `stopped`. */
  signal?: AbortSignal;
  /** Runs it in a network namespace of its own whose only way out is the egress proxy under these rules. */
  network?: ScriptNetwork;
}

/** A script's egress (a node with `network:`): the proxy's rules, and the host-loopback ports passed through. */
export interface ScriptNetwork {
  rules: EgressRules;
  /** Ports on the host's 127.0.0.1 the script reaches at the same port inside (the key proxy's). */
  passPorts: readonly number[];
}

/** The variables tools read for a proxy, pointing at the one inside the namespace; loopback stays direct. */
function proxyEnv(env: NodeJS.ProcessEnv, port: number): NodeJS.ProcessEnv {
  const url = `http://127.0.0.1:${port}`;
  const direct = '127.0.0.1,localhost,::1';
  return {
    ...env,
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: direct,
    no_proxy: direct,
  };
}

/** Opens the script's channel to the egress proxy, when it has `network`. */
async function namespaceFor(
  req: ExecRequest,
): Promise<(ScriptNamespace & { env: NodeJS.ProcessEnv }) | undefined> {
  if (!req.network) return undefined;
  // The egress proxy's code is loaded only by a command that has `network` (docs/ARCHITECTURE.md, "Loading").
  const { openEgressChannel } = await import('./proxies/egress-proxy.js');
  const channel: EgressChannel = await openEgressChannel(req.network.rules, req.network.passPorts);
  const proxyPort = innerProxyPort(req.network.passPorts);
  return { channel, proxyPort, env: proxyEnv(req.env, proxyPort) };
}

interface ExecResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Stopped through `signal` (not by its timeout). */
  stopped?: boolean;
  tail: string;
  wallMs: number;
  /** The end of stdout, when `keepStdout` asked for it. */
  stdout?: string;
  /** Processes of the node user that still ran after the script although they were killed: the run fails. */
  survivors?: string;
}

const TAIL_CHARS = 4000;
const KILL_GRACE_MS = 3000;

/** Children still running, so a signal to this process can stop their process groups. */
const running = new Set<number>();

/** Stops every command this process started (their whole process groups). */
export function killAllChildren(signal: NodeJS.Signals = 'SIGTERM'): void {
  for (const pid of running) {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Stops a process group: TERM, then KILL after a grace period (once, however often it is asked). */
function groupStopper(pid: number): { stop: () => void; cancel: () => void } {
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (killTimer) return;
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // exited meanwhile
    }
    killTimer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // exited meanwhile
      }
      // Through sudo the group's signal reaches sudo, not the node user's processes, which hold the output
      // open: killed as that user, or the attempt would wait for them past its timeout.
      sweepNodeUser();
    }, KILL_GRACE_MS);
  };
  return { stop, cancel: () => killTimer && clearTimeout(killTimer) };
}

/** The command's timeout and its abort signal, each stopping its group; `end` once the command has exited. */
function watchLimits(pid: number, req: ExecRequest) {
  const state = { timedOut: false, stopped: false, end: () => {} };
  const { stop, cancel } = groupStopper(pid);
  const timer = setTimeout(() => {
    state.timedOut = true;
    stop();
  }, req.timeoutMs);
  const onAbort = () => {
    state.stopped = true;
    stop();
  };
  if (req.signal?.aborted) onAbort();
  else req.signal?.addEventListener('abort', onAbort, { once: true });
  state.end = () => {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
    cancel();
  };
  return state;
}

/**
 * Runs a bash script in its own process group, streaming output, keeping its tail, and killing the whole
 * group when the timeout passes.
 */
export async function runScript(req: ExecRequest): Promise<ExecResult> {
  const ns = await namespaceFor(req);
  try {
    return await runIn(req, ns);
  } finally {
    // Whatever the script left open through the proxy is cut with it.
    await ns?.channel.close();
  }
}

/** Wires a child's stdout and stderr to the echo, the log and the request's readers; keeps the tail and stdout. */
function readOutput(
  child: { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream },
  req: ExecRequest,
  log: WriteStream | undefined,
) {
  let tail = '';
  const onData = (chunk: Buffer) => {
    req.echo?.(chunk);
    log?.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
  };
  let stdout = Buffer.alloc(0);
  const max = req.keepStdout ?? 0;
  child.stdout.on('data', (chunk: Buffer) => {
    onData(chunk);
    if (max > 0) stdout = Buffer.concat([stdout, chunk]).subarray(-max);
    req.onStdout?.(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    onData(chunk);
    req.onStderr?.(chunk);
  });
  return { tail: () => tail, stdout: () => stdout.toString('utf8') };
}

/**
 * The command that runs the script, once nothing an earlier script left runs beside it (a granted node's first of
 * all), the node user's home is still the empty folder interlock made it (src/os/node-user/node-home.ts) and what
 * git reads and runs from .git/ is put back (src/os/git/git-guard.ts); graph code runs as the node user when one is
 * configured (src/os/node-user/node-user.ts).
 */
function prepared(req: ExecRequest, ns: (ScriptNamespace & { env: NodeJS.ProcessEnv }) | undefined) {
  endNodeUserProcesses('before the script started');
  checkNodeHome();
  restoreCheckout();
  return ns
    ? scriptCommand(req.script, {
        env: ns.env,
        grants: req.grants,
        ns: { channel: ns.channel, proxyPort: ns.proxyPort },
      })
    : scriptCommand(req.script, { env: req.env, grants: req.grants });
}

/**
 * Ends what the script left (its group, every process of the node user); what could not be ended, said.
 * `sweptClean`: the sweep when the script's own process exited left no process of the node user. None can have
 * started since (only a process of that user, or interlock, starts one, and interlock starts nothing between a
 * script's exit and its close), so /proc is not listed again: a listing reads every process's status, the most a
 * step spends outside its own code.
 */
function endLeftovers(pid: number | undefined, sweptClean: boolean): { survivors?: string } {
  // The group may hold background children of the script; they do not outlive the attempt.
  try {
    process.kill(-pid!, 'SIGKILL');
  } catch {
    // none left
  }
  const left = sweptClean ? [] : sweepNodeUser();
  const user = nodeUser();
  return left.length && user ? { survivors: survivorsMessage(user, left, 'after the script') } : {};
}

function runIn(
  req: ExecRequest,
  ns: (ScriptNamespace & { env: NodeJS.ProcessEnv }) | undefined,
): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let how: ReturnType<typeof scriptCommand>;
    try {
      how = prepared(req, ns);
    } catch (e) {
      reject(e);
      return;
    }
    const child = childProcess().spawn(how.file, how.args, {
      cwd: req.cwd,
      env: how.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...how.ids,
    });
    const log: WriteStream | undefined = req.logFile
      ? createWriteStream(req.logFile, { flags: 'a' })
      : undefined;
    const out = readOutput(child, req, log);
    child.stdin.on('error', () => {
      // the command may exit without reading its stdin
    });
    child.stdin.end(req.stdin ?? '');
    if (child.pid !== undefined) running.add(child.pid);
    const limits = watchLimits(child.pid!, req);
    // The script's own process ended: nothing it started runs on (nor holds the output open till the timeout).
    let sweptClean = false;
    child.on('exit', () => {
      sweptClean = sweepNodeUser().length === 0;
    });
    child.on('error', (e) => {
      limits.end();
      how.done();
      reject(e);
    });
    child.on('close', (code, signal) => {
      limits.end();
      const { timedOut, stopped } = limits;
      if (child.pid !== undefined) running.delete(child.pid);
      const survivors = endLeftovers(child.pid, sweptClean);
      how.done();
      const kept = (req.keepStdout ?? 0) > 0 ? { stdout: out.stdout() } : {};
      const done = () =>
        resolve({
          exitCode: code,
          signal,
          timedOut,
          ...(stopped && !timedOut ? { stopped: true } : {}),
          tail: out.tail(),
          wallMs: Date.now() - started,
          ...kept,
          ...survivors,
        });
      if (log) log.end(done);
      else done();
    });
  });
}
