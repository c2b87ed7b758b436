/**
 * The Action face of the crash matrix: the bundle (`node dist/index.js`, its post step `dist/post.js`) as a runner
 * runs it, against the shared local GitHub, on the git store (an issue per scenario, the journal on the run's own
 * branch, checked after every step) or the check-run store (a pull request per scenario, the journal in a check
 * run on its head). People act through `mode: comment`.
 */
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { decodeJournal } from '../../src/store/check-run.js';
import { pullRequestOpened } from '../action/world.js';
import { runStepWithin, type StepOptions, startStep } from '../support/action-process.js';
import { issuesLabeled } from '../support/fixtures.js';
import { acksIn, checkScenario } from './crash-check.js';
import {
  childFiles,
  GUIDANCE,
  graphName,
  graphPath,
  graphText,
  STAND_IN,
  STAND_IN_SCRIPT,
  usesEngine,
} from './crash-graphs.js';
import { NODES, rerunFromNode, type Scenario, target } from './crash-model.js';
import { type Delivery, type Driver, play, Trail, type Verb } from './crash-play.js';
import {
  type ActionWorld,
  APPROVER,
  CRASH_DISPATCH_LEASE_MS,
  FULL,
  OWNER,
  REPO,
  workspace,
} from './github-world.js';
import { gone, groupGone, killGroup, killTagged, waitUntil } from './support.js';

const CALL_TIMEOUT_MS = 60_000;
export const NOTE = 'checked by hand: the side effect is there';

/** The subject a scenario's run is about: an issue (git store) or a pull request (check-run store). */
export interface Subject {
  number: number;
  runId: string;
  /** The event that starts a step, and the inputs every step and comment of this store takes. */
  event: { name: string; payload: Record<string, unknown> };
  inputs: Record<string, string>;
  journalText(): string | undefined;
  comment(body: string): Record<string, unknown>;
}

let nextPull = 50_000;

/** An issue per scenario on the git store; a pull request with a head commit of its own on the check-run store. */
export function subjectFor(s: Scenario, world: ActionWorld): Subject {
  if (s.store !== 'check-run') {
    const number = world.issue(`crash ${s.id}`);
    const runId = `${graphName(s)}/issue-${number}`;
    return {
      number,
      runId,
      event: { name: 'issues', payload: issuesLabeled(OWNER, REPO, number, 'interlock', `crash ${s.id}`) },
      inputs: {},
      journalText: () => world.journalText(runId),
      comment: (body) => world.comment(number, body),
    };
  }
  const number = nextPull++;
  const head = `crash-${number}`;
  world.repo.createBranch(head, 'main');
  world.repo.commitFiles(head, { 'pr.txt': `${number}\n` });
  const issue = world.repo.addPull({ number, head, base: 'main', title: `crash ${s.id}` });
  const runId = `${graphName(s)}/pr-${number}`;
  const p = pullRequestOpened(world.repo, issue.number);
  return {
    number,
    runId,
    event: { name: 'pull_request', payload: p },
    inputs: { store: 'check-run' },
    journalText() {
      const run = [...world.repo.checkRuns.values()]
        .filter((c) => c.name === `interlock: ${runId}` && c.output.text?.includes('interlock-journal'))
        .at(-1);
      return run ? serializeJournal(decodeJournal(run.output.text ?? '', runId)) : undefined;
    },
    comment(body) {
      const c = world.comment(number, body) as { issue: Record<string, unknown> };
      c.issue = { ...c.issue, pull_request: { url: `https://api.github.com/repos/${FULL}/pulls/${number}` } };
      return c as unknown as Record<string, unknown>;
    },
  };
}

/** How many events of the person's kind the target has: what tells whether a command was applied (written). */
export function applications(text: string | undefined, verb: Verb, node: string): number {
  if (!text) return 0;
  const type = APPLIED_AS[verb];
  return parseJournal(text, 'journal').events.filter(
    (e) =>
      e.type === type &&
      (type === 'RunFailed' || type === 'RerunFromApproved' || ('node' in e && e.node === node)) &&
      (type !== 'NodeRecorded' || 'recorded_by' in e),
  ).length;
}

/** The event a person's command writes when it is applied. */
const APPLIED_AS: Record<Verb, string> = {
  approve: 'NodeApproved',
  'approve-rerun': 'RerunApproved',
  settle: 'NodeRecorded',
  'fail-run': 'RunFailed',
  'rerun-from': 'RerunFromApproved',
};

const COMMENT_ACK: Partial<Record<Verb, 'NodeApproved' | 'RerunApproved' | 'NodeRecorded'>> = {
  approve: 'NodeApproved',
  'approve-rerun': 'RerunApproved',
  settle: 'NodeRecorded',
};

export function commentBody(s: Scenario, verb: Verb): string {
  const t = target(s);
  if (verb === 'settle') return `/settle ${t} ${NOTE}`;
  if (verb === 'fail-run') return '/fail-run a person stops the run';
  if (verb === 'rerun-from') return `/rerun-from ${rerunFromNode(s)}`;
  return `/${verb} ${t}${verb === 'approve' && s.feature === 'guidance' ? `\n${GUIDANCE}` : ''}`;
}

