/**
 * Runs the bundled action as a runner does: a child process `node dist/index.js` (or `dist/post.js`) with the
 * runner's environment variables, an event file, and the files a runner gives a step for outputs, summary and
 * state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stepClockEnv } from './clock.js';
import { parseRunnerFile } from './runner-commands.js';
import { interpretRunnerLog, type RunnerView } from './runner-log.js';
import { runnerNode } from './runner-node.js';

export const REPO_ROOT = new URL('../..', import.meta.url).pathname;
export const DIST = join(REPO_ROOT, 'dist');

export interface Job {
  /** The workflow run id, attempt, job key and runner name, as GitHub sets them. */
  runId: number;
  attempt?: number;
  job?: string;
  runner?: string;
}

export interface StepOptions {
  apiUrl: string;
  repository: string;
  workspace: string;
  eventName: string;
  payload: Record<string, unknown>;
  inputs: Record<string, string>;
  job: Job;
  token?: string;
  /** Extra environment for the step (an agent's API key, say). */
  env?: Record<string, string>;
  /** Which bundle: the main step or the post step. */
  entry?: 'index.js' | 'post.js';
  /** State saved by the main step, for the post step. */
  state?: Record<string, string>;
  node?: string;
  /** Another build of the action (a baseline to compare with); default this tree's dist/. */
  dist?: string;
  /**
   * The runner's user, when not this process's (test/support/sudo-runner.ts: a user with passwordless sudo, as on
   * GitHub-hosted runners). The runner's files for the step are made its own.
   */
  as?: { uid: number; gid: number; home: string };
  /**
   * Node's compile cache for the bundle (NODE_COMPILE_CACHE, a folder of this test process's own): a step after the
   * first skips compiling dist/index.js, about a fifth of its CPU (bench/step-cpu.ts). Only for suites bound by the
   * CPU of thousands of steps (the crash matrix): what runs is the same code; a runner has no such cache.
   * `INTERLOCK_TEST_COMPILE_CACHE=0` leaves it off everywhere (to compare).
   */
  compileCache?: boolean;
}

export interface StepResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The GITHUB_OUTPUT file as the runner reads it. */
  outputs: Record<string, string>;
  summary: string;
  /** stdout and stderr interleaved as they arrived, as the runner reads them. */
  log: string;
  /** What the runner would have done with the log and the output file (outputs, masks, annotations, stop state). */
  runner: RunnerView;
  state: Record<string, string>;
  /** What reached GITHUB_ENV and GITHUB_PATH (interlock writes neither). */
  envFile: string;
  pathFile: string;
  /** The runner's temporary directory for this step (RUNNER_TEMP), removed once the step ended and was read. */
  runnerTemp: string;
}

/** Whether folders are kept to look into (`INTERLOCK_KEEP_TEST_TMP=1`, as test/support/temp-root.ts keeps its root). */
const KEEP = () => Boolean(process.env.INTERLOCK_KEEP_TEST_TMP);

/** Removes a folder this helper made; one a node user's process still writes in is left to the run's root. */
function removeDir(dir: string): void {
  if (KEEP()) return;
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // The run's temporary root (test/support/temp-root.ts) goes at the run's end all the same.
  }
}

/** Workspaces and world logs made in this test process: removed when it exits, after every test in it read them. */
const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) removeDir(dir);
});

function madeDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

let compileCacheDir: string | undefined;

/** This process's compile cache folder: only its user writes it (a node's user cannot leave code in it). */
export function compileCache(): string {
  compileCacheDir ??= madeDir('interlock-compile-cache-');
  return compileCacheDir;
}

export function makeWorkspace(files: Record<string, string>): string {
  const dir = madeDir('interlock-ws-');
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, text, { mode: path.endsWith('.sh') ? 0o755 : 0o644 });
  }
  return dir;
}

