import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJournal } from '../../src/journal/parse.js';
import { makeWorkspace, runStep, type StepOptions, startStep } from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { issuesLabeled } from '../support/fixtures.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { journalText as journalTextIn } from '../support/journal-text.js';

const OWNER = 'acme';
const REPO = 'widgets';
const FULL = `${OWNER}/${REPO}`;

const CONFIG = `routes:
  - event: issues
    action: labeled
    label: "agent:fix"
    graph: .github/interlock/fix.yml
`;

const FIX_GRAPH = `interlock: 1
name: fix
nodes:
  - id: plan
    env:
      TITLE: \${{ github.event.issue.title }}
    run: printf '%s\\n' "$TITLE" > plan.txt
    validates:
      - file: plan.txt
  - id: implement
    depends_on: [plan]
    replay: never
    run: |
      echo "$INTERLOCK_ATTEMPT" >> side-effect.log
      if [ -f slow ]; then echo $$ > pid; touch started; sleep 30; fi
      echo "branch=fix-42" >> "$INTERLOCK_OUTPUT"
    outputs: [branch]
    validates:
      - branch: \${{ nodes.implement.outputs.branch }}
  - id: docs
    depends_on: [implement]
    replay: safe
    run: |
      echo "docs $INTERLOCK_ATTEMPT" >> docs.log
      if [ -f slow-docs ]; then rm -f slow-docs; echo $$ > pid; touch started; sleep 30; fi
    validates:
      - file: docs.log
`;

let server: GitHubServer;
let runCounter = 500;

// A GitHub of its own for every test: no test leans on what an earlier one left (a journal, a branch).
beforeEach(async () => {
  server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO, branches: { 'fix-42': { 'fix.txt': 'fixed\n' } } }],
    // The order clock (test/support/clock.ts): these steps are about what is read, written and run, not timing.
    likeGitHub: ORDER_CLOCK,
  });
  server.state.repo(FULL).addIssue({ number: 42, title: 'Fix the add() bug', labels: ['agent:fix'] });
});
afterEach(async () => server?.close());

function journalText(runId: string): string | undefined {
  return journalTextIn(server.state.repo(FULL), runId);
}

function journal(runId: string) {
  const text = journalText(runId);
  if (!text) throw new Error(`no journal for ${runId}`);
  return parseJournal(text, runId);
}

/** A workflow run the server knows, so recovery can ask whether it is still going. */
function workflowRun(status: 'in_progress' | 'completed', runner: string): number {
  const id = ++runCounter;
  server.state.repo(FULL).addWorkflowRun({
    workflow: 'interlock.yml',
    id,
    event: 'issues',
    status,
    conclusion: status === 'completed' ? 'cancelled' : null,
    jobs: [
      {
        name: 'interlock',
        runner_name: runner,
        status,
        conclusion: status === 'completed' ? 'cancelled' : null,
        started_at: new Date(Date.now() - 60_000).toISOString(),
        completed_at: status === 'completed' ? new Date().toISOString() : null,
      },
    ],
  });
  return id;
}

function stepOptions(ws: string, extra: Partial<StepOptions> = {}): StepOptions {
  const runId = workflowRun('in_progress', `runner-${runCounter + 1}`);
  return {
    apiUrl: server.url,
    repository: FULL,
    workspace: ws,
    eventName: 'issues',
    payload: issuesLabeled(OWNER, REPO, 42, 'agent:fix'),
    inputs: {},
    job: { runId, runner: `runner-${runId}` },
    ...extra,
  };
}

