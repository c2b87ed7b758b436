/**
 * A repository on the local GitHub with a run waiting for a person, and real webhook payloads pointed at it.
 * Every test builds its own world: a fresh server, so no test sees another's journal.
 */

import { generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import Bottleneck from 'bottleneck/light.js';
import { Probot, ProbotOctokit } from 'probot';
import { interlockApp } from '../../src/app/probot.js';
import { createClient } from '../../src/github/client.js';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Graph } from '../../src/graph/model.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../../src/journal/events/events.js';
import type { RunnerInfo } from '../../src/journal/events/fields.js';
import { appendEvents, parseJournal } from '../../src/journal/parse.js';
import { NEEDS_HUMAN_LABEL } from '../../src/render/words.js';
import { DEFAULT_JOURNAL_BRANCH } from '../../src/store/git.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import {
  type GitHubServer,
  type LikeGitHubOptions,
  type RepoState,
  startGitHubServer,
} from '../support/github-server.js';
import { handlerDeps } from '../support/handler-deps.js';
import { journalText } from '../support/journal-text.js';
import { type GitLayout, gitLayoutOf, seedGitJournal } from '../support/seed-journal.js';

const require = createRequire(import.meta.url);
const examples = require('@octokit/webhooks-examples') as Array<{
  name: string;
  examples: Array<Record<string, unknown> & { action?: string }>;
}>;

/** A deep copy of the first `@octokit/webhooks-examples` payload for `event` with `action`. */
export function example(event: string, action?: string): Record<string, unknown> {
  const ex = examples.find((e) => e.name === event)?.examples.find((e) => e.action === action);
  if (!ex) throw new Error(`no webhooks-examples payload for ${event}.${action}`);
  return structuredClone(ex);
}

/**
 * Probot's Octokit with retry and throttling off. The object form of `defaults` that probot documents is
 * overridden by the throttle options probot adds itself (writes then wait a second each); the function form
 * runs after probot's and wins.
 */
export function quietOctokit(): typeof ProbotOctokit {
  return ProbotOctokit.defaults((options: Record<string, unknown>) => ({
    ...options,
    retry: { enabled: false },
    throttle: { ...(options.throttle as object), enabled: false },
  }));
}

/**
 * Probot's Octokit with retry and throttling on but their waits made tiny (retry-after in units of 5 ms, no
 * spacing between writes): for tests of what the App's client retries, not how long it waits.
 */
export function fastProbotOctokit(id: string): typeof ProbotOctokit {
  const group = (name: string) => new Bottleneck.Group({ id: `${id}-${name}`, maxConcurrent: 1, minTime: 0 });
  return ProbotOctokit.defaults((options: Record<string, unknown>) => ({
    ...options,
    retry: { ...(options.retry as object), retryAfterBaseValue: 5 },
    throttle: {
      ...(options.throttle as object),
      retryAfterBaseValue: 5,
      write: group('write'),
      notifications: group('notify'),
    },
  }));
}

export const OWNER = 'acme';
export const REPO = 'widgets';
export const GRAPH_PATH = '.interlock/fix.yml';
export const WORKFLOW = 'interlock.yml';
export const WORKFLOW_REF = `${OWNER}/${REPO}/.github/workflows/${WORKFLOW}@refs/heads/main`;

export const GRAPH_TEXT = `interlock: 1
name: fix
nodes:
  - id: plan
    run: echo plan
  - id: deploy
    run: ./deploy.sh
    depends_on: [plan]
  - id: notify
    run: ./notify.sh
    depends_on: [deploy]
`;

export const CONFIG = (approvals = '') => `routes:
  - event: issues
    action: labeled
    label: fix
    graph: ${GRAPH_PATH}
${approvals ? `approvals:\n${approvals}` : ''}`;

/** Who is who: permissions on acme/widgets, and a team listed as approvers. */
export const PEOPLE = {
  admin: 'alice',
  maintainer: 'mia',
  writer: 'bob',
  writer2: 'carol',
  triager: 'tina',
  reader: 'rita',
  stranger: 'mallory',
  listed: 'lee',
  teamActive: 'tom',
  teamPending: 'pat',
} as const;

export const DEFAULT_APPROVALS = `  permission: write
  approvers: [lee, acme-org/releasers]
`;

