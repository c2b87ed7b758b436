/**
 * The flows the API-fault suite breaks: each brings a fresh world to the moment before a user-visible action (a
 * step of the bundled Action, a delivery to the App) and runs it, with payloads shaped as GitHub sends them.
 * Together they make every REST request in src/ (scripts/reliability.ts computes that list from the source).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionIdentifier, checkRunName } from '../../src/approvals/replies/check-run.js';
import type { NewEvent } from '../../src/journal/events/events.js';
import { parseJournal } from '../../src/journal/parse.js';
import { idempotencyKey } from '../../src/protocol/attempt/context.js';
import { bodyMark, markHash } from '../../src/protocol/attempt/effect-marks.js';
import { commitCheckout } from '../action/effect-world.js';
import { webhookExample } from '../support/fixtures.js';
import type { GitLayout } from '../support/seed-journal.js';
import {
  type Case,
  dispatched,
  type FlowRun,
  type Job,
  receive,
  recorded,
  runnerOf,
  seed,
  started,
  step,
  stepFor,
  writeJournal,
} from './api-faults-case.js';
import { APPROVER, FULL, OWNER, ourRepository } from './github-world.js';

/** plan then ship, both `replay: never`, each leaving one line per attempt; ship's evidence asks GitHub. */
const graphValidating = (checks: string[]) => `interlock: 1
name: faults
nodes:
  - id: plan
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
  - id: ship
    depends_on: [plan]
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
    validates:
${checks.map((c) => `      - ${c}\n`).join('')}`;

export const GRAPH = graphValidating(['branch: main', 'issue: { state: open }']);

/** plan, then two effects interlock performs itself: a comment (found by its marker) and labels. */
export const EFFECT_GRAPH = `interlock: 1
name: faults
nodes:
  - id: plan
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
  - id: ship
    depends_on: [plan]
    effect:
      comment: { body: "shipped" }
  - id: label
    depends_on: [ship]
    effect:
      labels: { add: [shipped], remove: [wip] }
`;

/**
 * plan, then a pull request of the workspace's change: interlock's own commit through the git data API (a blob
 * for the binary file, the tree, the commit, the ref), then the pull request found by its marker or opened.
 */
export const PR_EFFECT_GRAPH = `interlock: 1
name: faults
nodes:
  - id: plan
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
  - id: ship
    depends_on: [plan]
    effect:
      pull_request: { branch: interlock/fix, title: Fix, body: Fixes it, labels: [shipped] }
`;

/** plan, then labels (added, removed, read back) and a draft release (looked for by its mark, then made). */
export const LABEL_RELEASE_GRAPH = `interlock: 1
name: faults
nodes:
  - id: plan
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
  - id: label
    depends_on: [plan]
    effect:
      labels: { add: [shipped], remove: [wip] }
  - id: release
    depends_on: [label]
    effect:
      release: { tag: v2.0.0, draft: true }
`;

/** The same, with ship's evidence of every other kind GitHub answers: a pull request, a tag, a release, a check. */
export const EVIDENCE_GRAPH = graphValidating([
  'pull_request: { head: feature }',
  'tag: v1.0.0',
  'release: v1.0.0',
  'check: { ref: main, name: ci/test }',
]);

/** Approvers listed by team: a person without write permission approves as a member. */
const TEAM_CONFIG = `approvals:
  permission: write
  approvers: [${OWNER}/reviewers]
`;
const TEAM_MEMBER = 'tom';
const NEEDS_HUMAN = 'interlock: needs human';
const PR_NUMBER = 100;

export interface FlowSpec {
  graph?: string;
  subject?: 'issue' | 'pr';
  store?: 'git' | 'check-run';
  /** How a finished run ends: completed (default), or failed (a `/fail-run`). */
  ends?: 'completed' | 'failed';
  /** Where the git store keeps the run the flow seeds: its own branch (default), or the journal branch of before. */
  layout?: GitLayout;
  /** Brings the world to the moment before the flow (its journal written by the git store's own writer). */
  prepare(c: Case): void | Promise<void>;
  run(c: Case): Promise<FlowRun>;
}

/** An earlier job's run, ended (its runner is gone), and the journal it left: plan recorded. */
function planRecorded(c: Case): { earlier: Job; events: ReturnType<typeof started>[] } {
  const earlier = c.world.job();
  c.world.endJob(earlier.runId);
  return {
    earlier,
    events: [started(c, earlier), dispatched('plan', 1, runnerOf(earlier)), recorded('plan', 1)],
  };
}

