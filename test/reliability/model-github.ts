/**
 * The model-based test's world on GitHub (issue 45): the local GitHub, the bundled action (`node dist/index.js`)
 * running the run's steps, `mode: comment` taking people's commands and `mode: stuck` on its schedule; the App's
 * server (`node dist/app.js`, as `npm start` runs it) taking people's commands too, delivered by the local GitHub
 * as signed webhooks; the App's server in-process serving the maintainers' page; on one of the stores the Action
 * keeps a journal in: the run's own branch (`interlock-journal-runs/<run-id>`, today's layout), the journal
 * branch of before (`interlock-journal`, a run started before that layout goes on there), or check runs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serializeJournal } from '../../src/journal/parse.js';
import { decodeJournal } from '../../src/store/check-run.js';
import { runBranch, runPath } from '../../src/store/git-layout.js';
import { pullRequestOpened } from '../action/world.js';
import { getPage, logIn, type PageWorld, startPageWorld } from '../app/page-world.js';
import { commentEvent, OWNER, PEOPLE, REPO } from '../app/world.js';
import { runStepWithin, type StepResult } from '../support/action-process.js';
import { type AppProcess, startAppProcess } from '../support/app-process.js';
import { issuesLabeled } from '../support/fixtures.js';
import { AGENT, type Call, dailyCap, graphText, NODES, REFUSED, STEP } from './model-world.js';

export type GitHubStore = 'run-branch' | 'journal-branch' | 'check-run';

export const GRAPH = '.interlock/m.yml';
/** The issue the run is about (issue 1 holds the page world's own seeded run); a pull request on check runs. */
const ISSUE = 2;
const PULL = 3;
const JOURNAL_BRANCH = 'interlock-journal';
/**
 * The repository's daily cap here: $1, so `b`'s second dispatch of a day meets it (one failed attempt is enough)
 * within the few commands a GitHub sequence has; `INTERLOCK_MODEL_DAILY_CAP` changes it (a probe).
 */
export const GITHUB_DAILY_CAP = dailyCap(1);

/** Who comments: two people with write permission (`c` needs both). */
export const COMMENTERS = [PEOPLE.writer, PEOPLE.writer2] as const;
export type Commenter = (typeof COMMENTERS)[number];

/** Where a person's comment is taken: `mode: comment` in a workflow, or the App's server. */
export type CommentFace = 'action' | 'app';

/** What `mode: stuck` listed (its `stuck` output). */
export interface StuckRun {
  run_id: string;
  last_event: string;
  last_activity_at: string;
}

export class GitHubWorld {
  readonly ws: string;
  graphVersion = 0;
  /** The job summary of the last step that ran the graph (what the run's page on GitHub shows). */
  summary = '';
  private jobs = 20_000;
  private cookie?: string;
  /** `node dist/app.js`, started for the first comment the App takes. */
  private app?: AppProcess;
  private lastComment?: ReturnType<typeof commentEvent>;
  /** The issue or pull request the run is about, and the run's id (`m/issue-2`, `m/pr-3`). */
  readonly subject: number;
  readonly run: string;

  private constructor(
    readonly pw: PageWorld,
    readonly store: GitHubStore,
    root: string,
  ) {
    this.ws = mkdtempSync(join(root, 'gh-'));
    this.subject = store === 'check-run' ? PULL : ISSUE;
    this.run = store === 'check-run' ? `m/pr-${PULL}` : `m/issue-${ISSUE}`;
  }

  /** The event a step of the run starts on, and the inputs every step and comment of this store takes. */
  private event(): { name: string; payload: Record<string, unknown>; inputs: Record<string, string> } {
    if (this.store === 'check-run')
      return {
        name: 'pull_request',
        payload: pullRequestOpened(this.repo, PULL),
        inputs: { store: 'check-run' },
      };
    return {
      name: 'issues',
      payload: issuesLabeled(OWNER, REPO, ISSUE, 'interlock', 'Another issue'),
      inputs: {},
    };
  }

