/**
 * The Action face of the crash matrix: the bundle (`node dist/index.js`, its post step `dist/post.js`) as a runner
 * runs it, against the shared local GitHub, on the git store (an issue per scenario) or the check-run store (a
 * pull request per scenario, the journal in a check run on its head). People act through `mode: comment`.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serializeJournal } from '../../src/journal/parse.js';
import { decodeJournal } from '../../src/store/check-run.js';
import { pullRequestOpened } from '../action/world.js';
import { type StepOptions, type StepResult, startStep } from '../support/action-process.js';
import { issuesLabeled } from '../support/fixtures.js';
import { acksIn, checkScenario } from './crash-check.js';
import { GUIDANCE, graphName, graphPath, graphText } from './crash-graphs.js';
import { NODES, type Scenario, target } from './crash-model.js';
import { type Delivery, type Driver, play, Trail, type Verb } from './crash-play.js';
import { type ActionWorld, APPROVER, FULL, OWNER, REPO, workspace } from './github-world.js';
import { gone, killGroup, killTagged, waitUntil } from './support.js';

const CALL_TIMEOUT_MS = 60_000;
export const NOTE = 'checked by hand: the side effect is there';

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

const COMMENT_ACK: Partial<Record<Verb, 'NodeApproved' | 'RerunApproved' | 'NodeRecorded'>> = {
  approve: 'NodeApproved',
  'approve-rerun': 'RerunApproved',
  settle: 'NodeRecorded',
};

export function commentBody(s: Scenario, verb: Verb): string {
  const t = target(s);
  if (verb === 'settle') return `/settle ${t} ${NOTE}`;
  if (verb === 'fail-run') return '/fail-run a person stops the run';
  return `/${verb} ${t}${verb === 'approve' && s.feature === 'guidance' ? `\n${GUIDANCE}` : ''}`;
}

/** The pieces of an Action scenario a driver shares with the App's (which replaces only `person`). */
export interface ActionRig {
  driver: Driver;
  rec: Trail;
  ws: string;
  tag: string;
  subject: Subject;
}

