/**
 * The model-based test's world on GitHub (issue 45): the local GitHub, the bundled action (`node dist/index.js`)
 * running the run's steps and `mode: comment` taking people's commands, the App's server (in-process, as
 * `dist/app.js` runs it) serving the maintainers' page, on one of the stores the Action keeps a journal in: the
 * run's own branch (`interlock-journal-runs/<run-id>`, today's layout) or the journal branch of before
 * (`interlock-journal`, a run started before that layout goes on there).
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
import { issuesLabeled } from '../support/fixtures.js';
import { AGENT, type Call, DAILY_CAP, graphText, NODES, REFUSED, STEP } from './model-world.js';

export type GitHubStore = 'run-branch' | 'journal-branch' | 'check-run';

export const GRAPH = '.interlock/m.yml';
/** The issue the run is about (issue 1 holds the page world's own seeded run); a pull request on check runs. */
const ISSUE = 2;
const PULL = 3;
const JOURNAL_BRANCH = 'interlock-journal';

export class GitHubWorld {
  readonly ws: string;
  graphVersion = 0;
  /** The job summary of the last step that ran the graph (what the run's page on GitHub shows). */
  summary = '';
  private jobs = 20_000;
  private cookie?: string;
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
    writeFileSync(join(w.ws, '.github', 'interlock.yml'), `budget: { daily_usd: ${DAILY_CAP} }\n`);
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
    this.afterFirstWrite();
    return { args, code: r.code ?? 137, out: r.stdout, err: r.stderr, killed: r.signal === 'SIGKILL' };
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

  /** A person's comment on the issue, taken by `mode: comment`; refused answers exit as the CLI's refusal does. */
  async comment(body: string, failpoint?: string, again = false): Promise<Call & { reply?: string }> {
    const ev =
      again && this.lastComment
        ? this.lastComment
        : commentEvent(this.pw.world, {
            body,
            login: PEOPLE.writer,
            issue: this.subject,
            labels: [],
            pr: this.store === 'check-run',
          });
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
    const reply = [...this.repo.comments.values()]
      .filter((c) => !before.has(c.id) && c.body.startsWith('<!-- interlock:reply'))
      .map((c) => c.body)
      .join('\n');
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

  /** The first line of each of interlock's progress comments and attention notices on the subject. */
  markers(): string[] {
    return [...this.repo.comments.values()]
      .filter((c) => c.issue_number === this.subject && /^<!-- interlock:(progress|attention) /.test(c.body))
      .map((c) => c.body.split('\n')[0]!);
  }

  /** Replaces the journal where the store keeps it (a fault injected on purpose). */
  putJournal(text: string): void {
    if (this.store === 'check-run') throw new Error('the refusal fault is injected on the git stores only');
    const own = runBranch(JOURNAL_BRANCH, this.run);
    this.repo.commitFiles(this.repo.readText(runPath(this.run), own) !== undefined ? own : JOURNAL_BRANCH, {
      [runPath(this.run)]: text,
    });
  }

  /** The journal branch of before: the run's first write moved there, as a run started before the layout is. */
  private afterFirstWrite(): void {
    if (this.store !== 'journal-branch') return;
    const own = runBranch(JOURNAL_BRANCH, this.run);
    const text = this.repo.readText(runPath(this.run), own);
    if (text === undefined) return;
    if (this.repo.readText(runPath(this.run), JOURNAL_BRANCH) === undefined)
      this.repo.commitFiles(
        JOURNAL_BRANCH,
        { [runPath(this.run)]: text },
        {},
        { orphan: !this.repo.branchSha(JOURNAL_BRANCH) },
      );
    (this.repo as unknown as { refs: Map<string, string> }).refs.delete(`refs/heads/${own}`);
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