  static async start(root: string, store: GitHubStore): Promise<GitHubWorld> {
    // The page keeps a read 30 s by default (INTERLOCK_PAGE_CACHE_SECONDS, a documented trade): here it asks each
    // time, so what it shows is compared with the journal as it is.
    const pw = await startPageWorld({ INTERLOCK_PAGE_CACHE_SECONDS: '0' });
    const w = new GitHubWorld(pw, store, root);
    w.commit(graphText(0));
    if (store === 'check-run') {
      w.repo.createBranch('model-pr', 'main');
      w.repo.commitFiles('model-pr', { 'pr.txt': 'a change\n' });
      w.repo.addPull({ number: PULL, head: 'model-pr', base: 'main', title: 'A change' });
    }
    writeFileSync(join(w.ws, 'effects.log'), '');
    // The repository's daily cap, read from the checkout as the Action reads it: b's $1 an attempt reaches it, and
    // the other runs it counts are the store's own catalogue's (run branches, the journal branch, pull requests).
    mkdirp(join(w.ws, '.github'));
    writeFileSync(join(w.ws, '.github', 'interlock.yml'), `budget: { daily_usd: ${GITHUB_DAILY_CAP} }\n`);
    for (const n of NODES) w.outcome(n, 'pass');
    return w;
  }

  get repo() {
    return this.pw.world.repo;
  }

  /** The graph on the default branch (the App reads it there) and in the workspace (the checkout a step gets). */
  commit(graph: string): void {
    const files: Record<string, string> = { [GRAPH]: graph, 'step.sh': STEP, 'agent.sh': AGENT };
    this.repo.commitFiles('main', files);
    for (const [p, t] of Object.entries(files)) {
      const full = join(this.ws, p);
      rmSync(full, { force: true });
      mkdirp(join(full, '..'));
      writeFileSync(full, t, { mode: 0o755 });
    }
  }

  changeGraph(): void {
    this.graphVersion++;
    this.commit(graphText(this.graphVersion));
  }

  outcome(node: string, o: 'pass' | 'fail'): void {
    mkdirp(join(this.ws, 'ctl'));
    writeFileSync(join(this.ws, 'ctl', node), o);
  }

  /** What the agent of `b` reports it spent on its next attempts. */
  cost(usd: number): void {
    mkdirp(join(this.ws, 'ctl'));
    writeFileSync(join(this.ws, 'ctl', 'cost-b'), String(usd));
  }

  effects(): string {
    return readFileSync(join(this.ws, 'effects.log'), 'utf8');
  }

  /** The journal's text where this store keeps it. */
  journalText(): string | undefined {
    if (this.store === 'check-run') {
      const run = [...this.repo.checkRuns.values()]
        .filter((c) => c.name === `interlock: ${this.run}` && c.output.text?.includes('interlock-journal'))
        .at(-1);
      return run ? serializeJournal(decodeJournal(run.output.text ?? '', this.run)) : undefined;
    }
    return (
      this.repo.readText(runPath(this.run), runBranch(JOURNAL_BRANCH, this.run)) ??
      this.repo.readText(runPath(this.run), JOURNAL_BRANCH)
    );
  }

  private async runStep(
    eventName: string,
    payload: Record<string, unknown>,
    inputs: Record<string, string>,
    env: Record<string, string> = {},
    job: { runId: number; attempt?: number } = { runId: ++this.jobs },
  ): Promise<StepResult & { timedOut?: boolean }> {
    return runStepWithin(
      {
        apiUrl: this.pw.world.server.url,
        repository: `${OWNER}/${REPO}`,
        workspace: this.ws,
        eventName,
        payload,
        inputs,
        job,
        env: { EFFECTS: join(this.ws, 'effects.log'), TMPDIR: this.ws, ...env },
      },
      60_000,
    );
  }

  /** A step of the run (`node: all` runs to the next stop), killed at `failpoint` when given. */
  async step(all: boolean, failpoint?: string): Promise<Call> {
    const args = ['step', ...(all ? ['node: all'] : []), ...(failpoint ? [failpoint] : [])];
    const e = this.event();
    const r = await this.runStep(
      e.name,
      e.payload,
      {
        graph: GRAPH,
        'run-id': this.run,
        ...(all ? { node: 'all' } : {}),
        'on-held': 'succeed',
        ...e.inputs,
      },
      failpoint ? { INTERLOCK_FAILPOINTS: failpoint } : {},
    );
    if (!failpoint) this.summary = r.summary;
    await this.afterFirstWrite();
    // A step refused (the graph changed and nobody allowed it) exits as the CLI's refusal does: it wrote nothing.
    const code = r.outputs.status === 'refused' ? REFUSED : (r.code ?? 137);
    return { args, code, out: r.stdout, err: r.stderr, killed: r.signal === 'SIGKILL' };
  }

