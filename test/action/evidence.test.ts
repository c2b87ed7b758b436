import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Evidence } from '../../src/journal/events/fields.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import type { WorkflowRunRecord } from '../support/github/records.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel, validJournal } from './world.js';

// Every check the GitHub API answers, on one node; a person's sign-off on a second.
const GRAPH = `interlock: 1
name: evidence
nodes:
  - id: gates
    run: echo "gates $INTERLOCK_ATTEMPT" >> effects.log
    validates:
      - pull_request: { head: feature-1, base: main, state: open, label: ready }
      - pull_request: { head: feature-2, state: merged }
      - check: { ref: feature-1, name: ci/test }
      - issue: { label: triaged }
      - issue: { number: 99, state: closed }
      - branch: release-1
      - tag: v1.0.0
      - release: v1.0.0
  - id: ship-it
    depends_on: [gates]
    run: "true"
    validates:
      - issue: { comment: "ship-it" }
`;
const GRAPH_FILE = '.github/interlock/evidence.yml';
const RUN = 'evidence/issue-12';

let server: GitHubServer;
let repo: RepoState;
let pr1: number;
let pr2: number;
let ci: WorkflowRunRecord;
let made: { id: number };
const ws = makeWorkspace({
  '.github/interlock.yml': routeLabel('agent:evidence', GRAPH_FILE),
  [GRAPH_FILE]: GRAPH,
});

beforeAll(async () => {
  server = await startGitHubServer({
    repos: [
      {
        owner: OWNER,
        name: REPO,
        branches: { 'feature-1': { 'a.txt': 'a\n' }, 'feature-2': { 'b.txt': 'b\n' } },
      },
    ],
    users: [{ login: 'alice' }],
  });
  repo = server.state.repo(FULL);
  repo.addIssue({ number: 12, title: 'Ship the widget', labels: ['agent:evidence'] });
  repo.addIssue({ number: 99, title: 'Blocker' });
  // What the server holds first: every check has something to look at, and every one of them falls short.
  pr1 = repo.addPull({ head: 'feature-1', base: 'main', title: 'Feature 1' }).number;
  pr2 = repo.addPull({ head: 'feature-2', base: 'main', title: 'Feature 2' }).number;
  // CI's job `ci/test` is still running; a check run of that name made with an Actions token says success.
  ci = repo.addWorkflowRun({
    workflow: 'ci.yml',
    head_branch: 'feature-1',
    status: 'in_progress',
    jobs: [{ name: 'ci/test', status: 'in_progress' }],
  });
  made = repo.addCheckRun({ name: 'ci/test', head_sha: repo.branchSha('feature-1'), conclusion: 'success' });
});
afterAll(async () => server?.close());

const jobId = () => repo.latestAttempt(ci).jobs[0]!.id;
const step = () => runStep(issueStep(server, ws, 12, 'agent:evidence'));

function evidenceOf(type: 'NodeRecorded' | 'NodeFailed', node: string, attempt: number): Evidence[] {
  const journal = readJournal(server, RUN);
  validJournal(journal, join(ws, GRAPH_FILE));
  const e = eventsOf(journal, type, node).find((x) => x.attempt === attempt);
  if (!e) throw new Error(`no ${type} for ${node} attempt ${attempt}`);
  return e.evidence ?? [];
}

