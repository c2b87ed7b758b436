// The stage `npm run demo` plays on: a repository on the local GitHub (test/support/github-server.ts), the App as
// a real HTTP server, workflow runs of the bundled action as a runner runs them, and maintainers' comments
// delivered to the App as signed webhooks. github-demo.ts tells the story with these.
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '@octokit/webhooks-methods';
import { ProbotOctokit } from 'probot';
import { startServer } from '../../src/app/server.js';
import {
  makeWorkspace,
  type StepOptions,
  type StepResult,
  startStep,
} from '../../test/support/action-process.js';
import { webhookExample } from '../../test/support/fixtures.js';
import { type RepoState, startGitHubServer } from '../../test/support/github-server.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const tty = process.stdout.isTTY;
export const bold = (s: string) => (tty ? `\x1b[1m${s}\x1b[0m` : s);
export const dim = (s: string) => (tty ? `\x1b[2m${s}\x1b[0m` : s);
export const say = (s = '') => process.stdout.write(`${s}\n`);

export const OWNER = 'acme';
export const REPO = 'widgets';
export const FULL = `${OWNER}/${REPO}`;
export const ISSUE = 42;
const ROUTES = `routes:
  - event: issues
    action: labeled
    label: "agent:fix"
    graph: .github/interlock/fix-bug.yml
approvals:
  permission: write
`;
const SECRET = 'demo-webhook-secret';

export interface Stage {
  repo: RepoState;
  /** The runner's workspace: the checkout every workflow run of the demo shares. */
  ws: string;
  workflowRun(event: string, payload: Record<string, unknown>, inputs: Record<string, string>): WorkflowRun;
  /** Posts a comment on the issue as `login` and delivers it to the App, signed; the HTTP status. */
  comment(body: string, login: string): Promise<number>;
  /** The job summary of the last step that wrote one. */
  lastSummary(): string;
  close(): Promise<void>;
}

export interface WorkflowRun {
  step: ReturnType<typeof startStep>;
  /** Marks the run ended on GitHub, as it shows once the runner is gone. */
  ended(conclusion: string): void;
  /** Prints the step's interlock lines and how it ended. */
  show(r: StepResult): void;
}

/** Starts the local GitHub with the repository and issue #42, and the App listening for its webhooks. */
export async function startStage(): Promise<Stage> {
  const files = {
    '.github/interlock.yml': ROUTES,
    '.github/interlock/fix-bug.yml': readFileSync(join(here, 'fix-bug.yml'), 'utf8'),
  };
  const github = await startGitHubServer({
    repos: [
      { owner: OWNER, name: REPO, files, collaborators: { alice: 'write' }, workflows: ['interlock.yml'] },
    ],
  });
  const repo = github.state.repo(FULL);
  repo.addIssue({ number: ISSUE, title: 'add(2, 2) returns 5', user: 'bob' });
  const ws = makeWorkspace(files);
  copyFileSync(join(here, 'fake-agent.sh'), join(ws, 'fake-agent.sh'));
  const app = await startServer(
    {
      APP_ID: String(github.state.app.id),
      PRIVATE_KEY: appKey(),
      WEBHOOK_SECRET: SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      GITHUB_API_URL: github.url,
      LOG_LEVEL: 'fatal',
      // The local GitHub answers some reads from up to 2 s before, as GitHub does (test/support/README.md).
      INTERLOCK_STALE_READ_MS: '2000',
    },
    {
      Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({
        ...o,
        throttle: { ...(o.throttle as object), enabled: false },
      })),
    },
  );
  let runNumber = 0;
  let summary = '';
  return {
    repo,
    ws,
    workflowRun: (event, payload, inputs) => {
      const run = startWorkflowRun(
        { repo, ws, apiUrl: github.url, number: ++runNumber },
        { event, payload, inputs },
      );
      const show = (r: StepResult) => {
        summary = r.summary || summary;
        run.show(r);
      };
      return { ...run, show };
    },
    comment: (body, login) =>
      deliverComment({ repo, url: app.url, installation: github.state.app.installationId }, body, login),
    lastSummary: () => summary,
    close: async () => {
      await app.close();
      await github.close();
    },
  };
}

