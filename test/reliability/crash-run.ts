/**
 * Runs crash scenarios for real: the bundled CLI (file store) or the bundled Action (git store, against the
 * local GitHub) is SIGKILLed at a boundary, then recovered and continued as a person would, and what it left
 * behind is checked. Scenarios run a few at a time; each has its own directory, run and processes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sandbox } from '../crash/harness.js';
import { type StepOptions, type StepResult, startStep } from '../support/action-process.js';
import { type Ack, acksIn, checkScenario, type Snapshot } from './crash-check.js';
import { graphName, graphPath, graphText, interrupts, NODES, type Scenario, target } from './crash-model.js';
import { type ActionWorld, APPROVER, FULL, startActionWorld, workspace } from './github-world.js';
import { concurrency, gone, killGroup, killTagged, pool, taggedProcesses, waitUntil } from './support.js';

export interface ScenarioResult {
  id: string;
  scenario: Scenario;
  problems: string[];
  ms: number;
  processes: number;
}

const CALL_TIMEOUT_MS = 60_000;
const NOTE = 'checked by hand: the side effect is there';

/** Runs the scenarios `jobs` at a time; calls `onResult` as each ends. */
export async function runCrashScenarios(
  scenarios: Scenario[],
  opts: { jobs?: number; onResult?: (r: ScenarioResult) => void } = {},
): Promise<ScenarioResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'interlock-crash-matrix-'));
  // Runner directories and sandboxes go under root, which is removed at the end.
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = root;
  let world: ActionWorld | undefined;
  if (scenarios.some((s) => s.face === 'action')) {
    const files: Record<string, string> = {};
    for (const replay of ['never', 'safe'] as const)
      for (const position of [0, 1, 2] as const)
        files[graphPath({ replay, position })] = graphText({ replay, position });
    world = await startActionWorld({ files });
  }
  // Interleave the faces: the Action's steps and the CLI's calls load the machine differently.
  const cli = scenarios.filter((s) => s.face === 'cli');
  const action = scenarios.filter((s) => s.face === 'action');
  const order: Scenario[] = [];
  for (let i = 0; i < Math.max(cli.length, action.length); i++) {
    if (action[i]) order.push(action[i]!);
    if (cli[i]) order.push(cli[i]!);
  }
  try {
    const results = await pool(order, opts.jobs ?? concurrency(), async (s) => {
      const t0 = Date.now();
      let r: Omit<ScenarioResult, 'ms'>;
      try {
        r = s.face === 'cli' ? await runCli(s) : await runAction(s, world!, root);
      } catch (e) {
        r = {
          id: s.id,
          scenario: s,
          problems: [`the scenario could not run: ${(e as Error).stack}`],
          processes: 0,
        };
      }
      const result = { ...r, ms: Date.now() - t0 };
      opts.onResult?.(result);
      return result;
    });
    return scenarios.map((s) => results.find((r) => r.id === s.id)!);
  } finally {
    await world?.close();
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(root, { recursive: true, force: true });
  }
}

/** What both faces keep while a scenario runs. */
class Trail {
  readonly snapshots: Snapshot[] = [];
  readonly acks: Ack[] = [];
  readonly problems: string[] = [];
  processes = 0;
  expect(ok: boolean, what: string, output?: string): void {
    if (!ok)
      this.problems.push(
        `${what}${output ? `\n    ${output.trim().split('\n').slice(-6).join('\n    ')}` : ''}`,
      );
  }
}

// --- the CLI on the file store --------------------------------------------------------------------------