  /** `mode: recover`. */
  async recover(): Promise<Call> {
    const e = this.event();
    const r = await this.runStep(e.name, e.payload, {
      ...e.inputs,
      graph: GRAPH,
      'run-id': this.run,
      mode: 'recover',
    });
    return { args: ['recover'], code: r.code ?? 137, out: r.stdout, err: r.stderr };
  }

  /** A person's comment on the subject, made on the local GitHub: the event GitHub sends for it. */
  private newComment(body: string, login: Commenter) {
    return commentEvent(this.pw.world, {
      body,
      login,
      issue: this.subject,
      labels: [],
      pr: this.store === 'check-run',
    });
  }

  /** interlock's replies posted since `before` (the comment ids there were). */
  private repliesSince(before: Set<number>): string {
    return [...this.repo.comments.values()]
      .filter((c) => !before.has(c.id) && c.body.startsWith('<!-- interlock:reply'))
      .map((c) => c.body)
      .join('\n');
  }

  /**
   * A person's comment on the issue, taken by `mode: comment` (`failpoint`: killed there; `again`: the same event
   * in the job's next attempt); refused answers exit as the CLI's refusal does.
   */
  async comment(
    body: string,
    o: { failpoint?: string; again?: boolean; login?: Commenter } = {},
  ): Promise<Call & { reply?: string }> {
    const { failpoint, again = false } = o;
    const ev = again && this.lastComment ? this.lastComment : this.newComment(body, o.login ?? PEOPLE.writer);
    this.lastComment = ev;
    const before = new Set(this.repo.comments.keys());
    // GitHub's "Re-run failed jobs": the same workflow run, its next attempt.
    const job = again ? { runId: this.jobs, attempt: 2 } : { runId: ++this.jobs };
    const r = await this.runStep(
      'issue_comment',
      ev.payload,
      { mode: 'comment', ...this.event().inputs },
      failpoint ? { INTERLOCK_FAILPOINTS: failpoint } : {},
      job,
    );
    const reply = this.repliesSince(before);
    const refused = r.outputs.status === 'refused';
    return {
      args: [body],
      code: refused ? REFUSED : (r.code ?? 137),
      out: `${r.stdout}\n${reply}`,
      err: r.stderr,
      killed: r.signal === 'SIGKILL',
      reply,
    };
  }

  /**
   * A person's comment taken by the App's server (`node dist/app.js`): the local GitHub delivers it as GitHub does,
   * signed with the webhook secret, and the App answers once it has handled it. A refusal is read from the reply.
   */
  async viaApp(body: string, login: Commenter): Promise<Call & { reply?: string }> {
    this.app ??= await startAppProcess({
      ...this.pw.env,
      // Its own port, and no page: the in-process App serves the page (page()).
      PORT: '0',
      INTERLOCK_PAGE_URL: undefined,
      INTERLOCK_WRITE_INTERVAL_MS: '0',
      INTERLOCK_STALE_READ_MS: String(this.pw.world.server.model.options.staleMs),
    });
    const ev = this.newComment(body, login);
    const before = new Set(this.repo.comments.keys());
    const hooks = this.pw.world.server.state.webhooks;
    hooks.target = { url: this.app.url, secret: this.pw.env.WEBHOOK_SECRET! };
    const d = await hooks.deliver('issue_comment', {
      ...ev.payload,
      installation: { id: this.pw.world.server.state.app.installationId },
    });
    const reply = this.repliesSince(before);
    const refused = reply.includes('interlock did not act on this comment');
    return {
      args: [body, '(the App)'],
      code: refused ? REFUSED : d.status_code === 200 ? 0 : 1,
      out: `the App answered ${d.status_code} (${d.status})\n${reply}`,
      err: '',
      reply,
    };
  }