function appKey(): string {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
}

/** One run of .github/workflows/interlock.yml: the demo plays GitHub Actions' part. */
function startWorkflowRun(
  at: { repo: RepoState; ws: string; apiUrl: string; number: number },
  trigger: { event: string; payload: Record<string, unknown>; inputs: Record<string, string> },
): WorkflowRun {
  const { repo, number } = at;
  const id = 9000 + number;
  const runner = `runner-${id}`;
  const jobs = [
    {
      name: 'run',
      runner_name: runner,
      status: 'in_progress' as const,
      started_at: new Date().toISOString(),
    },
  ];
  repo.addWorkflowRun({ workflow: 'interlock.yml', id, event: trigger.event, status: 'in_progress', jobs });
  const opts: StepOptions = {
    apiUrl: at.apiUrl,
    repository: FULL,
    workspace: at.ws,
    eventName: trigger.event,
    payload: trigger.payload,
    inputs: { node: 'all', ...trigger.inputs },
    job: { runId: id, job: 'run', runner },
  };
  say(dim(`   ▶ workflow run #${number} (${trigger.event}) starts the interlock step`));
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
      if (line.startsWith('interlock:') || line.startsWith('::error::') || line.startsWith('::warning::'))
        say(`     ${line.replace(/^::(error|warning)::/, '⚠ ').replace(/%0A/g, ' ')}`);
    }
    say(dim(`   ■ step ended: exit ${r.code}, status=${r.outputs.status ?? '?'}`));
  };
  return { step, ended, show };
}

/** The comment on the issue, and GitHub's `issue_comment.created` delivery of it to the App, signed. */
async function deliverComment(
  to: { repo: RepoState; url: string; installation: number },
  body: string,
  login: string,
): Promise<number> {
  const comment = to.repo.addComment(ISSUE, body, login);
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
  ev.issue = { ...ev.issue, number: ISSUE, labels: [], pull_request: undefined };
  ev.comment = {
    ...ev.comment,
    id: comment.id,
    body,
    html_url: `https://github.com/${FULL}/issues/${ISSUE}#issuecomment-${comment.id}`,
    user: { ...(ev.comment.user as object), login, type: 'User' },
    created_at: new Date().toISOString(),
  };
  ev.sender = { ...ev.sender, login, type: 'User' };
  const payload = JSON.stringify({ ...ev, installation: { id: to.installation } });
  const res = await fetch(to.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': `demo-delivery-${comment.id}`,
      'x-hub-signature-256': await sign(SECRET, payload),
    },
    body: payload,
  });
  return res.status;
}

/** Waits for the node to start, then kills the runner and the node's process group: no post step runs. */
export async function crash(stage: Stage, run: WorkflowRun, node: string): Promise<void> {
  const started = join(stage.ws, `.started-${node}`);
  const end = Date.now() + 20_000;
  while (!existsSync(started)) {
    if (Date.now() > end) throw new Error(`demo: .started-${node} never appeared`);
    await new Promise((r) => setTimeout(r, 25));
  }
  run.step.child.kill('SIGKILL');
  try {
    process.kill(-Number(readFileSync(join(stage.ws, `.pid-${node}`), 'utf8')), 'SIGKILL');
  } catch {
    // already gone
  }
  const r = await run.step.done;
  for (const line of r.stdout.split('\n')) if (line.startsWith('interlock:')) say(`     ${line}`);
  rmSync(started, { force: true });
  run.ended('cancelled');
  say(`   ${bold('✝ the runner is killed')} while "${node}" runs (SIGKILL: no post step, nothing written)`);
}

/**
 * Prints a comment as a maintainer reads it on the issue: its hidden marker left out, and a node's script (a
 * ```bash block) folded to one line, so the story shows what the comment asks.
 */
export function quote(body: string | undefined, lines = 9): void {
  const folded = (body ?? '(none)').replace(
    /```bash\n([\s\S]*?)\n```/g,
    (_, script: string) => `    (the node's script, ${script.split('\n').length} lines)`,
  );
  for (const line of folded
    .split('\n')
    .filter((l) => l && !l.startsWith('<!--'))
    .slice(0, lines))
    say(dim(`   │ ${line}`));
}