async function runCli(s: Scenario): Promise<Omit<ScenarioResult, 'ms'>> {
  const sb = new Sandbox('interlock-crash-cli-');
  const rec = new Trail();
  const run = graphName(s);
  const t = target(s);
  const file = `.interlock/runs/${run}.json`;
  const all = ['run', 'g.yml', '--all', '--quiet'];
  const call = async (label: string, args: string[], env: Record<string, string> = {}) => {
    rec.processes++;
    const r = await sb.cli(args, env);
    rec.snapshots.push({ after: label, text: sb.read(file) ?? undefined });
    rec.acks.push(...acksIn(label, `${r.stderr}\n${r.stdout}`));
    return r;
  };
  const settle = async (
    label: string,
    verb: 'approve-rerun' | 'settle',
    env: Record<string, string> = {},
  ) => {
    const args =
      verb === 'settle'
        ? ['settle', t, '--by', APPROVER, '--note', NOTE, '--run-id', run]
        : ['approve-rerun', t, '--by', APPROVER, '--run-id', run];
    const r = await call(label, args, env);
    if (r.code === 0)
      rec.acks.push({
        by: label,
        type: verb === 'settle' ? 'NodeRecorded' : 'RerunApproved',
        node: t,
        person: APPROVER,
      });
    return r;
  };
  const killMidCommand = async () => {
    sb.write('hang', '');
    rec.processes++;
    const started = sb.start(all);
    await waitUntil(() => sb.exists('started'), 'the command to start hanging');
    const pid = Number(sb.read('pid')?.trim());
    started.child.kill('SIGKILL');
    killGroup(pid);
    const exit = await started.exited;
    await waitUntil(() => sb.tagged().length === 0, 'the killed processes to exit');
    rec.snapshots.push({ after: 'killed mid-command', text: sb.read(file) ?? undefined });
    rec.acks.push(...acksIn('killed mid-command', exit.stderr));
    rec.expect(exit.signal === 'SIGKILL', 'the CLI was not killed mid-command', exit.stderr);
  };
  try {
    sb.write('g.yml', graphText(s));
    if (s.outcome === 'fail-once') sb.write('fail-once', '');
    const b = s.boundary;
    if (b === 'mid-command' || b.startsWith('recovery:') || b.startsWith('approval:')) {
      await killMidCommand();
    } else {
      const r = await call('crash', all, { INTERLOCK_FAILPOINTS: `${b}@${t}` });
      rec.expect(r.signal === 'SIGKILL', `the failpoint ${b}@${t} did not fire`, r.stderr);
    }
    if (b.startsWith('recovery:')) {
      const r = await call('recover (killed)', ['recover', '--run-id', run], {
        INTERLOCK_FAILPOINTS: b.slice('recovery:'.length),
      });
      rec.expect(r.signal === 'SIGKILL', `recover did not die at ${b}`, r.stdout + r.stderr);
    }
    if (b.startsWith('approval:')) {
      const r0 = await call('recover', ['recover', '--run-id', run]);
      rec.expect(r0.stdout.includes(`interrupted: ${t} → held`), 'recover did not hold the node', r0.stdout);
      const r = await settle('approve-rerun (killed)', 'approve-rerun', {
        INTERLOCK_FAILPOINTS: b.slice('approval:'.length),
      });
      rec.expect(r.signal === 'SIGKILL', `approve-rerun did not die at ${b}`, r.stdout + r.stderr);
      const again = await settle('approve-rerun again', 'approve-rerun');
      const landed = b === 'approval:after-settle-write';
      rec.expect(
        again.code === (landed ? 2 : 0),
        `approve-rerun again exited ${again.code}; the first approval ${landed ? 'had' : 'had not'} landed`,
        again.stderr,
      );
      if (landed)
        rec.expect(
          /is pending, not held/.test(again.stderr),
          'the second approval was not refused as done',
          again.stderr,
        );
    } else if (s.follow === 'approve-rerun' || s.follow === 'settle') {
      await call('recover', ['recover', '--run-id', run]);
      const r = await settle(s.follow, s.follow);
      rec.expect(
        r.code === (interrupts(b) ? 0 : 2),
        `${s.follow} exited ${r.code} (${interrupts(b) ? 'the node was held' : 'nothing was held'})`,
        r.stderr + r.stdout,
      );
    } else if (s.follow === 'recover-then-run') {
      await call('recover', ['recover', '--run-id', run]);
    }
    const fin = await call('finish', all);
    rec.expect(fin.code === 0, `the final run --all exited ${fin.code}`, fin.stderr);
    const effects = sb.lines('effects.log');
    return {
      id: s.id,
      scenario: s,
      problems: [
        ...rec.problems,
        ...checkScenario({ scenario: s, snapshots: rec.snapshots, acks: rec.acks, effects }),
      ],
      processes: rec.processes,
    };
  } finally {
    await sb.cleanup();
  }
}