const RUNNER: RunnerInfo = {
  kind: 'actions',
  workflow_run_id: 7001,
  run_attempt: 1,
  job: 'interlock',
  runner_name: 'runner-7001',
  workflow_ref: WORKFLOW_REF,
};

export interface RunSeed {
  runId?: string;
  subject?: string;
  /** `held` (deploy interrupted), `escalated` (deploy failed twice), `failed` (ended by RunFailed), `in-flight` (deploy dispatched by workflow run 7001, nothing after). */
  shape?: 'held' | 'escalated' | 'failed' | 'in-flight';
  progressCommentOn?: number;
  /** Where the git store keeps it: the world's layout unless given (src/store/git-layout.ts). */
  layout?: GitLayout;
}

export interface World {
  server: GitHubServer;
  repo: RepoState;
  graph: Graph;
  probot: Probot;
  /** The layout runs are seeded in: a run's own branch unless `startWorld` was given the journal branch. */
  layout: GitLayout;
  /** Seeds a run through the git store's own writer, in the world's layout; returns its run id. */
  seedRun(seed?: RunSeed): Promise<string>;
  /**
   * The run's journal, from the one layout that holds it: throws when it is on neither, on both (a face wrote a
   * second copy), or, for a run seeded here, elsewhere than it was seeded (a face moved it).
   */
  journal(runId?: string): Journal;
  /** The next comment id (comments are made on the server so reactions can land on them). */
  nextCommentId(): number;
  close(): Promise<void>;
}

export function buildJournal(graph: Graph, seed: RunSeed): Journal {
  const runId = seed.runId ?? 'fix/issue-1';
  const ref = { name: graph.name, hash: graph.hash, path: GRAPH_PATH };
  let j: Journal = { format: JOURNAL_FORMAT, run_id: runId, graph: ref, events: [] };
  let t = Date.UTC(2025, 0, 1);
  const add = (events: NewEvent[]) => {
    t += 1000;
    j = appendEvents(j, events, new Date(t).toISOString());
  };
  const dispatch = (node: string, attempt: number): NewEvent => ({
    type: 'NodeDispatched',
    node,
    attempt,
    replay: 'never',
    approach: 'default',
    runner: RUNNER,
  });
  add([
    {
      type: 'RunStarted',
      graph: ref,
      intent: 'issues.labeled label=fix',
      subject: seed.subject ?? 'issue-1',
      runner: RUNNER,
      inputs: {},
    },
  ]);
  add([dispatch('plan', 1)]);
  add([{ type: 'NodeRecorded', node: 'plan', attempt: 1, evidence: [], outputs: {}, usage: { wall_ms: 5 } }]);
  add([dispatch('deploy', 1)]);
  if (seed.shape === 'escalated') {
    const failed = (attempt: number): NewEvent => ({
      type: 'NodeFailed',
      node: 'deploy',
      attempt,
      failures: [{ check: 'exit', message: 'exited 1' }],
      usage: { wall_ms: 3 },
    });
    add([failed(1)]);
    add([dispatch('deploy', 2)]);
    add([failed(2)]);
    add([
      {
        type: 'NodeEscalated',
        node: 'deploy',
        report: { attempted: [], failed: [], approaches_tried: ['default'], needed: 'a person' },
      },
    ]);
  } else if (seed.shape !== 'in-flight') {
    add([{ type: 'NodeInterrupted', node: 'deploy', attempt: 1, observed_usage: { wall_ms: 9 } }]);
  }
  if (seed.shape === 'failed') add([{ type: 'RunFailed', reason: 'abandoned', by: 'alice' }]);
  return j;
}

