// npm run demo: the whole product on this machine. GitHub is SIMULATED by a local server that answers as GitHub's
// REST API does (test/support/github-server.ts); the Action runs as a runner runs it (node dist/index.js with
// the runner's environment), and the approval app is a real HTTP server receiving a signed webhook.
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '@octokit/webhooks-methods';
import { ProbotOctokit } from 'probot';
import { startServer } from '../../src/app/server.js';
import { parseJournal } from '../../src/journal/parse.js';
import {
  makeWorkspace,
  type StepOptions,
  type StepResult,
  startStep,
} from '../../test/support/action-process.js';
import { issuesLabeled, webhookExample } from '../../test/support/fixtures.js';
import { startGitHubServer } from '../../test/support/github-server.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const tty = process.stdout.isTTY;
const bold = (s: string) => (tty ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string) => (tty ? `\x1b[2m${s}\x1b[0m` : s);
const say = (s = '') => process.stdout.write(`${s}\n`);
let chapter = 0;
const title = (s: string) => say(`\n${bold(`${++chapter}. ${s}`)}`);

const OWNER = 'acme';
const REPO = 'widgets';
const FULL = `${OWNER}/${REPO}`;
const ROUTES = `routes:
  - event: issues
    action: labeled
    label: "agent:fix"
    graph: .github/interlock/fix-bug.yml
approvals:
  permission: write
`;
const GRAPH = readFileSync(join(here, 'fix-bug.yml'), 'utf8');
const SECRET = 'demo-webhook-secret';