async function waitFor(path: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > end) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the bundled action, run as a runner runs it', () => {
  const fixWorkspace = () =>
    makeWorkspace({ '.github/interlock.yml': CONFIG, '.github/interlock/fix.yml': FIX_GRAPH });

  it('a label event routes to the graph; the first step runs the first node with the happy-path request count', async () => {
    const ws = fixWorkspace();
    const mark = server.requests.mark();
    const r = await runStep(stepOptions(ws));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({
      'run-id': 'fix/issue-42',
      node: 'plan',
      attempt: '1',
      status: 'completed',
    });
    expect(JSON.parse(r.outputs.ready!)).toEqual(['implement']);
    expect(readFileSync(join(ws, 'plan.txt'), 'utf8')).toBe('Fix the add() bug\n');
    const j = journal('fix/issue-42');
    expect(j.events.map((e) => e.type)).toEqual(['RunStarted', 'NodeDispatched', 'NodeRecorded']);
    const started = j.events[0]!;
    expect(started.type === 'RunStarted' && started.intent).toBe('issues.labeled label=agent:fix');
    expect(j.progress_comment_id).toBeGreaterThan(0);
    const comments = server.state.repo(FULL).commentsOn(42);
    expect(comments.filter((c) => c.body.includes('<!-- interlock:progress fix/issue-42 -->'))).toHaveLength(
      1,
    );
    expect(r.summary).toContain('## interlock · fix/issue-42');
    expect(r.summary).toContain('```mermaid');
    const byKind = server.requests.countByKind(mark);
    // First step of a run: the journal is on neither the run's branch nor the journal branch of before (two
    // reads); the run's branch is made holding it (tree, commit, ref); then the progress comment's id and the
    // record are written to it.
    expect(byKind['GET /repos/{owner}/{repo}/contents/{path}']).toBe(2);
    expect(byKind['POST /repos/{owner}/{repo}/git/trees']).toBe(1);
    expect(byKind['POST /repos/{owner}/{repo}/git/commits']).toBe(1);
    expect(byKind['POST /repos/{owner}/{repo}/git/refs']).toBe(1);
    expect(byKind['PUT /repos/{owner}/{repo}/contents/{path}']).toBe(2);
    // The step log counts what the step sent, and the content-creating part GitHub's secondary limit counts.
    const sent = server.requests.filter({ since: mark });
    const creating = sent.filter((q) => q.method !== 'GET' && q.method !== 'HEAD').length;
    expect(r.stdout).toContain(
      `interlock: this step sent ${sent.length} GitHub requests, ${creating} of them content-creating`,
    );
    expect(server.state.repo(FULL).branchSha('interlock-journal')).toBeUndefined();
    expect(server.state.repo(FULL).branchSha('interlock-journal-runs/fix/issue-42')).toBeDefined();
  });

  it('a later step is one read, a dispatch write and a record write, plus one progress-comment update', async () => {
    const ws = fixWorkspace();
    expect((await runStep(stepOptions(ws))).outputs).toMatchObject({ node: 'plan', status: 'completed' });
    const mark = server.requests.mark();
    const r = await runStep(stepOptions(ws, { inputs: { node: 'next' } }));
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ node: 'implement', status: 'completed', 'output-branch': 'fix-42' });
    const byKind = server.requests.countByKind(mark);
    expect(byKind).toEqual({
      'GET /repos/{owner}/{repo}/contents/{path}': 1,
      'PUT /repos/{owner}/{repo}/contents/{path}': 2,
      'GET /repos/{owner}/{repo}/branches/{branch}': 1, // the evidence check
      'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': 1,
    });
    const rec = journal('fix/issue-42').events.find(
      (e) => e.type === 'NodeRecorded' && e.node === 'implement',
    );
    expect(rec?.type === 'NodeRecorded' && rec.evidence[0]).toMatchObject({
      check: 'branch fix-42',
      passed: true,
    });
  });

  it('re-running a step for a completed node only reports what it recorded', async () => {
    const ws = fixWorkspace();
    for (const node of ['plan', 'implement'])
      expect((await runStep(stepOptions(ws, { inputs: { node } }))).outputs.status).toBe('completed');
    const before = journalText('fix/issue-42');
    const r = await runStep(stepOptions(ws, { inputs: { node: 'implement' } }));
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ node: 'implement', status: 'completed', 'output-branch': 'fix-42' });
    expect(journalText('fix/issue-42')).toBe(before);
    expect(readFileSync(join(ws, 'side-effect.log'), 'utf8')).toBe('1\n');
  });
});

