// Effects interlock performs itself, through the bundled action under the default isolation against the local
// GitHub: the workspace's change as one commit (through the git data API) on a branch, a pull request, a comment
// and labels; each exactly once even when the step is killed after the effect acted and before it was recorded;
// protected paths refused by name; a symlink committed as a symlink, never followed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStep, type StepResult } from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import type { RepoState } from '../support/github-server.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type EffectWorld, effectWorlds, GRAPH_FILE, graph, IMPLEMENT } from './effect-world.js';
import { endWorkflowRun, eventsOf, FULL, OWNER, REPO, readJournal } from './world.js';

let server: GitHubServer;
let repo: RepoState;
beforeAll(async () => {
  server = await startGitHubServer({
    // Every test of this file shares one server and one token, and waits out retry-after 200 times faster than
    // GitHub asks (action-process.ts): over a minute they make more than GitHub's 80 content-creating requests, as
    // dozens of repositories would, not one run. The rest of the like-GitHub model stays on.
    likeGitHub: { secondaryLimit: false, ...ORDER_CLOCK },
    repos: [{ owner: OWNER, name: REPO }],
  });
  repo = server.state.repo(FULL);
  world = effectWorlds(server);
});
afterAll(() => server?.close());

let world: (graphText: string, more?: Record<string, string>) => EffectWorld;

/** The step killed right after the effect acted (before its record), then the next workflow run goes on. */
async function crashAfterEffect(w: EffectWorld, node: string): Promise<StepResult> {
  const first = w.step({ INTERLOCK_FAILPOINTS: `after-command@${node}` });
  const killed = await runStep(first);
  expect(killed.signal).toBe('SIGKILL');
  endWorkflowRun(repo, first.job.runId);
  return runStep(w.step());
}

const treeOf = (ref: string) => {
  const out: Record<string, string> = {};
  for (const p of repo.listFiles(ref)) out[p] = repo.readText(p, ref) ?? '';
  return out;
};

