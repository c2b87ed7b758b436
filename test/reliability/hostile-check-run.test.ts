// The check run interlock writes about a hostile node, through the bundled action on a pull request (issue 46): the
// run is kept in a check run on the head commit (`store: check-run`), whose title and summary GitHub shows in the
// Checks tab as interlock's. A node granted GH_TOKEN records an output that holds the token, links, an image, HTML,
// a mention and a reference, which its output check quotes as it fails; another commits with a subject holding the
// token and the same, which its git check quotes as it fails; both escalate. The check run's
// title and summary, every other request's text and the journal the check run holds carry no token, and the
// summary, rendered as GitHub renders Markdown (test/support/gfm.ts), has no element from the node's words. As
// root and through passwordless sudo. The App's own check run of such a run (the runs kept in git; the App told
// of the run's branch by a push) is drawn by the same door: its summary is held to the same. Needs `npm run build`.
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interlockApp } from '../../src/app/probot.js';
import { decodeJournal } from '../../src/store/check-run.js';
import { FULL, OWNER, pullRequestOpened, REPO } from '../action/world.js';
import { commentEvent, example, PEOPLE, quietOctokit, type World } from '../app/world.js';
import { requireBundle } from '../crash/harness.js';
import { runStep, type StepResult } from '../support/action-process.js';
import { gitHubLinks, renderedShape } from '../support/gfm.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { noSudoRunner } from '../support/sudo-runner.js';
import { HOSTILE_TEXT, hostileCheckout } from './hostile-checkout.js';

/** The granted token: no known token shape, so only the step's secrets can remove it. */
const TOKEN = 'Cr9-granted-gh-token-not-a-known-shape-31';
const HOSTILE = HOSTILE_TEXT;
const GRAPH_FILE = '.github/interlock/review.yml';
const CONFIG = `routes:
  - event: pull_request
    action: opened
    graph: ${GRAPH_FILE}
`;
/** A commit subject within the 100 characters a `git` check quotes, the token before it. */
const SUBJECT = '![i](https://evil.example/s.png) @alice #4242';
const GRAPH = `interlock: 1
name: review
nodes:
  - id: build
    outputs: [note]
    run: printf 'note=%s %s\\n' "$GH_TOKEN" "$(cat hostile.txt)" >> "$INTERLOCK_OUTPUT"
    validates:
      - output: note
        matches: "^never$"
  - id: subject
    run: git -c safe.directory='*' commit -q --allow-empty -m "$GH_TOKEN $(cat subject.txt)"
    validates:
      - git: { min_commits: 2 }
`;