/**
 * The Action's driver: each piece of a scenario as a step of its own, in a new job that has ended by the time the
 * next piece starts (recovery asks GitHub about it). The App's driver (crash-app.ts) replaces only `person`.
 */
export class ActionDriver implements Driver {
  readonly rec = new Trail();
  readonly subject: Subject;
  readonly ws: string;
  readonly tag = randomUUID();
  private readonly env: Record<string, string>;
  private killed: { o: StepOptions; state: Record<string, string> } | undefined;
  private lastComment: Record<string, unknown> | undefined;

  constructor(
    readonly s: Scenario,
    readonly world: ActionWorld,
    root: string,
  ) {
    this.subject = subjectFor(s, world);
    this.ws = workspace(join(root, 'action'), {
      [graphPath(s)]: graphText(s),
      ...Object.fromEntries(Object.entries(childFiles(s)).map(([n, t]) => [`.github/interlock/${n}`, t])),
      ...(s.outcome === 'fail-once' ? { 'fail-once': '' } : {}),
      ...(usesEngine(s) ? { [STAND_IN]: STAND_IN_SCRIPT } : {}),
      ...(s.feature === 'stop' ? { overspend: '' } : {}),
    });
    // The step's temporary folder is outside the workspace, as a runner's is: a folder in the workspace is shared
    // with the node users, and interlock refuses to stage a session's files in a folder they can write.
    // Readable by all as a runner's is (node users' homes are made in it), writable by the runner's user alone.
    const tmp = mkdtempSync(join(root, 'action', 'tmp-'));
    chmodSync(tmp, 0o755);
    // The runner gives every step the Actions cache: a session's files go from one workflow run to the next.
    // A step waits out the stale window of the GitHub it talks to (action-process.ts tells it the server's clock).
    this.env = {
      INTERLOCK_TEST_TAG: this.tag,
      TMPDIR: tmp,
      // A re-run of a comment job that died after journaling an approval waits out the claim's lease before it
      // dispatches (src/approvals/applying/retry-dispatch.ts): 60 s by default, a scenario's whole minute.
      INTERLOCK_DISPATCH_LEASE_MS: CRASH_DISPATCH_LEASE_MS,
      ...world.cache.env(),
    };
  }

  /** A `node: all` step of the scenario's run (in a new job unless given one), with more inputs or env. */
  options(job = this.world.job(), inputs: Record<string, string> = {}, env: Record<string, string> = {}) {
    return {
      apiUrl: this.world.server.url,
      repository: FULL,
      workspace: this.ws,
      eventName: this.subject.event.name,
      payload: this.subject.event.payload,
      inputs: {
        graph: graphPath(this.s),
        node: 'all',
        'on-held': 'succeed',
        ...this.subject.inputs,
        ...inputs,
      },
      job,
      env: { ...this.env, ...env },
      // Thousands of steps of one bundle: each after a process's first skips compiling it (action-process.ts).
      compileCache: true,
    } satisfies StepOptions;
  }

  /** Runs a step to its end, keeping the journal after it and what it acknowledged. */
  async call(label: string, o: StepOptions) {
    this.rec.processes++;
    const r = await runStepWithin(o, CALL_TIMEOUT_MS);
    if (process.env.INTERLOCK_CRASH_LOG)
      process.stderr.write(`\n===== ${label} (${r.code}/${r.signal})\n${r.stdout}\n${r.stderr}\n`);
    this.rec.expect(!r.timedOut, `${label} hung for a minute and was killed`, r.stdout);
    this.rec.snapshots.push({ after: label, text: this.subject.journalText() });
    this.rec.acks.push(...acksIn(label, r.stdout));
    this.checkLayout(label);
    return r;
  }

  /**
   * On the git store the bundle keeps a new run on its own branch (`interlock-journal-runs/<run-id>`, today's
   * layout), never on the journal branch of before, whatever step or person wrote last.
   */
  private checkLayout(label: string) {
    if (this.s.store !== 'git') return;
    const layout = this.world.journalLayout(this.subject.runId);
    this.rec.expect(
      layout === undefined || layout === 'run-branch',
      `after ${label} the journal is on ${layout === 'both' ? 'both branches' : 'the journal branch of before'}, not on the run's own branch`,
    );
  }

  /** A step in a job of its own, which has ended when the step returns. */
  private async inJob(label: string, inputs: Record<string, string> = {}, env: Record<string, string> = {}) {
    const job = this.world.job();
    const r = await this.call(label, this.options(job, inputs, env));
    this.world.endJob(job.runId);
    return r;
  }

  async crashAt(fp: string) {
    const r = await this.inJob('crash', {}, { INTERLOCK_FAILPOINTS: fp });
    this.rec.expect(r.signal === 'SIGKILL', `the failpoint ${fp} did not fire`, r.stdout);
  }