// --- the Action on the git store ------------------------------------------------------------------------

/** A step as a runner starts it; a step that hangs is killed after a minute and reported. */
async function stepOnce(opts: StepOptions): Promise<StepResult & { timedOut: boolean }> {
  const { child, done } = startStep(opts);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, CALL_TIMEOUT_MS);
  try {
    return { ...(await done), timedOut };
  } finally {
    clearTimeout(timer);
  }
}

async function runAction(s: Scenario, world: ActionWorld, root: string): Promise<Omit<ScenarioResult, 'ms'>> {
  const rec = new Trail();
  const t = target(s);
  const issue = world.issue(`crash ${s.id}`);
  const runId = `${graphName(s)}/issue-${issue}`;
  const ws = workspace(join(root, 'action'), {
    [graphPath(s)]: graphText(s),
    ...(s.outcome === 'fail-once' ? { 'fail-once': '' } : {}),
  });
  const tmp = join(ws, '.tmp');
  mkdirSync(tmp);
  const tag = randomUUID();
  const env = { INTERLOCK_TEST_TAG: tag, TMPDIR: tmp };
  const inputs = { graph: graphPath(s), node: 'all', 'on-held': 'succeed' };
  const opts = (
    extra: { inputs?: Record<string, string>; env?: Record<string, string>; job?: StepOptions['job'] } = {},
  ): StepOptions =>
    world.step(ws, issue, {
      inputs: { ...inputs, ...extra.inputs },
      env: { ...env, ...extra.env },
      ...(extra.job ? { job: extra.job } : {}),
    });
  const call = async (label: string, o: StepOptions) => {
    rec.processes++;
    const r = await stepOnce(o);
    rec.expect(!r.timedOut, `${label} hung for a minute and was killed`, r.stdout);
    rec.snapshots.push({ after: label, text: world.journalText(runId) });
    rec.acks.push(...acksIn(label, r.stdout));
    return r;
  };
  const comment = (payload: Record<string, unknown>, fp?: string): StepOptions => ({
    apiUrl: world.server.url,
    repository: FULL,
    workspace: ws,
    eventName: 'issue_comment',
    payload,
    inputs: { mode: 'comment' },
    job: world.job(),
    env: { ...env, ...(fp ? { INTERLOCK_FAILPOINTS: fp } : {}) },
  });
  const person = async (
    label: string,
    verb: 'approve-rerun' | 'settle',
    payload: Record<string, unknown>,
    fp?: string,
  ) => {
    const r = await call(label, comment(payload, fp));
    if (r.outputs.status === 'completed')
      rec.acks.push({
        by: label,
        type: verb === 'settle' ? 'NodeRecorded' : 'RerunApproved',
        node: t,
        person: APPROVER,
      });
    return r;
  };
  const body = (verb: 'approve-rerun' | 'settle') =>
    verb === 'settle' ? `/settle ${t} ${NOTE}` : `/approve-rerun ${t}`;
  const recoverStep = () => call('mode: recover', opts({ inputs: { mode: 'recover' } }));
  /** The runner dies mid-command: the step and the node's process group are SIGKILLed. */
  const killMidCommand = async () => {
    writeFileSync(join(ws, 'hang'), '');
    const job = world.job();
    const o = opts({ job });
    rec.processes++;
    const { child, done } = startStep(o);
    await waitUntil(() => existsSync(join(ws, 'started')), 'the command to start hanging');
    const pid = Number(readFileSync(join(ws, 'pid'), 'utf8').trim());
    child.kill('SIGKILL');
    killGroup(pid);
    const r = await done;
    await waitUntil(() => taggedProcesses(tag).every(gone), 'the killed processes to exit');
    rec.snapshots.push({ after: 'killed mid-command', text: world.journalText(runId) });
    rec.acks.push(...acksIn('killed mid-command', r.stdout));
    rec.expect(r.signal === 'SIGKILL', 'the step was not killed mid-command', r.stdout);
    return { o, state: r.state };
  };
  try {
    const b = s.boundary;
    if (b === 'mid-command' || b.startsWith('approval:')) {
      const { o } = await killMidCommand();
      world.endJob(o.job.runId);
    } else if (b === 'post-step' || b.startsWith('recovery:')) {
      const { o, state } = await killMidCommand();
      const fp = b.startsWith('recovery:') ? b.slice('recovery:'.length) : undefined;
      const post = await call('post step', {
        ...o,
        entry: 'post.js',
        state,
        env: { ...env, ...(fp ? { INTERLOCK_FAILPOINTS: fp } : {}) },
      });
      if (fp) rec.expect(post.signal === 'SIGKILL', `the post step did not die at ${fp}`, post.stdout);
      else
        rec.expect(
          post.code === 0 && post.stdout.includes(`"${t}" was interrupted when the step stopped`),
          'the post step did not mark the node interrupted',
          post.stdout,
        );
      world.endJob(o.job.runId);
    } else {
      const job = world.job();
      const r = await call('crash', opts({ job, env: { INTERLOCK_FAILPOINTS: `${b}@${t}` } }));
      rec.expect(r.signal === 'SIGKILL', `the failpoint ${b}@${t} did not fire`, r.stdout);
      world.endJob(job.runId);
    }
    if (b.startsWith('approval:')) {
      const r0 = await recoverStep();
      rec.expect(
        r0.outputs.status === 'held',
        `mode: recover reported ${r0.outputs.status}, not held`,
        r0.stdout,
      );
      const payload = world.comment(issue, body('approve-rerun'));
      const r = await person('approval (killed)', 'approve-rerun', payload, b.slice('approval:'.length));
      rec.expect(r.signal === 'SIGKILL', `mode: comment did not die at ${b}`, r.stdout);
      // The job is re-run on the same event: the same comment, delivered again.
      const again = await person('approval re-run', 'approve-rerun', payload);
      const landed = b === 'approval:after-settle-write';
      rec.expect(
        again.code === 0 && again.outputs.status === (landed ? 'ignored' : 'completed'),
        `the re-run approval said ${again.outputs.status} (exit ${again.code}); the first ${landed ? 'had' : 'had not'} landed`,
        again.stdout,
      );
    } else if (s.follow === 'approve-rerun' || s.follow === 'settle') {
      await recoverStep();
      const r = await person(s.follow, s.follow, world.comment(issue, body(s.follow)));
      const want = interrupts(b) ? 'completed' : 'refused';
      rec.expect(
        r.code === 0 && r.outputs.status === want,
        `${s.follow} said ${r.outputs.status} (exit ${r.code}), expected ${want}`,
        r.stdout,
      );
    } else if (s.follow === 'recover-then-run') {
      await recoverStep();
    }
    const fin = await call('finish', opts());
    rec.expect(
      fin.code === 0 && ['completed', 'run-completed'].includes(fin.outputs.status ?? ''),
      `the final step said ${fin.outputs.status} (exit ${fin.code})`,
      fin.stdout,
    );
    const log = join(ws, 'effects.log');
    const effects = existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l && NODES.some((n) => l.startsWith(`${n} `)))
      : [];
    return {
      id: s.id,
      scenario: s,
      problems: [
        ...rec.problems,
        ...checkScenario({ scenario: s, snapshots: rec.snapshots, acks: rec.acks, effects }),
      ],
      processes: rec.processes,
    };
  } finally {
    await killTagged(tag);
    rmSync(ws, { recursive: true, force: true });
  }
}