export async function startWorld(
  opts: { approvals?: string; private?: boolean; likeGitHub?: LikeGitHubOptions; layout?: GitLayout } = {},
): Promise<World> {
  const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
  const server = await startGitHubServer({
    ...(opts.likeGitHub ? { likeGitHub: opts.likeGitHub } : {}),
    orgs: {
      'acme-org': {
        releasers: {
          members: {
            [PEOPLE.teamActive]: 'member',
            [PEOPLE.teamPending]: { role: 'member', state: 'pending' },
          },
        },
      },
    },
    repos: [
      {
        owner: OWNER,
        name: REPO,
        ...(opts.private ? { private: true } : {}),
        files: {
          'README.md': '# widgets\n',
          [GRAPH_PATH]: GRAPH_TEXT,
          '.github/interlock.yml': CONFIG(opts.approvals ?? DEFAULT_APPROVALS),
        },
        collaborators: {
          [PEOPLE.admin]: 'admin',
          [PEOPLE.maintainer]: 'maintain',
          [PEOPLE.writer]: 'write',
          [PEOPLE.writer2]: 'write',
          [PEOPLE.triager]: 'triage',
          [PEOPLE.reader]: 'read',
        },
        labels: [NEEDS_HUMAN_LABEL],
        issues: [
          { number: 1, title: 'Fix the add() bug', labels: ['fix', NEEDS_HUMAN_LABEL] },
          { number: 2, title: 'Another issue' },
        ],
        workflows: [{ file: WORKFLOW, inputs: ['run-id'] }],
      },
    ],
  });
  const repo = server.state.repo(`${OWNER}/${REPO}`);
  const probot = new Probot({
    githubToken: 'test',
    baseUrl: server.url,
    logLevel: 'fatal',
    Octokit: quietOctokit(),
  });
  await probot.load(interlockApp());
  let commentId = 90_000;
  const seededIn = new Map<string, GitLayout>();
  const world: World = {
    server,
    repo,
    graph,
    probot,
    layout: opts.layout ?? 'run-branch',
    async seedRun(seed = {}) {
      const runId = seed.runId ?? 'fix/issue-1';
      let j = buildJournal(graph, { ...seed, runId });
      if (seed.progressCommentOn !== undefined) {
        const c = repo.addComment(
          seed.progressCommentOn,
          `<!-- interlock:progress ${runId} -->\nold`,
          'github-actions[bot]',
        );
        j = { ...j, progress_comment_id: c.id };
      }
      const layout = seed.layout ?? world.layout;
      await seedGitJournal(server, `${OWNER}/${REPO}`, j, layout);
      seededIn.set(runId, layout);
      return runId;
    },
    journal(runId = 'fix/issue-1') {
      const where = gitLayoutOf(repo, runId, DEFAULT_JOURNAL_BRANCH);
      if (where === undefined) throw new Error(`no journal for ${runId}`);
      const seeded = seededIn.get(runId);
      if (where === 'both') throw new Error(`${runId}: its journal is on both layouts (a face made a copy)`);
      if (seeded !== undefined && where !== seeded)
        throw new Error(`${runId}: seeded on the ${seeded}, its journal is on the ${where} now`);
      return parseJournal(journalText(repo, runId, DEFAULT_JOURNAL_BRANCH)!, runId);
    },
    nextCommentId: () => ++commentId,
    close: () => server.close(),
  };
  return world;
}

export interface CommentSpec {
  body: string;
  login?: string;
  /** The account type GitHub reports (`User`, or `Bot`). */
  type?: string;
  issue?: number;
  action?: 'created' | 'edited' | 'deleted';
  /** For an edit: the body before it. */
  from?: string;
  labels?: string[];
  /** Reuse a comment id (a redelivery of the same comment). */
  id?: number;
  pr?: boolean;
}

/** A real `issue_comment` payload from @octokit/webhooks-examples, pointed at acme/widgets and this comment. */
export function commentEvent(world: World, spec: CommentSpec) {
  const p = example('issue_comment', spec.action ?? 'created') as {
    action: string;
    issue: { number: number; labels: Array<{ name: string }>; pull_request?: unknown; html_url: string };
    comment: { id: number; body: string; html_url: string; user: { login: string; type: string } };
    sender: { login: string; type: string };
    repository: {
      name: string;
      full_name: string;
      html_url: string;
      default_branch: string;
      owner: { login: string };
    };
    changes?: { body: { from: string } };
    installation?: unknown;
  };
  const number = spec.issue ?? 1;
  const login = spec.login ?? PEOPLE.writer;
  const type = spec.type ?? (login.endsWith('[bot]') ? 'Bot' : 'User');
  const id = spec.id ?? world.nextCommentId();
  if (!world.repo.comments.has(id) && world.repo.issue(number))
    world.repo.addComment(number, spec.body, login, { id });
  p.repository = {
    ...p.repository,
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    html_url: `https://github.com/${OWNER}/${REPO}`,
    default_branch: 'main',
    owner: { ...p.repository.owner, login: OWNER },
  };
  const kind = spec.pr ? 'pull' : 'issues';
  p.issue = {
    ...p.issue,
    number,
    html_url: `https://github.com/${OWNER}/${REPO}/${kind}/${number}`,
    labels: (spec.labels ?? (number === 1 ? ['fix', NEEDS_HUMAN_LABEL] : [])).map((name) => ({
      ...(p.issue.labels[0] ?? {}),
      name,
    })),
  };
  if (spec.pr)
    p.issue.pull_request = { url: `https://api.github.com/repos/${OWNER}/${REPO}/pulls/${number}` };
  else delete p.issue.pull_request;
  p.comment = {
    ...p.comment,
    id,
    body: spec.body,
    html_url: `https://github.com/${OWNER}/${REPO}/${kind}/${number}#issuecomment-${id}`,
    user: { ...p.comment.user, login, type },
  };
  p.sender = { ...p.sender, login, type };
  if (spec.action === 'edited') p.changes = { body: { from: spec.from ?? 'an earlier text' } };
  delete p.installation;
  return { id: `delivery-${id}`, name: 'issue_comment' as const, payload: p };
}