/** ship was interrupted and waits for `/approve-rerun ship`. */
function shipHeld(c: Case): Promise<void> {
  const { earlier, events } = planRecorded(c);
  return seed(c, [
    ...events,
    dispatched('ship', 1, runnerOf(earlier)),
    { type: 'NodeInterrupted', node: 'ship', attempt: 1, observed_usage: { wall_ms: 9 }, by: 'interlock' },
  ]);
}

/** An `issue_comment.created` delivery; on a pull request it carries `issue.pull_request`, as GitHub sends it. */
export function commentDelivery(c: Case, body: string, login = APPROVER, labels: string[] = []) {
  const payload = c.world.comment(c.subject.number, body, login) as { issue: Record<string, unknown> };
  payload.issue.labels = labels.map((name, i) => ({ id: i + 1, name, color: 'ededed', default: false }));
  if (c.subject.kind === 'pr')
    payload.issue.pull_request = {
      url: `${c.world.server.url}/repos/${FULL}/pulls/${c.subject.number}`,
      html_url: `https://github.com/${FULL}/pull/${c.subject.number}`,
    };
  return { name: 'issue_comment', payload: payload as Record<string, unknown> };
}

/** A press of the check run's "Approve rerun" button: a `check_run.requested_action` delivery. */
function buttonDelivery(c: Case, checkRunId: number, node: string) {
  const p = webhookExample('check_run', 'requested_action') as Record<string, unknown> & {
    check_run: Record<string, unknown>;
    repository: Record<string, unknown>;
    sender: Record<string, unknown>;
  };
  p.check_run = {
    ...p.check_run,
    id: checkRunId,
    external_id: c.runId,
    name: checkRunName(c.runId),
    html_url: `https://github.com/${FULL}/runs/${checkRunId}`,
  };
  p.requested_action = { identifier: actionIdentifier(c.graph, node) };
  p.sender = { ...p.sender, login: APPROVER, type: 'User' };
  p.repository = ourRepository(p.repository);
  delete p.installation;
  return { name: 'check_run', payload: p };
}

const nextStep = (c: Case) => step(stepFor(c, { node: 'next' }));
const deliver = (c: Case) => receive(c, c.delivery!);
/** `mode: stuck` on its schedule, with runs quiet for over an hour taken as stuck. */
const stuckStep = (c: Case) =>
  step({
    ...stepFor(c, { mode: 'stuck', 'stuck-after': '1h' }),
    eventName: 'schedule',
    payload: { schedule: '17 * * * *' },
  });

/**
 * The flows whose face reads a run wherever the git store keeps it, first as they are on the run's own branch (what
 * the bundled action writes today), then again with the run on the journal branch of before, where a run started
 * before run branches goes on: the same flow, named with `OF_BEFORE`, must end in the same journal.
 */
export const OF_BEFORE = ', journal on the journal branch of before';
const ofBefore = (spec: FlowSpec): FlowSpec => ({ ...spec, layout: 'journal-branch' });

const laterStep: FlowSpec = { prepare: (c) => seed(c, planRecorded(c).events), run: nextStep };
const recoveryStep: FlowSpec = {
  prepare: async (c) => {
    const { earlier, events } = planRecorded(c);
    await seed(c, [...events, dispatched('ship', 1, runnerOf(earlier))]);
  },
  run: nextStep,
};
const postStep: FlowSpec = {
  prepare: async (c) => {
    const { events } = planRecorded(c);
    c.job = c.world.job();
    await seed(c, [...events, dispatched('ship', 1, runnerOf(c.job))]);
  },
  run: (c) =>
    step(
      stepFor(
        c,
        { node: 'next' },
        {
          entry: 'post.js',
          job: c.job!,
          state: {
            'run-id': c.runId,
            graph: c.graph.path,
            subject: `issue-${c.subject.number}`,
            'subject-sha': '',
          },
        },
      ),
    ),
};
/** `mode: stuck` on its schedule, over a run quiet for three hours. */
const modeStuck: FlowSpec = {
  prepare: (c) => seed(c, planRecorded(c).events, { ageMs: 3 * 3_600_000 }),
  run: stuckStep,
};
const appComment: FlowSpec = {
  prepare: async (c) => {
    await shipHeld(c);
    c.delivery = commentDelivery(c, '/approve-rerun ship');
  },
  run: deliver,
};
const approveButton: FlowSpec = {
  subject: 'pr',
  prepare: async (c) => {
    const repo = c.world.repo;
    const pr = repo.addPull({ number: PR_NUMBER, head: 'feature', base: 'main', labels: [NEEDS_HUMAN] });
    await shipHeld(c);
    const run = repo.addCheckRun({
      name: checkRunName(c.runId),
      head_sha: repo.pullHeadSha(pr),
      status: 'in_progress',
      external_id: c.runId,
    });
    c.delivery = buttonDelivery(c, run.id, 'ship');
  },
  run: deliver,
};
const modeComment: FlowSpec = {
  prepare: async (c) => {
    await shipHeld(c);
    c.delivery = commentDelivery(c, '/approve-rerun ship');
  },
  run: (c) =>
    step({
      apiUrl: c.world.server.url,
      repository: FULL,
      workspace: c.ws,
      eventName: 'issue_comment',
      payload: c.delivery!.payload,
      inputs: { mode: 'comment' },
      job: c.world.job(),
      env: c.env,
    }),
};