  /**
   * `mode: stuck` on its schedule, every run not ended taken as stuck (`stuck-after: 0ms`): what it listed, and
   * the journal as it found it. The check-run store has no catalogue it reads (the step says so and fails).
   */
  async stuck(): Promise<Call & { listed: StuckRun[]; startedAt: number }> {
    const startedAt = Date.now();
    const r = await this.runStep(
      'schedule',
      { schedule: '17 * * * *' },
      { mode: 'stuck', 'stuck-after': '0ms', ...this.event().inputs },
    );
    let listed: StuckRun[] = [];
    try {
      listed = JSON.parse(r.outputs.stuck ?? '[]') as StuckRun[];
    } catch {
      listed = [];
    }
    return { args: ['mode: stuck'], code: r.code ?? 137, out: r.stdout, err: r.stderr, listed, startedAt };
  }

  /** interlock's own comments on the issue now (the progress comment, each attention notice), by kind. */
  issueComments(): { progress: string; notices: string } {
    const mine = [...this.repo.comments.values()].filter(
      (c) => c.issue_number === this.subject && c.user === 'github-actions[bot]',
    );
    const of = (kind: string) =>
      mine
        .filter((c) => c.body.startsWith(`<!-- interlock:${kind} ${this.run}`))
        .map((c) => c.body)
        .join('\n');
    return { progress: of('progress'), notices: of('attention') };
  }

  /** The first line of each of interlock's progress comments, attention notices and stuck notices on the subject. */
  markers(): string[] {
    return [...this.repo.comments.values()]
      .filter(
        (c) => c.issue_number === this.subject && /^<!-- interlock:(progress|attention|stuck) /.test(c.body),
      )
      .map((c) => c.body.split('\n')[0]!);
  }

  /** interlock's comment on the subject whose first line is `marker`, if there is one. */
  commentMarked(marker: string): string | undefined {
    return [...this.repo.comments.values()].find(
      (c) => c.issue_number === this.subject && c.body.split('\n')[0] === marker,
    )?.body;
  }

  /** Replaces the journal where the store keeps it (a fault injected on purpose). */
  putJournal(text: string): void {
    if (this.store === 'check-run') throw new Error('the refusal fault is injected on the git stores only');
    const own = runBranch(JOURNAL_BRANCH, this.run);
    this.repo.commitFiles(this.repo.readText(runPath(this.run), own) !== undefined ? own : JOURNAL_BRANCH, {
      [runPath(this.run)]: text,
    });
  }

  /**
   * The journal branch of before: the run's first write moved there, as a run started before the layout is. Then
   * the stale window passes once: a read by name that still saw the run's own branch (which such a run never had)
   * would write there, and its events would be lost when the branch is removed again.
   */
  private async afterFirstWrite(): Promise<void> {
    if (this.store !== 'journal-branch') return;
    const own = runBranch(JOURNAL_BRANCH, this.run);
    const text = this.repo.readText(runPath(this.run), own);
    if (text === undefined) return;
    const first = this.repo.readText(runPath(this.run), JOURNAL_BRANCH) === undefined;
    if (first)
      this.repo.commitFiles(
        JOURNAL_BRANCH,
        { [runPath(this.run)]: text },
        {},
        { orphan: !this.repo.branchSha(JOURNAL_BRANCH) },
      );
    (this.repo as unknown as { refs: Map<string, string> }).refs.delete(`refs/heads/${own}`);
    if (first) await new Promise((f) => setTimeout(f, this.pw.world.server.model.options.staleMs + 100));
  }

  /** The maintainers' page as a writer sees it: `node kind` of each row waiting in the run of this repository. */
  async page(): Promise<{ rows: Set<string>; html: string }> {
    this.cookie ??= await logIn(this.pw, PEOPLE.writer);
    const { html } = await getPage(this.pw, this.cookie);
    const rows = new Set<string>();
    const re =
      /name="repo" value="([^"]*)"><input type="hidden" name="run" value="([^"]*)"><input type="hidden" name="node" value="([^"]*)">.*?name="waits" value="([^"]*)"/g;
    for (const m of html.matchAll(re))
      if (unHtml(m[1]!) === `${OWNER}/${REPO}` && unHtml(m[2]!) === this.run)
        rows.add(`${unHtml(m[3]!)} ${m[4]}`);
    return { rows, html };
  }

  async close(): Promise<void> {
    await this.app?.stop();
    await this.pw.close();
    rmSync(this.ws, { recursive: true, force: true });
  }
}

function mkdirp(d: string): void {
  mkdirSync(d, { recursive: true });
}

function unHtml(s: string): string {
  return s
    .replace(/&#x2F;|&#47;/g, '/')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