/** Starts the step; `done` resolves when it exits. */
export function startStep(opts: StepOptions): { child: ChildProcess; done: Promise<StepResult> } {
  const runnerDir = mkdtempSync(join(tmpdir(), 'interlock-runner-'));
  const files = {
    event: join(runnerDir, 'event.json'),
    output: join(runnerDir, 'output'),
    summary: join(runnerDir, 'summary.md'),
    state: join(runnerDir, 'state'),
    env: join(runnerDir, 'env'),
    path: join(runnerDir, 'path'),
  };
  writeFileSync(files.event, JSON.stringify(opts.payload));
  for (const f of [files.output, files.summary, files.state, files.env, files.path]) writeFileSync(f, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: opts.apiUrl,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: opts.repository,
    GITHUB_EVENT_NAME: opts.eventName,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_WORKSPACE: opts.workspace,
    GITHUB_RUN_ID: String(opts.job.runId),
    GITHUB_RUN_ATTEMPT: String(opts.job.attempt ?? 1),
    GITHUB_JOB: opts.job.job ?? 'interlock',
    RUNNER_NAME: opts.job.runner ?? `runner-${opts.job.runId}`,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SHA: 'main',
    GITHUB_ACTOR: 'octocat',
    GITHUB_WORKFLOW_REF: `${opts.repository}/.github/workflows/interlock.yml@refs/heads/main`,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_STATE: files.state,
    GITHUB_ENV: files.env,
    GITHUB_PATH: files.path,
    RUNNER_TEMP: runnerDir,
    INTERLOCK_RETRY_BASE_MS: '5',
    INTERLOCK_WRITE_INTERVAL_MS: '0',
    // How stale the local GitHub's reads may be, and a line-up's slot on its clock (clock.ts): a step waits as
    // long as that server's window, as a deployment is told GitHub's (docs/DEPLOY.md), and no longer.
    ...stepClockEnv(opts.apiUrl),
    INPUT_TOKEN: opts.token ?? 'ghs_actions_token',
    ...(opts.compileCache && !opts.as && process.env.INTERLOCK_TEST_COMPILE_CACHE !== '0'
      ? { NODE_COMPILE_CACHE: compileCache() }
      : {}),
    ...(opts.env ?? {}),
  };
  // No isolation input: nodes run under the default (`auto`), as users' steps do; as root here, as a user of
  // their own (interlock-node). Only tests about another mode set `isolation`.
  for (const [k, v] of Object.entries(opts.inputs)) env[`INPUT_${k.replace(/ /g, '_').toUpperCase()}`] = v;
  for (const [k, v] of Object.entries(opts.state ?? {})) env[`STATE_${k}`] = v;
  if (opts.as) {
    env.HOME = opts.as.home;
    for (const p of [runnerDir, ...Object.values(files)]) chownSync(p, opts.as.uid, opts.as.gid);
  }
  const child = spawn(opts.node ?? runnerNode(), [join(opts.dist ?? DIST, opts.entry ?? 'index.js')], {
    cwd: opts.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.as ? { uid: opts.as.uid, gid: opts.as.gid } : {}),
  });
  let stdout = '';
  let stderr = '';
  let log = '';
  child.stdout?.on('data', (b: Buffer) => {
    stdout += b.toString('utf8');
    log += b.toString('utf8');
  });
  child.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString('utf8');
    log += b.toString('utf8');
  });
  const done = new Promise<StepResult>((resolve) => {
    child.on('close', (code, signal) => {
      const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
      const pairs = (f: string) => Object.fromEntries(parseRunnerFile(read(f)).pairs);
      const result: StepResult = {
        code,
        signal,
        stdout,
        stderr,
        outputs: pairs(files.output),
        summary: read(files.summary),
        state: pairs(files.state),
        log,
        runner: interpretRunnerLog(log, read(files.output)),
        envFile: read(files.env),
        pathFile: read(files.path),
        runnerTemp: runnerDir,
      };
      // Everything a test reads of the runner's files is in `result`: the folder goes now, not at the run's end
      // (a reliability run starts thousands of steps).
      removeDir(runnerDir);
      resolve(result);
    });
  });
  return { child, done };
}

export function runStep(opts: StepOptions): Promise<StepResult> {
  return startStep(opts).done;
}

/** A step as a runner starts it, SIGKILLed when it runs past `limitMs` (a hang the suites report, not wait on). */
export async function runStepWithin(
  opts: StepOptions,
  limitMs: number,
): Promise<StepResult & { timedOut: boolean }> {
  const { child, done } = startStep(opts);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, limitMs);
  try {
    return { ...(await done), timedOut };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A file outside every checkout that any node user may append to: the world a node's side effect reaches (jobs on
 * GitHub each have a checkout of their own, so a side effect shared by several jobs cannot live in one).
 */
export function worldLog(): string {
  const dir = madeDir('interlock-world-');
  chmodSync(dir, 0o777);
  const file = join(dir, 'effects.log');
  writeFileSync(file, '', { mode: 0o666 });
  chmodSync(file, 0o666);
  return file;
}