describe('effect: push', () => {
  const PUSH = `  - id: push
    depends_on: [implement]
    effect:
      push:
        branch: interlock/issue-\${{ github.event.issue.number }}
        message: "fix: \${{ github.event.issue.title }}"
    outputs: [sha]
`;

  it('commits the change as data (edit, new file, deletion, mode, symlink as a link) on a new branch, once', async () => {
    const w = world(graph(PUSH));
    const step = await crashAfterEffect(w, 'push');
    expect(step.outputs.status, step.log.slice(-2000)).toBe('completed');
    const branch = `interlock/issue-${w.issue}`;
    const tip = repo.branchSha(branch)!;
    const commit = repo.git.commit(tip)!;
    // One commit on the checkout's, made once although the step was killed after it and the attempt ran again.
    expect(commit.parents).toEqual([w.sha]);
    expect(commit.message).toMatch(
      new RegExp(`^fix: add\\(\\) subtracts\n\nInterlock-Effect: ${w.runId}/push [0-9a-f]{64}\n$`),
    );
    const files = treeOf(branch);
    expect(files['calc.js']).toBe('exports.add = (a, b) => a + b;\n');
    expect(files['src/new.txt']).toBe('new\n');
    expect(files['old.txt']).toBeUndefined();
    // The link's target, not the file it points at.
    expect(files.leak).toBe('/etc/hostname');
    const modes = Object.fromEntries(repo.git.tree(commit.tree)!.entries.map((e) => [e.name, e.mode]));
    expect(modes).toMatchObject({ 'tool.sh': '100755', leak: '120000', 'calc.js': '100644' });
    const journal = readJournal(server, w.runId);
    const recorded = eventsOf(journal, 'NodeRecorded', 'push')[0]!;
    expect(recorded.outputs.sha).toBe(tip);
    expect(recorded.evidence[0]!.observed).toMatch(/found by its mark/);
    expect(eventsOf(journal, 'NodeInterrupted', 'push')).toHaveLength(1);
  });

  it('refuses a change to protected paths, naming each; allow_protected_paths lets one through by name', async () => {
    const hostile = `${IMPLEMENT}
      echo "on: workflow_dispatch" >> .github/workflows/ci.yml
      echo "# widened" >> ${GRAPH_FILE}`;
    const w = world(graph(`${PUSH}    allow_protected_paths: [.github/workflows/ci.yml]\n`, hostile));
    const step = await runStep(w.step());
    expect(step.outputs.status).not.toBe('completed');
    const failed = eventsOf(readJournal(server, w.runId), 'NodeFailed', 'push');
    expect(failed[0]!.failures[0]!.message).toBe(
      `the change was refused: it changes protected paths: ${GRAPH_FILE} (allow one by naming it in the node's allow_protected_paths)`,
    );
    expect(repo.branchSha(`interlock/issue-${w.issue}`)).toBeUndefined();
  });

  it("refuses a change to a sub-graph's file, whatever the repository protects: it is part of the run's graph", async () => {
    const review = 'interlock: 1\nname: review\nnodes:\n  - id: look\n    run: "true"\n';
    const hostile = `${IMPLEMENT}
      echo "# widened" >> .github/interlock/review.yml`;
    const sub = '  - id: review\n    depends_on: [implement]\n    graph: review.yml\n';
    const w = world(graph(`${sub}${PUSH}`, hostile), { '.github/interlock/review.yml': review });
    // The repository protects only docs/: the sub-graph's file is protected as a file of the run's graph.
    const config = '.github/interlock.yml';
    repo.commitFiles(repo.defaultBranch, { [config]: 'protected_paths: ["docs/**"]\n' });
    const step = await runStep(w.step());
    repo.commitFiles(repo.defaultBranch, { [config]: 'protected_paths: [".github/**"]\n' });
    expect(step.outputs.status).not.toBe('completed');
    const failed = eventsOf(readJournal(server, w.runId), 'NodeFailed', 'push');
    expect(failed[0]!.failures[0]!.message).toBe(
      "the change was refused: it changes protected paths: .github/interlock/review.yml (allow one by naming it in the node's allow_protected_paths)",
    );
  });

  it('refuses to move a branch this run did not make', async () => {
    const w = world(graph(PUSH));
    repo.commitFiles(`interlock/issue-${w.issue}`, { 'other.txt': 'someone else\n' });
    const before = repo.branchSha(`interlock/issue-${w.issue}`);
    await runStep(w.step());
    const failed = eventsOf(readJournal(server, w.runId), 'NodeFailed', 'push');
    expect(failed[0]!.failures[0]!.message).toMatch(/a commit this run did not make .*refusing to move it/);
    expect(repo.branchSha(`interlock/issue-${w.issue}`)).toBe(before);
  });
});

describe('effect: pull_request, comment and labels', () => {
  const REST = `  - id: pull-request
    depends_on: [implement]
    effect:
      pull_request:
        branch: interlock/issue-\${{ github.event.issue.number }}
        base: base-\${{ github.event.issue.number }}
        title: "Fix #\${{ github.event.issue.number }}"
        body: "Fixes #\${{ github.event.issue.number }}"
        labels: [interlock]
  - id: comment
    depends_on: [pull-request]
    effect:
      comment:
        body: "Opened \${{ nodes.pull-request.outputs.url }}"
  - id: label
    depends_on: [comment]
    effect:
      labels: { add: [has-fix], remove: [agent:ship] }
`;

  it('opens one pull request, posts one comment and sets the labels, whichever of them a crash interrupts', async () => {
    const w = world(graph(REST));
    // A person pastes the comment effect's marker first: it is not interlock's comment, so it must not count.
    repo.addComment(w.issue, `<!-- interlock:effect ${w.runId}/comment ${'0'.repeat(64)} -->`, 'mallory');
    let step = await crashAfterEffect(w, 'pull-request');
    step = step.signal ? step : step;
    const killed = await runStep(w.step({ INTERLOCK_FAILPOINTS: 'after-command@comment' }));
    // The run may have finished in the step after the first crash; a second crash point is then never reached.
    if (killed.signal === 'SIGKILL') step = await runStep(w.step());
    const journal = readJournal(server, w.runId);
    expect(
      JSON.parse(step.outputs.checkpoint ?? killed.outputs.checkpoint!).status,
      step.log.slice(-1500),
    ).toBe('completed');
    const pulls = [...repo.issues.values()].filter((i) => i.pull?.head.ref === `interlock/issue-${w.issue}`);
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.body).toMatch(
      new RegExp(`<!-- interlock:effect ${w.runId}/pull-request [0-9a-f]{64} -->`),
    );
    expect(pulls[0]!.labels).toContain('interlock');
    const comments = repo
      .commentsOn(w.issue)
      .filter((c) => c.body.includes(`interlock:effect ${w.runId}/comment`) && c.user !== 'mallory');
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(`/pull/${pulls[0]!.number}`);
    expect(repo.issue(w.issue)!.labels).toEqual(expect.arrayContaining(['has-fix']));
    expect(repo.issue(w.issue)!.labels).not.toContain('agent:ship');
    expect(eventsOf(journal, 'NodeRecorded', 'pull-request')[0]!.outputs.number).toBe(
      String(pulls[0]!.number),
    );
  });
});