describe('evidence through the GitHub API', () => {
  it('fails on what the server holds, and records what each check observed', async () => {
    const r = await step();
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ node: 'gates', attempt: '1', status: 'failed' });
    const ev = evidenceOf('NodeFailed', 'gates', 1);
    const sha1 = repo.branchSha('feature-1')!.slice(0, 12);
    expect(ev.map((e) => [e.passed, e.check, e.observed])).toEqual([
      [
        false,
        'pull_request head feature-1 base main open label ready',
        `#${pr1} open https://github.com/${FULL}/pull/${pr1} head ${sha1} (not as required)`,
      ],
      [
        false,
        'pull_request head feature-2 merged',
        expect.stringMatching(new RegExp(`^#${pr2} open .*/pull/${pr2} head \\w{12} \\(not as required\\)$`)),
      ],
      [
        false,
        'check "ci/test" on feature-1 success from a GitHub Actions job',
        expect.stringMatching(
          new RegExp(
            `^in_progress/none .*/runs/${jobId()} sha \\w{12} job .* of workflow run ${ci.id}; refused: .*/runs/${made.id} \\(made with a GitHub Actions token, not by a job`,
          ),
        ),
      ],
      [false, 'issue #12', `#12 open, no label triaged https://github.com/${FULL}/issues/12`],
      [false, 'issue #99 closed', `#99 open https://github.com/${FULL}/issues/99`],
      [false, 'branch release-1', 'no branch release-1'],
      [false, 'tag v1.0.0', 'no tag v1.0.0'],
      [false, 'release v1.0.0', 'no release for tag v1.0.0'],
    ]);
  });

  it('passes once the server holds what each check asks for, and records what it saw', async () => {
    repo.issue(pr1)!.labels.push(repo.ensureLabel('ready').name);
    Object.assign(repo.issue(pr2)!.pull!, { merged_at: new Date().toISOString() });
    repo.issue(pr2)!.state = 'closed';
    repo.updateWorkflowRun(ci.id, {
      status: 'completed',
      conclusion: 'success',
      jobs: [{ name: 'ci/test', conclusion: 'success' }],
    });
    repo.issue(12)!.labels.push(repo.ensureLabel('triaged').name);
    repo.issue(99)!.state = 'closed';
    repo.createBranch('release-1');
    repo.addRelease({ tag: 'v1.0.0' });

    const r = await step();
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ node: 'gates', attempt: '2', status: 'completed' });
    const ev = evidenceOf('NodeRecorded', 'gates', 2);
    expect(ev.every((e) => e.passed)).toBe(true);
    const tagSha = repo.refs.get('refs/tags/v1.0.0')!.slice(0, 12);
    expect(ev.map((e) => e.observed)).toEqual([
      expect.stringMatching(new RegExp(`^#${pr1} open .*/pull/${pr1} head \\w{12}$`)),
      expect.stringMatching(new RegExp(`^#${pr2} merged .*/pull/${pr2} head \\w{12}$`)),
      `completed/success https://github.com/${FULL}/runs/${jobId()} sha ${ci.head_sha.slice(0, 12)} job https://github.com/${FULL}/actions/runs/${ci.id}/job/${jobId()} of workflow run ${ci.id}; refused: https://github.com/${FULL}/runs/${made.id} (made with a GitHub Actions token, not by a job of a workflow run (no job has its id): a node holding GITHUB_TOKEN can make one)`,
      `#12 open, label triaged https://github.com/${FULL}/issues/12`,
      `#99 closed https://github.com/${FULL}/issues/99`,
      'branch release-1 exists',
      `tag v1.0.0 → ${tagSha}`,
      `release https://github.com/${FULL}/releases/tag/v1.0.0`,
    ]);
  });

  it("a comment check on the subject is not satisfied by interlock's own progress comment", async () => {
    // The progress comment names the node "ship-it"; only a person's comment may satisfy the check.
    const own = repo.commentsOn(12).filter((c) => c.body.includes('ship-it'));
    expect(own.length).toBeGreaterThan(0);
    const r = await step();
    expect(r.outputs).toMatchObject({ node: 'ship-it', attempt: '1', status: 'failed' });
    expect(evidenceOf('NodeFailed', 'ship-it', 1)).toEqual([
      {
        check: 'issue #12',
        passed: false,
        observed: `#12 open, no comment matching /ship-it/ https://github.com/${FULL}/issues/12`,
      },
    ]);
  });

  it("passes on a person's comment on the subject, and records which comment", async () => {
    const said = repo.addComment(12, 'ship-it', 'alice');
    const r = await step();
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ node: 'ship-it', attempt: '2', status: 'completed' });
    expect(evidenceOf('NodeRecorded', 'ship-it', 2)).toEqual([
      {
        check: 'issue #12',
        passed: true,
        observed: `#12 open, comment https://github.com/${FULL}/issues/12#issuecomment-${said.id} https://github.com/${FULL}/issues/12`,
      },
    ]);
  });
});