export const FLOW_SPECS = {
  'action: first step': { prepare: () => {}, run: nextStep },
  'action: later step': laterStep,
  'action: recovery step': recoveryStep,
  'action: recovery step, job not listed in its run': {
    // The attempt's job is not among its workflow run's jobs: recovery asks for the run attempt itself.
    prepare: async (c) => {
      const { earlier, events } = planRecorded(c);
      await seed(c, [
        ...events,
        dispatched('ship', 1, runnerOf({ ...earlier, runner: 'runner-gone' }, 'deploy')),
      ]);
    },
    run: nextStep,
  },
  'action: post step': postStep,
  'action: effect steps (comment, labels)': {
    graph: EFFECT_GRAPH,
    prepare: (c) => seed(c, planRecorded(c).events),
    run: nextStep,
  },
  'action: effect step (push and pull request)': {
    graph: PR_EFFECT_GRAPH,
    prepare: async (c) => {
      // The workspace is a checkout of a commit GitHub has, with a change since: a text file and a binary one.
      commitCheckout(c.world.repo, c.ws, 'checkout');
      writeFileSync(join(c.ws, 'fix.txt'), 'fixed\n');
      writeFileSync(join(c.ws, 'fix.bin'), Buffer.from([0, 1, 2, 3]));
      await seed(c, planRecorded(c).events);
    },
    run: nextStep,
  },
  'action: effect step on the branch and pull request it made before': {
    // The branch is at the checkout's commit (moved on with a ref update), and the pull request carries the mark
    // of ship's failed attempt 1 (whose hash its dispatch journaled) under an old title: updated, not opened again.
    graph: PR_EFFECT_GRAPH,
    prepare: async (c) => {
      commitCheckout(c.world.repo, c.ws, 'checkout');
      writeFileSync(join(c.ws, 'fix.txt'), 'fixed\n');
      const key = idempotencyKey({ runId: c.runId, node: 'ship' });
      const value = 'a1'.repeat(32); // a mark's value is 64 hex digits
      c.world.repo.addPull({
        number: PR_NUMBER,
        head: 'interlock/fix',
        base: 'checkout',
        title: 'Old',
        body: `Fixes it\n\n${bodyMark(key, value)}`,
      });
      const { earlier, events } = planRecorded(c);
      await seed(c, [
        ...events,
        { ...dispatched('ship', 1, runnerOf(earlier)), effect_mark: markHash(key, value) } as NewEvent,
        {
          type: 'NodeFailed',
          node: 'ship',
          attempt: 1,
          failures: [{ check: 'effect pull_request', message: 'GitHub answered 502' }],
          usage: { wall_ms: 10 },
        } as NewEvent,
      ]);
    },
    run: nextStep,
  },
  'action: effect steps (labels, draft release)': {
    graph: LABEL_RELEASE_GRAPH,
    prepare: (c) => seed(c, planRecorded(c).events),
    run: (c) => step(stepFor(c, { node: 'all' })),
  },
  'action: later step, journal on the journal branch of before': ofBefore(laterStep),
  'action: evidence step (pull request, tag, release, check)': {
    graph: EVIDENCE_GRAPH,
    prepare: async (c) => {
      const repo = c.world.repo;
      repo.addPull({ number: PR_NUMBER, head: 'feature', base: 'main', title: 'Feature' });
      repo.createTag('v1.0.0');
      repo.addRelease({ tag: 'v1.0.0' });
      // CI's job ci/test passed on main: its check run is the job's own (same id), as GitHub Actions keeps it.
      repo.addWorkflowRun({
        workflow: 'ci.yml',
        head_branch: 'main',
        status: 'completed',
        conclusion: 'success',
        jobs: [{ name: 'ci/test', conclusion: 'success' }],
      });
      await seed(c, planRecorded(c).events);
    },
    run: nextStep,
  },
  'action: progress comment race': {
    // No progress comment yet; as this step posts one, another job stores its own first: this one deletes its.
    prepare: async (c) => {
      await seed(c, planRecorded(c).events, { progress: false });
      let raced = false;
      c.onRequest = (r) => {
        if (raced || r.method !== 'POST' || r.path !== `/repos/${FULL}/issues/${c.subject.number}/comments`)
          return;
        raced = true;
        const body = `<!-- interlock:progress ${c.runId} -->\nanother job`;
        const theirs = c.world.repo.addComment(c.subject.number, body, 'github-actions[bot]');
        const j = parseJournal(c.world.journalText(c.runId)!, 'journal');
        writeJournal(c, { ...j, progress_comment_id: theirs.id });
      };
    },
    run: nextStep,
  },
  // Today's layout: stuck mode lists the run branches from their refs and reads each at the commit it saw. First of
  // the two stuck flows, so the requests both make are faulted here (api-faults.ts distinctPoints).
  'action: mode stuck': modeStuck,
  // A run on the journal branch of before: stuck mode lists it with the tree and reads its blob.
  'action: mode stuck, journal on the journal branch of before': ofBefore(modeStuck),
  'action: check-run store on a pull request': {
    subject: 'pr',
    store: 'check-run',
    prepare: (c) => {
      c.world.repo.addPull({ number: PR_NUMBER, head: 'feature', base: 'main', title: 'Feature' });
    },
    run: nextStep,
  },
  'app: comment': appComment,
  'app: comment on a pull request by a team member': {
    subject: 'pr',
    prepare: async (c) => {
      const repo = c.world.repo;
      repo.addPull({
        number: PR_NUMBER,
        head: 'feature',
        base: 'main',
        title: 'Feature',
        labels: [NEEDS_HUMAN],
      });
      repo.commitFiles('main', { '.github/interlock.yml': TEAM_CONFIG });
      repo.setCollaborator(TEAM_MEMBER, 'read');
      c.world.server.state.addOrg(OWNER, { reviewers: { members: { [TEAM_MEMBER]: 'member' } } });
      await shipHeld(c);
      c.delivery = commentDelivery(c, '/approve-rerun ship', TEAM_MEMBER, [NEEDS_HUMAN]);
    },
    run: deliver,
  },
  'app: Approve rerun button': approveButton,
  'app: /fail-run': {
    ends: 'failed',
    prepare: async (c) => {
      const { events } = planRecorded(c);
      c.job = c.world.job();
      await seed(c, [...events, dispatched('ship', 1, runnerOf(c.job))]);
      c.delivery = commentDelivery(c, '/fail-run the release is called off');
    },
    run: deliver,
  },
  'action: mode comment': modeComment,
  'app: the same comment delivered twice': {
    prepare: async (c) => {
      await shipHeld(c);
      c.delivery = commentDelivery(c, '/approve-rerun ship');
    },
    run: async (c) => {
      const first = await deliver(c);
      if (!first.ok) return first;
      // A copy (a redelivery): its approval is journaled, so it looks for the workflow run that approval dispatched.
      return deliver(c);
    },
  },
  // The other faces that read a run of before, last: the requests they share with their run-branch flows are
  // faulted there, and only those of the journal branch of before here.
  'action: recovery step, journal on the journal branch of before': ofBefore(recoveryStep),
  'action: post step, journal on the journal branch of before': ofBefore(postStep),
  'app: comment, journal on the journal branch of before': ofBefore(appComment),
  'app: Approve rerun button, journal on the journal branch of before': ofBefore(approveButton),
  'action: mode comment, journal on the journal branch of before': ofBefore(modeComment),
} satisfies Record<string, FlowSpec>;

export type FlowName = keyof typeof FLOW_SPECS;
export const FLOWS = Object.keys(FLOW_SPECS) as FlowName[];
export const flowSpec = (name: FlowName): FlowSpec => FLOW_SPECS[name];