async function main() {
  const started = Date.now();
  say(`${bold('interlock demo')}: a bug-fix pipeline on a GitHub repository, label to published fix.`);
  say(
    dim(
      "GitHub is simulated by a local server that answers as GitHub's REST API does; nothing leaves this machine.",
    ),
  );

  const files = { '.github/interlock.yml': ROUTES, '.github/interlock/fix-bug.yml': GRAPH };
  const github = await startGitHubServer({
    repos: [
      { owner: OWNER, name: REPO, files, collaborators: { alice: 'write' }, workflows: ['interlock.yml'] },
    ],
  });
  const repo = github.state.repo(FULL);
  repo.addIssue({ number: 42, title: 'add(2, 2) returns 5', user: 'bob' });
  const ws = makeWorkspace(files);
  copyFileSync(join(here, 'fake-agent.sh'), join(ws, 'fake-agent.sh'));

  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const app = await startServer(
    {
      APP_ID: String(github.state.app.id),
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      GITHUB_API_URL: github.url,
      LOG_LEVEL: 'fatal',
    },
    {
      Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({
        ...o,
        throttle: { ...(o.throttle as object), enabled: false },
      })),
    },
  );

  let runNumber = 0;
  let lastSummary = '';
  /** One workflow run of .github/workflows/interlock.yml: the demo plays GitHub Actions' part. */
  const workflowRun = (event: string, payload: Record<string, unknown>, inputs: Record<string, string>) => {
    const id = 9000 + ++runNumber;
    repo.addWorkflowRun({
      workflow: 'interlock.yml',
      id,
      event,
      status: 'in_progress',
      jobs: [
        {
          name: 'run',
          runner_name: `runner-${id}`,
          status: 'in_progress',
          started_at: new Date().toISOString(),
        },
      ],
    });
    const opts: StepOptions = {
      apiUrl: github.url,
      repository: FULL,
      workspace: ws,
      eventName: event,
      payload,
      inputs: { node: 'all', ...inputs },
      job: { runId: id, job: 'run', runner: `runner-${id}` },
    };
    say(dim(`   ▶ workflow run #${runNumber} (${event}) starts the interlock step`));
    const step = startStep(opts);
    const ended = (conclusion: string) => {
      const run = repo.workflowRuns.get(id)!;
      const attempt = run.attempts[run.attempts.length - 1]!;
      attempt.status = 'completed';
      attempt.conclusion = conclusion;
      for (const j of attempt.jobs)
        Object.assign(j, { status: 'completed', conclusion, completed_at: new Date().toISOString() });
    };
    const show = (r: StepResult) => {
      for (const line of r.stdout.split('\n')) {
        if (line.startsWith('interlock:') || line.startsWith('::error::') || line.startsWith('::warning::')) {
          say(`     ${line.replace(/^::(error|warning)::/, '⚠ ').replace(/%0A/g, ' ')}`);
        }
      }
      lastSummary = r.summary || lastSummary;
      say(dim(`   ■ step ended: exit ${r.code}, status=${r.outputs.status ?? '?'}`));
    };
    return { step, ended, show };
  };
  const waitFor = async (file: string) => {
    const end = Date.now() + 20_000;
    while (!existsSync(join(ws, file))) {
      if (Date.now() > end) throw new Error(`demo: ${file} never appeared`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const crash = async (w: ReturnType<typeof workflowRun>, node: string) => {
    await waitFor(`.started-${node}`);
    w.step.child.kill('SIGKILL');
    try {
      process.kill(-Number(readFileSync(join(ws, `.pid-${node}`), 'utf8')), 'SIGKILL');
    } catch {
      // already gone
    }
    const r = await w.step.done;
    for (const line of r.stdout.split('\n')) if (line.startsWith('interlock:')) say(`     ${line}`);
    rmSync(join(ws, `.started-${node}`), { force: true });
    w.ended('cancelled');
    say(`   ${bold('✝ the runner is killed')} while "${node}" runs (SIGKILL: no post step, nothing written)`);
  };
  const labeled = issuesLabeled(OWNER, REPO, 42, 'agent:fix', 'add(2, 2) returns 5');

  title('A maintainer labels issue #42 "agent:fix"; the route picks the fix-bug graph');
  say(
    '   The stand-in agent claims success with a wrong fix twice; the evidence check says no. Attempt 3 must use a',
  );
  say('   different approach, and passes. Then the runner dies while the docs (replay: safe) are rebuilt.');
  writeFileSync(join(ws, '.slow-docs'), '');
  const run1 = workflowRun('issues', labeled, {});
  await crash(run1, 'docs');

  title('The next workflow run recovers: GitHub says run #1 has ended, so "docs" was interrupted');
  say(
    '   It is replay: safe, so it runs again. Then "publish" (replay: never) starts, and the runner dies again.',
  );
  writeFileSync(join(ws, '.slow-publish'), '');
  const run2 = workflowRun('issues', labeled, {});
  await crash(run2, 'publish');

  title('The next workflow run holds "publish": it may have partly run, so nothing runs it again on its own');
  const run3 = workflowRun('issues', labeled, {});
  const r3 = await run3.step.done;
  run3.ended(r3.code === 0 ? 'success' : 'failure');
  run3.show(r3);
  const attention = repo.commentsOn(42).find((c) => c.body.includes('interlock:attention'));
  say(`   The issue now carries the label "${repo.issue(42)?.labels.join('", "')}" and this comment:`);
  for (const line of (attention?.body ?? '')
    .split('\n')
    .filter((l) => l && !l.startsWith('<!--'))
    .slice(0, 9))
    say(dim(`   │ ${line}`));

  title('alice checks that nothing was published, and comments "/approve-rerun publish"');
  const comment = repo.addComment(42, '/approve-rerun publish', 'alice');
  const ev = webhookExample('issue_comment', 'created') as Record<string, unknown> & {
    issue: Record<string, unknown>;
    comment: Record<string, unknown>;
    repository: Record<string, unknown> & { owner: Record<string, unknown> };
    sender: Record<string, unknown>;
  };
  ev.repository = {
    ...ev.repository,
    name: REPO,
    full_name: FULL,
    default_branch: 'main',
    owner: { ...ev.repository.owner, login: OWNER },
  };
  ev.issue = { ...ev.issue, number: 42, labels: [], pull_request: undefined };
  ev.comment = {
    ...ev.comment,
    id: comment.id,
    body: comment.body,
    html_url: `https://github.com/${FULL}/issues/42#issuecomment-${comment.id}`,
    user: { ...(ev.comment.user as object), login: 'alice', type: 'User' },
  };
  ev.sender = { ...ev.sender, login: 'alice', type: 'User' };
  const body = JSON.stringify({ ...ev, installation: { id: github.state.app.installationId } });
  const res = await fetch(app.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': 'demo-delivery-1',
      'x-hub-signature-256': await sign(SECRET, body),
    },
    body,
  });
  say(dim(`   → the app received the signed webhook: HTTP ${res.status}`));
  const reply = repo.commentsOn(42).find((c) => c.body.startsWith('<!-- interlock:reply'));
  for (const line of (reply?.body ?? '(no reply)')
    .split('\n')
    .filter((l) => l && !l.startsWith('<!--'))
    .slice(0, 4))
    say(dim(`   │ ${line}`));
  const dispatch = repo.dispatches[repo.dispatches.length - 1];
  say(
    `   The app dispatched the workflow again with run-id ${JSON.stringify((dispatch?.inputs as Record<string, string> | undefined)?.['run-id'])}: no runner waited meanwhile.`,
  );

  title('The dispatched workflow run resumes the run: "publish" runs once more and the run completes');
  const resumeId = String((dispatch?.inputs as Record<string, string> | undefined)?.['run-id'] ?? '');
  if (!resumeId) throw new Error('demo: the app dispatched no workflow run');
  const run4 = workflowRun('workflow_dispatch', { inputs: dispatch?.inputs ?? {} }, { 'run-id': resumeId });
  const r4 = await run4.step.done;
  run4.ended(r4.code === 0 ? 'success' : 'failure');
  run4.show(r4);
  const journalText = repo.readText('runs/fix-bug/issue-42.json', 'interlock-journal') ?? '';
  const journal = parseJournal(journalText, 'journal');
  const published = existsSync(join(ws, 'published.log'))
    ? readFileSync(join(ws, 'published.log'), 'utf8').trim().split('\n')
    : [];
  say(`   published.log: ${published.length} line(s): ${published.join(', ')}`);
  say(
    `   journal: ${journal.events.length} events, ending with ${journal.events[journal.events.length - 1]?.type}`,
  );

  const out = join(ws, 'interlock-demo');
  writeFileSync(`${out}-journal.json`, journalText);
  writeFileSync(`${out}-summary.md`, lastSummary);
  const progress = repo.commentsOn(42).find((c) => c.body.includes('interlock:progress'));
  writeFileSync(`${out}-progress-comment.md`, progress?.body ?? '');
  say(`\n${bold('Where to look')} (finished in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  say(`   the journal (every event, in order):   ${out}-journal.json`);
  say(`   the last step's job summary + diagram: ${out}-summary.md`);
  say(`   the progress comment on issue #42:     ${out}-progress-comment.md`);
  say(`   the CLI on the same protocol, locally: npm run demo:cli`);
  say(`   (left in place for you to read; remove them with: rm -rf ${ws})`);
  await app.close();
  await github.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