describe('requests per effect', () => {
  it('a pull_request effect of a 20-file change (one file binary) makes at most 30 requests', async () => {
    const twenty = Array.from({ length: 19 }, (_, i) => `      echo "file ${i}" > f${i}.txt`).join('\n');
    const w = world(
      graph(
        `  - id: pull-request
    depends_on: [implement]
    effect:
      pull_request:
        branch: interlock/issue-\${{ github.event.issue.number }}
        title: "Fix #\${{ github.event.issue.number }}"
        labels: [interlock]
`,
        `${twenty}\n      printf '\\x00\\x01binary' > blob.bin`,
      ),
    );
    const mark = server.requests.mark();
    const step = await runStep(w.step());
    expect(step.outputs.status, step.log.slice(-1500)).toBe('completed');
    const mine = server.requests
      .filter({ since: mark })
      .filter(
        (r) =>
          /\/git\/|\/pulls|\/labels$|^GET \/repos\/\{owner\}\/\{repo\}$/.test(r.kind) ||
          (r.kind.startsWith('GET /repos/{owner}/{repo}/contents') &&
            r.path.endsWith('.github/interlock.yml')),
      );
    const kinds = mine.map((r) => r.kind);
    console.log(`pull_request effect, 20 files: ${mine.length} requests: ${kinds.join(', ')}`);
    expect(mine.length).toBeLessThanOrEqual(30);
    // One blob: the binary file; the 19 text files go inline in the tree.
    expect(kinds.filter((k) => k === 'POST /repos/{owner}/{repo}/git/blobs')).toHaveLength(1);
  });
});

describe('effect: release', () => {
  const RELEASE = `  - id: release
    depends_on: [implement]
    effect:
      release:
        tag: v1.\${{ github.event.issue.number }}.0
        body: "Fixes #\${{ github.event.issue.number }}"
        generate_notes: true
    outputs: [tag]
`;

  it('creates the release once although the step was killed after it, with the notes GitHub writes', async () => {
    const w = world(graph(RELEASE));
    const step = await crashAfterEffect(w, 'release');
    expect(step.outputs.status, step.log.slice(-2000)).toBe('completed');
    const made = [...repo.releases.values()].filter((r) => r.tag_name === `v1.${w.issue}.0`);
    expect(made).toHaveLength(1);
    expect(made[0]!.body).toContain(`Fixes #${w.issue}`);
    expect(made[0]!.body).toMatch(new RegExp(`<!-- interlock:effect ${w.runId}/release [0-9a-f]{64} -->`));
    expect(made[0]!.body).toContain('**Full Changelog**');
    const recorded = eventsOf(readJournal(server, w.runId), 'NodeRecorded', 'release')[0]!;
    expect(recorded.outputs).toMatchObject({ tag: `v1.${w.issue}.0`, release_id: String(made[0]!.id) });
    expect(recorded.evidence[0]!.observed).toMatch(/found by its mark/);
  });

  it('refuses a release of the tag that someone else made, and leaves it as it was', async () => {
    const w = world(graph(RELEASE));
    const theirs = repo.addRelease({ tag: `v1.${w.issue}.0`, body: 'by hand' });
    await runStep(w.step());
    const failed = eventsOf(readJournal(server, w.runId), 'NodeFailed', 'release')[0]!;
    expect(failed.failures[0]!.message).toMatch(
      new RegExp(
        `the release of v1\\.${w.issue}\\.0 exists and this run did not make it .*refusing to change it`,
      ),
    );
    expect(repo.releases.get(theirs.id)!.body).toBe('by hand');
    expect([...repo.releases.values()].filter((r) => r.tag_name === `v1.${w.issue}.0`)).toHaveLength(1);
  });
});