  async killMidCommand() {
    const { ws, rec } = this;
    writeFileSync(join(ws, 'hang'), '');
    const o = this.options();
    rec.processes++;
    const { child, done } = startStep(o);
    await waitUntil(() => existsSync(join(ws, 'started')), 'the command to start hanging');
    const pid = Number(readFileSync(join(ws, 'pid'), 'utf8').trim());
    child.kill('SIGKILL');
    killGroup(pid);
    const r = await done;
    await waitUntil(() => gone(pid) && groupGone(pid), 'the killed command and its group to exit');
    rmSync(join(ws, 'started'), { force: true });
    rec.snapshots.push({ after: 'killed mid-command', text: this.subject.journalText() });
    rec.acks.push(...acksIn('killed mid-command', r.stdout));
    rec.expect(r.signal === 'SIGKILL', 'the step was not killed mid-command', r.stdout);
    this.killed = { o, state: r.state };
    // The post step of a killed job runs before GitHub shows the job ended; without one, it has ended.
    if (!/post-step|recovery:/.test(this.s.boundary)) this.world.endJob(o.job.runId);
  }

  async recoverAfterKill(fp?: string) {
    const { o, state } = this.killed!;
    const env = { ...this.env, ...(fp ? { INTERLOCK_FAILPOINTS: fp } : {}) };
    const post = await this.call('post step', { ...o, entry: 'post.js', state, env });
    if (fp) this.rec.expect(post.signal === 'SIGKILL', `the post step did not die at ${fp}`, post.stdout);
    else
      this.rec.expect(
        post.code === 0 && post.stdout.includes(`"${target(this.s)}" was interrupted when the step stopped`),
        'the post step did not mark the node interrupted',
        post.stdout,
      );
    this.world.endJob(o.job.runId);
  }

  async step(label: string) {
    await this.inJob(label);
  }

  async recover(label: string) {
    await this.inJob(label, { mode: 'recover' });
  }

  /** `mode: comment` on a new comment, or on the last one again (a re-run job on the same event). */
  async person(label: string, verb: Verb, opts: { delivery: Delivery; failpoint?: string }) {
    const { rec, s } = this;
    const payload =
      opts.delivery === 'again' && this.lastComment
        ? this.lastComment
        : this.subject.comment(commentBody(s, verb));
    this.lastComment = payload;
    const before = applications(this.subject.journalText(), verb, target(s));
    const job = this.world.job();
    const r = await this.call(label, {
      ...this.options(job, {}, opts.failpoint ? { INTERLOCK_FAILPOINTS: opts.failpoint } : {}),
      eventName: 'issue_comment',
      payload,
      inputs: { mode: 'comment', ...this.subject.inputs },
    });
    this.world.endJob(job.runId);
    if (opts.failpoint)
      rec.expect(r.signal === 'SIGKILL', `${verb} did not die at ${opts.failpoint}`, r.stdout);
    // Written, not only completed: a re-run that finds the command journaled and its dispatch owed completes by
    // dispatching it (WorkflowDispatchRetried), and applies nothing again.
    const completed = r.code === 0 && r.outputs.status === 'completed';
    const applied = completed && applications(this.subject.journalText(), verb, target(s)) > before;
    if (!opts.failpoint && !completed && !['refused', 'ignored'].includes(r.outputs.status ?? ''))
      rec.expect(false, `${label}: mode: comment said ${r.outputs.status} (exit ${r.code})`, r.stdout);
    const type = COMMENT_ACK[verb];
    if (applied && type) rec.acks.push({ by: label, type, node: target(s), person: APPROVER });
    return applied;
  }

  /** Stops what the driver keeps running between pieces (nothing, for the Action). */
  async close(): Promise<void> {}

  async finish() {
    const fin = await this.call('finish', this.options());
    this.rec.expect(
      fin.code === 0 && ['completed', 'run-completed'].includes(fin.outputs.status ?? ''),
      `the final step said ${fin.outputs.status} (exit ${fin.code})`,
      fin.stdout,
    );
  }
}

/** What the scenario left in the workspace, checked. */
export function checkRig(s: Scenario, rig: ActionDriver): string[] {
  const log = join(rig.ws, 'effects.log');
  const effects = existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l && NODES.some((n) => [' ', '[', '/'].some((c) => l.startsWith(`${n}${c}`))))
    : [];
  const contexts = new Map<number, string>();
  for (const f of readdirSync(rig.ws))
    if (/^ctx-\d+\.json$/.test(f))
      contexts.set(Number(f.slice(4, -5)), readFileSync(join(rig.ws, f), 'utf8'));
  return [
    ...rig.rec.problems,
    ...checkScenario({ scenario: s, snapshots: rig.rec.snapshots, acks: rig.rec.acks, effects, contexts }),
  ];
}

/** Runs one scenario through the face of `driver` (the Action's, or the App's). */
export async function runDriver(
  s: Scenario,
  driver: ActionDriver,
): Promise<{ problems: string[]; processes: number }> {
  try {
    await play(driver, driver.rec, s);
    return { problems: checkRig(s, driver), processes: driver.rec.processes };
  } finally {
    await driver.close();
    await killTagged(driver.tag);
    rmSync(driver.ws, { recursive: true, force: true });
  }
}

/** Runs one scenario through the Action. */
export const runAction = (s: Scenario, world: ActionWorld, root: string) =>
  runDriver(s, new ActionDriver(s, world, root));