/** What the server holds after a comment: replies, reactions, approvals, dispatches. */
export function observe(world: World, commentId?: number, runId = 'fix/issue-1') {
  const replies = [...world.repo.comments.values()].filter((c) =>
    c.body.startsWith('<!-- interlock:reply -->'),
  );
  const reactions = commentId
    ? (world.repo.comments.get(commentId)?.reactions.map((r) => r.content) ?? [])
    : [];
  let journal: Journal | undefined;
  try {
    journal = world.journal(runId);
  } catch {
    journal = undefined;
  }
  return {
    replies: replies.map((c) => c.body),
    reactions,
    events: journal?.events ?? [],
    approvals: journal?.events.filter((e) => e.type === 'RerunApproved') ?? [],
    dispatches: world.repo.dispatches,
  };
}

/** What the command path (src/approvals) is given against this world's GitHub: a client that never retries. */
export function commandDeps(world: World) {
  return handlerDeps({
    octokit: createClient({ token: 'test', baseUrl: world.server.url, retries: 0, writeIntervalMs: 0 }),
    repo: { owner: OWNER, repo: REPO },
    // The journal branch as configured by default: runs are on its run branches, and runs of before on itself.
    journalBranch: DEFAULT_JOURNAL_BRANCH,
    webUrl: 'https://github.com',
  });
}

/** Delivers an event built here through Probot's `receive`, as Probot's own tests do. */
export function receive(world: World, ev: { id: string; name: string; payload: unknown }): Promise<void> {
  return world.probot.receive(ev as unknown as Parameters<Probot['receive']>[0]);
}

/** The App's private key for the tests that run it as a server (`npm start`), made once per test file. */
export const APP_PRIVATE_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

/** The environment `npm start` reads, pointed at this world's GitHub, on a free local port. */
export function appServerEnv(world: World, secret: string): Record<string, string> {
  return {
    APP_ID: String(world.server.state.app.id),
    PRIVATE_KEY: APP_PRIVATE_KEY,
    WEBHOOK_SECRET: secret,
    PORT: '0',
    HOST: '127.0.0.1',
    GITHUB_API_URL: world.server.url,
    LOG_LEVEL: 'fatal',
    // The sweep of missed deliveries adds requests at start; the tests of it turn it on.
    INTERLOCK_REDELIVER: 'off',
    // The tests read a command's outcome from the delivery's answer: wait for it (the default answers 202 at 1 s).
    INTERLOCK_ANSWER_MS: '8000',
  };
}

/** `/approve-rerun deploy` (or `text`) by a writer, as the App receives it: the payload names the installation. */
export function approvalDelivery(world: World, text = '/approve-rerun deploy') {
  const ev = commentEvent(world, { body: text, login: PEOPLE.writer });
  const body = JSON.stringify({ ...ev.payload, installation: { id: world.server.state.app.installationId } });
  return { ev, body };
}

/** The bundle's `mode: comment` on a comment payload, as a runner runs it against this world's GitHub. */
export function modeCommentStep(world: World, payload: Record<string, unknown>, runId = 8001) {
  return runStep({
    apiUrl: world.server.url,
    repository: `${OWNER}/${REPO}`,
    workspace: makeWorkspace({}),
    eventName: 'issue_comment',
    payload,
    inputs: { mode: 'comment' },
    job: { runId },
  });
}