export function actionRig(s: Scenario, world: ActionWorld, root: string): ActionRig {
  const rec = new Trail();
  const subject = subjectFor(s, world);
  const ws = workspace(join(root, 'action'), {
    [graphPath(s)]: graphText(s),
    ...(s.outcome === 'fail-once' ? { 'fail-once': '' } : {}),
  });
  const tmp = join(ws, '.tmp');
  mkdirSync(tmp);
  const tag = randomUUID();
  const env = { INTERLOCK_TEST_TAG: tag, TMPDIR: tmp };
  const base = (job = world.job(), inputs: Record<string, string> = {}, extra: Record<string, string> = {}) =>
    ({
      apiUrl: world.server.url,
      repository: FULL,
      workspace: ws,
      eventName: subject.event.name,
      payload: subject.event.payload,
      inputs: { graph: graphPath(s), node: 'all', 'on-held': 'succeed', ...subject.inputs, ...inputs },
      job,
      env: { ...env, ...extra },
    }) satisfies StepOptions;
  const call = async (label: string, o: StepOptions) => {
    rec.processes++;
    const r = await stepOnce(o);
    rec.expect(!r.timedOut, `${label} hung for a minute and was killed`, r.stdout);
    rec.snapshots.push({ after: label, text: subject.journalText() });
    rec.acks.push(...acksIn(label, r.stdout));
    return r;
  };
  let killed: { o: StepOptions; state: Record<string, string> } | undefined;
  let lastComment: Record<string, unknown> | undefined;
  const driver: Driver = {
    async crashAt(fp) {
      const job = world.job();
      const r = await call('crash', base(job, {}, { INTERLOCK_FAILPOINTS: fp }));
      rec.expect(r.signal === 'SIGKILL', `the failpoint ${fp} did not fire`, r.stdout);
      world.endJob(job.runId);
    },
    async killMidCommand() {
      writeFileSync(join(ws, 'hang'), '');
      const o = base();
      rec.processes++;
      const { child, done } = startStep(o);
      await waitUntil(() => existsSync(join(ws, 'started')), 'the command to start hanging');
      const pid = Number(readFileSync(join(ws, 'pid'), 'utf8').trim());
      child.kill('SIGKILL');
      killGroup(pid);
      const r = await done;
      await waitUntil(() => gone(pid), 'the killed command to exit');
      rmSync(join(ws, 'started'), { force: true });
      rec.snapshots.push({ after: 'killed mid-command', text: subject.journalText() });
      rec.acks.push(...acksIn('killed mid-command', r.stdout));
      rec.expect(r.signal === 'SIGKILL', 'the step was not killed mid-command', r.stdout);
      killed = { o, state: r.state };
      // The post step of a killed job runs before GitHub shows the job ended; without one, it has ended.
      if (!/post-step|recovery:/.test(s.boundary)) world.endJob(o.job.runId);
    },
    async recoverAfterKill(fp) {
      const { o, state } = killed!;
      const post = await call('post step', {
        ...o,
        entry: 'post.js',
        state,
        env: { ...env, ...(fp ? { INTERLOCK_FAILPOINTS: fp } : {}) },
      });
      const t = target(s);
      if (fp) rec.expect(post.signal === 'SIGKILL', `the post step did not die at ${fp}`, post.stdout);
      else
        rec.expect(
          post.code === 0 && post.stdout.includes(`"${t}" was interrupted when the step stopped`),
          'the post step did not mark the node interrupted',
          post.stdout,
        );
      world.endJob(o.job.runId);
    },
    async step(label) {
      const job = world.job();
      await call(label, base(job));
      world.endJob(job.runId);
    },
    async recover(label) {
      const job = world.job();
      await call(label, base(job, { mode: 'recover' }));
      world.endJob(job.runId);
    },
    async person(label, verb, opts: { delivery: Delivery; failpoint?: string }) {
      const payload =
        opts.delivery === 'again' && lastComment ? lastComment : subject.comment(commentBody(s, verb));
      lastComment = payload;
      const job = world.job();
      const r = await call(label, {
        ...base(job, { mode: 'comment' }, opts.failpoint ? { INTERLOCK_FAILPOINTS: opts.failpoint } : {}),
        eventName: 'issue_comment',
        payload,
        inputs: { mode: 'comment', ...subject.inputs },
      });
      world.endJob(job.runId);
      if (opts.failpoint)
        rec.expect(r.signal === 'SIGKILL', `${verb} did not die at ${opts.failpoint}`, r.stdout);
      const applied = r.code === 0 && r.outputs.status === 'completed';
      if (!opts.failpoint && !applied && !['refused', 'ignored'].includes(r.outputs.status ?? ''))
        rec.expect(false, `${label}: mode: comment said ${r.outputs.status} (exit ${r.code})`, r.stdout);
      const type = COMMENT_ACK[verb];
      if (applied && type) rec.acks.push({ by: label, type, node: target(s), person: APPROVER });
      return applied;
    },
    async finish() {
      const fin = await call('finish', base());
      rec.expect(
        fin.code === 0 && ['completed', 'run-completed'].includes(fin.outputs.status ?? ''),
        `the final step said ${fin.outputs.status} (exit ${fin.code})`,
        fin.stdout,
      );
    },
  };
  return { driver, rec, ws, tag, subject };
}

/** What the scenario left in the workspace, checked. */
export function checkRig(s: Scenario, rig: ActionRig): string[] {
  const log = join(rig.ws, 'effects.log');
  const effects = existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l && NODES.some((n) => l.startsWith(`${n} `)))
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

/** Runs one scenario through the Action. */
export async function runAction(
  s: Scenario,
  world: ActionWorld,
  root: string,
): Promise<{ problems: string[]; processes: number }> {
  const rig = actionRig(s, world, root);
  try {
    await play(rig.driver, rig.rec, s);
    return { problems: checkRig(s, rig), processes: rig.rec.processes };
  } finally {
    await killTagged(rig.tag);
    rmSync(rig.ws, { recursive: true, force: true });
  }
}