const setups = [
  { name: 'as root', sudo: false, pr: 31, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  { name: 'through passwordless sudo', sudo: true, pr: 32, skip: noSudoRunner() },
];

describe.each(setups)('node text in the check run interlock writes, $name', (setup) => {
  let server: GitHubServer;
  let repo: RepoState;
  let step: StepResult;
  let sent: ReturnType<GitHubServer['requests']['filter']>;
  let output: { title?: string | null; summary?: string | null; text?: string | null };
  beforeAll(async () => {
    if (setup.skip) return;
    requireBundle();
    server = await startGitHubServer({
      repos: [{ owner: OWNER, name: REPO, branches: { 'feat-x': { 'x.txt': 'x\n' } } }],
    });
    repo = server.state.repo(FULL);
    repo.addPull({ number: setup.pr, head: 'feat-x', base: 'main', title: 'Feature X' });
    // A checkout: the nodes commit to it.
    const { ws, runnerTemp, as } = hostileCheckout(
      {
        '.github/interlock.yml': CONFIG,
        [GRAPH_FILE]: GRAPH,
        'hostile.txt': HOSTILE,
        'subject.txt': SUBJECT,
      },
      { branch: 'feat-x', sudo: setup.sudo },
    );
    const runId = 9100 + setup.pr;
    repo.addWorkflowRun({
      workflow: 'review.yml',
      id: runId,
      event: 'pull_request',
      status: 'in_progress',
      jobs: [{ name: 'interlock', runner_name: `runner-${runId}` }],
    });
    const mark = server.requests.mark();
    step = await runStep({
      apiUrl: server.url,
      repository: FULL,
      workspace: ws,
      eventName: 'pull_request',
      payload: pullRequestOpened(repo, setup.pr),
      inputs: { store: 'check-run', node: 'all', 'node-credentials': 'GH_TOKEN=build,subject' },
      env: { GH_TOKEN: TOKEN, RUNNER_TEMP: runnerTemp },
      job: { runId, runner: `runner-${runId}` },
      ...as,
    });
    sent = server.requests.filter({ since: mark });
    const runs = [...repo.checkRuns.values()].filter((c) => c.name === `interlock: review/pr-${setup.pr}`);
    output = runs[0]?.output ?? {};
  }, 120_000);
  afterAll(() => server?.close());

  it.skipIf(setup.skip)("the nodes' words reached the check run's summary, both nodes escalated", () => {
    expect(step.outputs.status, step.log.slice(-3000)).toBe('escalated');
    expect(output.summary, output.summary ?? '').toMatch(/\| build \| escalated .*evil\.example\/approve/);
    expect(output.summary, output.summary ?? '').toMatch(/\| subject \| escalated .*evil\.example\/s\.png/);
  });

  it.skipIf(setup.skip)(
    'no check run title or summary, no request, no journal in the check run and no line interlock logs carries the token',
    () => {
      expect(`${output.title} ${output.summary}`).not.toContain(TOKEN);
      expect(
        JSON.stringify(decodeJournal(output.text ?? '', `interlock: review/pr-${setup.pr}`)),
      ).not.toContain(TOKEN);
      for (const q of sent) expect(JSON.stringify(q.body ?? '')).not.toContain(TOKEN);
      for (const l of step.stdout.split('\n').filter((x) => x.startsWith('interlock: ')))
        expect(l).not.toContain(TOKEN);
    },
  );

  it.skipIf(setup.skip)(
    "the check run's title and summary, rendered as GitHub renders them: no link to or image from the node, no mention or reference",
    () => inert([output.title ?? '', output.summary ?? '']),
  );
});

/** Each Markdown text as GitHub renders it: no element from the node's words, no mention or reference of theirs. */
function inert(texts: string[]): void {
  for (const t of texts) {
    const { elements, prose } = renderedShape(t);
    const fromNode = elements.filter(
      (e) => e.tag === 'img' || Object.values(e.attrs).some((v) => v.includes('evil.example')),
    );
    expect(fromNode, t).toEqual([]);
    expect(
      gitHubLinks(prose).filter((l) => l === '@alice' || l === '#4242'),
      t,
    ).toEqual([]);
  }
}

describe.each(setups)("node text in the App's check run of such a run, $name", (setup) => {
  let server: GitHubServer;
  let step: StepResult;
  let output: { title?: string | null; summary?: string | null };
  /** The App's replies on the pull request: to `/interlock status`, and its refusal of a reader's `/approve-rerun`. */
  let replies: string[];
  beforeAll(async () => {
    if (setup.skip) return;
    requireBundle();
    const pr = setup.pr + 10;
    server = await startGitHubServer({
      // Exact reads: the subject here is node text, and `/interlock status` answers from one read by branch name,
      // which the default model answers from 2 s before now and then (the run still in flight in its reply).
      likeGitHub: { staleProbability: 0 },
      repos: [
        {
          owner: OWNER,
          name: REPO,
          files: { '.github/interlock.yml': CONFIG, [GRAPH_FILE]: GRAPH },
          branches: { 'feat-x': { 'x.txt': 'x\n' } },
          collaborators: { [PEOPLE.writer]: 'write', [PEOPLE.reader]: 'read' },
        },
      ],
    });
    const repo = server.state.repo(FULL);
    repo.addPull({ number: pr, head: 'feat-x', base: 'main', title: 'Feature X' });
    // A checkout: the nodes commit to it.
    const { ws, runnerTemp, as } = hostileCheckout(
      {
        '.github/interlock.yml': CONFIG,
        [GRAPH_FILE]: GRAPH,
        'hostile.txt': HOSTILE,
        'subject.txt': SUBJECT,
      },
      { branch: 'feat-x', sudo: setup.sudo },
    );
    const runId = 9200 + pr;
    repo.addWorkflowRun({
      workflow: 'review.yml',
      id: runId,
      event: 'pull_request',
      status: 'in_progress',
      jobs: [{ name: 'interlock', runner_name: `runner-${runId}` }],
    });
    const before = new Set(repo.branches().map((b) => b.name));
    step = await runStep({
      apiUrl: server.url,
      repository: FULL,
      workspace: ws,
      eventName: 'pull_request',
      payload: pullRequestOpened(repo, pr),
      inputs: { node: 'all', 'node-credentials': 'GH_TOKEN=build,subject' },
      env: { GH_TOKEN: TOKEN, RUNNER_TEMP: runnerTemp },
      job: { runId, runner: `runner-${runId}` },
      ...as,
    });
    // The App is told of the run's branch, as GitHub tells it of the step's push.
    const made = repo.branches().filter((b) => !before.has(b.name));
    const probot = new Probot({
      githubToken: 'test',
      baseUrl: server.url,
      logLevel: 'fatal',
      Octokit: quietOctokit(),
    });
    await probot.load(interlockApp());
    const p = example('push') as Record<string, unknown>;
    for (const b of made)
      await probot.receive({
        id: `push-${b.name}`,
        name: 'push',
        payload: {
          ...p,
          ref: `refs/heads/${b.name}`,
          commits: [],
          repository: {
            ...(p.repository as object),
            name: REPO,
            full_name: FULL,
            html_url: `https://github.com/${FULL}`,
            owner: { ...(p.repository as { owner: object }).owner, login: OWNER, name: OWNER },
          },
        } as never,
      });
    const runs = [...repo.checkRuns.values()].filter((c) => c.name === `interlock review/pr-${pr}`);
    output = runs[0]?.output ?? {};
    // A person asks for the run's status, and a reader's approval is refused: the App replies to each.
    let commentId = 70_000;
    const world = { repo, nextCommentId: () => ++commentId } as unknown as World;
    const said = repo.commentsOn(pr).length;
    for (const [login, body] of [
      [PEOPLE.writer, '/interlock status'],
      [PEOPLE.reader, '/approve-rerun build'],
    ] as const) {
      await probot.receive(commentEvent(world, { body, login, issue: pr, pr: true, labels: [] }) as never);
    }
    replies = repo
      .commentsOn(pr)
      .slice(said)
      .map((c) => c.body)
      .filter((b) => b.startsWith('<!-- interlock:reply -->'));
  }, 120_000);
  afterAll(() => server?.close());

  it.skipIf(setup.skip)("the nodes' words reached the App's check run, with a button for each node", () => {
    expect(step.outputs.status, step.log.slice(-3000)).toBe('escalated');
    expect(output.summary, JSON.stringify(output)).toMatch(/\| build \| escalated .*evil\.example\/approve/);
    expect(output.summary, output.summary ?? '').toMatch(/\| subject \| escalated .*evil\.example\/s\.png/);
  });

  it.skipIf(setup.skip)(
    "the nodes' words reached the App's /interlock status reply; a reader's approval was refused",
    () => {
      expect(replies, replies.join('\n---\n')).toHaveLength(2);
      expect(replies[0]).toMatch(/\| build \| escalated .*evil\.example\/approve/);
      expect(replies[1]).toContain('interlock did not act on this comment');
    },
  );

  it.skipIf(setup.skip)("the App's check run and replies carry no token", () => {
    expect(`${output.title} ${output.summary}`).not.toContain(TOKEN);
    for (const r of replies) expect(r).not.toContain(TOKEN);
  });

  it.skipIf(setup.skip)(
    "the App's check run and replies, rendered as GitHub renders them: no link to or image from the node, no mention or reference",
    () => inert([output.title ?? '', output.summary ?? '', ...replies]),
  );
});