describe('a runner killed mid-node', () => {
  it('leaves a never node held in the next workflow run, with a comment and a label, and no later step runs it', async () => {
    const ws = makeWorkspace({
      '.github/interlock.yml': CONFIG,
      '.github/interlock/fix.yml': FIX_GRAPH.replace('name: fix', 'name: crash'),
    });
    server.state.repo(FULL).addIssue({ number: 77, title: 'Crash me', labels: ['agent:fix'] });
    const opts = (extra: Partial<StepOptions> = {}) =>
      stepOptions(ws, { payload: issuesLabeled(OWNER, REPO, 77, 'agent:fix', 'Crash me'), ...extra });
    expect((await runStep(opts())).outputs.status).toBe('completed'); // plan

    // implement: the runner dies mid-node (SIGKILL of the action and of the node's process group).
    const { writeFileSync, rmSync } = await import('node:fs');
    writeFileSync(join(ws, 'slow'), '');
    const killed = opts();
    const running = startStep(killed);
    await waitFor(join(ws, 'started'));
    running.child.kill('SIGKILL');
    process.kill(-Number(readFileSync(join(ws, 'pid'), 'utf8')), 'SIGKILL');
    await running.done;
    rmSync(join(ws, 'slow'));
    rmSync(join(ws, 'started'));

    // While GitHub says that run is still going, the node is left alone.
    const alive = await runStep(opts());
    expect(alive.outputs.status).toBe('not-ready');
    expect(alive.stdout).toContain('is still in_progress');

    // The run has ended: the next step holds the node.
    const job = server.state.repo(FULL).workflowRuns.get(killed.job.runId)!;
    const last = job.attempts[job.attempts.length - 1]!;
    last.status = 'completed';
    last.conclusion = 'cancelled';
    for (const j of last.jobs)
      Object.assign(j, {
        status: 'completed',
        conclusion: 'cancelled',
        completed_at: new Date().toISOString(),
      });
    const held = await runStep(opts());
    expect(held.code).toBe(1);
    expect(held.outputs.status).toBe('held');
    expect(held.stdout).toContain('::error::');
    expect(readFileSync(join(ws, 'side-effect.log'), 'utf8')).toBe('1\n');
    const comments = server.state
      .repo(FULL)
      .commentsOn(77)
      .map((c) => c.body);
    expect(comments.filter((b) => b.includes('interlock:attention crash/issue-77 implement 1'))).toHaveLength(
      1,
    );
    expect(comments.find((b) => b.includes('interlock:attention'))).toContain('/approve-rerun implement');
    expect(server.state.repo(FULL).issue(77)!.labels).toContain('interlock: needs human');
    const events = journal('crash/issue-77').events;
    const interrupted = events.find((e) => e.type === 'NodeInterrupted');
    expect(interrupted?.type === 'NodeInterrupted' && interrupted.observed_usage.wall_ms).toBeGreaterThan(0);

    // Holding stays held: another step does not run it.
    expect((await runStep(opts({ inputs: { 'on-held': 'succeed' } }))).code).toBe(0);
    expect(readFileSync(join(ws, 'side-effect.log'), 'utf8')).toBe('1\n');
  });

  it('reruns an interrupted replay: safe node on the next step, without approval', async () => {
    const graph = FIX_GRAPH.replace('name: fix', 'name: safe')
      .replace(/ {2}- id: implement[\s\S]*?(?= {2}- id: docs)/, '')
      .replace('depends_on: [implement]', 'depends_on: [plan]');
    const ws = makeWorkspace({ '.github/interlock.yml': CONFIG, '.github/interlock/fix.yml': graph });
    server.state.repo(FULL).addIssue({ number: 78, title: 'Safe', labels: ['agent:fix'] });
    const opts = (extra: Partial<StepOptions> = {}) =>
      stepOptions(ws, { payload: issuesLabeled(OWNER, REPO, 78, 'agent:fix', 'Safe'), ...extra });
    expect((await runStep(opts())).outputs.status).toBe('completed');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(ws, 'slow-docs'), '');
    const killed = opts();
    const running = startStep(killed);
    await waitFor(join(ws, 'started'));
    running.child.kill('SIGKILL');
    process.kill(-Number(readFileSync(join(ws, 'pid'), 'utf8')), 'SIGKILL');
    await running.done;
    const run = server.state.repo(FULL).workflowRuns.get(killed.job.runId)!;
    const last = run.attempts[run.attempts.length - 1]!;
    last.status = 'completed';
    for (const j of last.jobs)
      Object.assign(j, {
        status: 'completed',
        conclusion: 'cancelled',
        completed_at: new Date().toISOString(),
      });
    const r = await runStep(opts());
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ node: 'docs', attempt: '2', status: 'completed' });
    expect(readFileSync(join(ws, 'docs.log'), 'utf8')).toBe('docs 1\ndocs 2\n');
  });
});
