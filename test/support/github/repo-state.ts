/** One repository's state: its git database and refs, issues, checks, Actions runs and releases. */
import { type GitCommit, type GitPerson, ObjectStore, type TreeChange } from './git-objects.js';
import type {
  AppRecord,
  AttemptRecord,
  CheckRunRecord,
  CommentRecord,
  DispatchRecord,
  IssueRecord,
  JobRecord,
  LabelRecord,
  ReleaseRecord,
  Role,
  UserRecord,
  WorkflowRecord,
  WorkflowRunRecord,
} from './records.js';
import { type RefClock, RefMap } from './ref-history.js';
import type {
  CheckRunSpec,
  IssueSpec,
  JobSpec,
  PullSpec,
  ReleaseSpec,
  WorkflowRunSpec,
  WorkflowSpec,
} from './specs.js';

/** What a repository needs from the server around it. */
export interface StateEnv {
  nextId(): number;
  /** Now, as GitHub writes times: ISO 8601 to the second, UTC. */
  now(): string;
  user(login: string): UserRecord;
  /** The GitHub App under test (the one Probot runs as). */
  readonly app: AppRecord;
  /** The clock refs record their moves by, for reads answered from the past. */
  readonly refClock: RefClock;
}

export interface CommitMeta {
  readonly message: string;
  readonly author?: Partial<GitPerson>;
  readonly committer?: Partial<GitPerson>;
  /** Login whose identity fills what author and committer leave out. */
  readonly actor: string;
}

export type FileContent = string | Buffer;

/** An opaque GraphQL-style node id, as GitHub puts in every object. */
export const nodeId = (prefix: string, id: number): string =>
  `${prefix}_${Buffer.from(`0:${id}`).toString('base64url')}`;

export class RepoState {
  readonly git = new ObjectStore();
  /** Full ref name (`refs/heads/main`) to sha, with the recent past (`ref-history.ts`). */
  readonly refs: RefMap;
  readonly issues = new Map<number, IssueRecord>();
  readonly comments = new Map<number, CommentRecord>();
  /** Lower-cased name to label. */
  readonly labels = new Map<string, LabelRecord>();
  readonly checkRuns = new Map<number, CheckRunRecord>();
  /** Lower-cased login to role. */
  readonly collaborators = new Map<string, { login: string; role: Role }>();
  readonly workflows = new Map<number, WorkflowRecord>();
  /** Actions workflow runs by id (not to be confused with interlock's own graph runs). */
  readonly workflowRuns = new Map<number, WorkflowRunRecord>();
  readonly dispatches: DispatchRecord[] = [];
  readonly releases = new Map<number, ReleaseRecord>();
  readonly checkSuites = new Map<string, number>();
  /** Entries a recursive tree read lists before it answers `truncated: true` (GitHub: 100,000). */
  treeEntryLimit = 100_000;
  readonly createdAt: string;
  #nextNumber = 1;
  #nextRunNumber = 1;

  constructor(
    readonly env: StateEnv,
    readonly id: number,
    readonly owner: UserRecord,
    readonly name: string,
    readonly defaultBranch: string,
    readonly isPrivate: boolean,
  ) {
    this.createdAt = env.now();
    this.refs = new RefMap(env.refClock);
  }

  get fullName(): string {
    return `${this.owner.login}/${this.name}`;
  }

  get nodeId(): string {
    return nodeId('R', this.id);
  }

  /** A repository with no refs at all; the git data API answers 409 for it. */
  isEmpty(): boolean {
    return this.refs.size === 0;
  }

  branchSha(branch: string): string | undefined {
    return this.refs.get(`refs/heads/${branch}`);
  }

  branches(): { name: string; sha: string }[] {
    return [...this.refs]
      .filter(([ref]) => ref.startsWith('refs/heads/'))
      .map(([ref, sha]) => ({ name: ref.slice('refs/heads/'.length), sha }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** The commit a branch, tag, full ref or sha names (tags peeled); the default branch when omitted. */
  resolveCommit(ref?: string): string | undefined {
    const name = ref ?? this.defaultBranch;
    const candidates = [
      this.refs.get(`refs/heads/${name}`),
      this.refs.get(`refs/tags/${name}`),
      name.startsWith('refs/') ? this.refs.get(name) : undefined,
      /^[0-9a-f]{40}$/.test(name) ? name : undefined,
    ];
    for (const sha of candidates) {
      const commit = sha === undefined ? undefined : this.peel(sha);
      if (commit) return commit;
    }
    return undefined;
  }

  /** Follows annotated tags to the commit they name. */
  peel(sha: string): string | undefined {
    let current: string | undefined = sha;
    for (let depth = 0; current !== undefined && depth < 10; depth++) {
      const object = this.git.get(current);
      if (object?.type === 'commit') return current;
      current = object?.type === 'tag' ? object.object.sha : undefined;
    }
    return undefined;
  }

  /** A file's bytes at a ref (default branch when omitted). */
  readFile(path: string, ref?: string): Buffer | undefined {
    const commitSha = this.resolveCommit(ref);
    const commit = commitSha ? this.git.commit(commitSha) : undefined;
    const entry = commit ? this.git.lookup(commit.tree, path) : undefined;
    return entry?.type === 'blob' ? this.git.blob(entry.sha)?.content : undefined;
  }

  readText(path: string, ref?: string): string | undefined {
    return this.readFile(path, ref)?.toString('utf8');
  }

  /** Paths of every file at a ref. */
  listFiles(ref?: string): string[] {
    const commitSha = this.resolveCommit(ref);
    const commit = commitSha ? this.git.commit(commitSha) : undefined;
    return commit
      ? this.git
          .walk(commit.tree)
          .filter((entry) => entry.type === 'blob')
          .map((entry) => entry.path)
      : [];
  }

  person(login: string, given?: Partial<GitPerson>): GitPerson {
    const user = this.env.user(login);
    return {
      name: given?.name ?? user.name ?? user.login,
      email: given?.email ?? user.email ?? `${user.id}+${user.login}@users.noreply.github.com`,
      date: given?.date ? new Date(given.date).toISOString().replace(/\.\d{3}Z$/, 'Z') : this.env.now(),
    };
  }

  /** Makes a commit of `changes` on top of `parent` (none for a root commit). Moves no ref. */
  makeCommit(
    parent: string | undefined,
    changes: ReadonlyMap<string, TreeChange>,
    meta: CommitMeta,
  ): GitCommit {
    const base = parent ? this.git.commit(parent)?.tree : undefined;
    const tree = this.git.buildTree(base, changes);
    const author = this.person(meta.actor, meta.author ?? meta.committer);
    const committer = this.person(meta.actor, meta.committer ?? meta.author);
    return this.git.putCommit({
      tree: tree.sha,
      parents: parent ? [parent] : [],
      author,
      committer,
      message: meta.message,
    });
  }

  /**
   * Commits files to a branch and moves the branch, in one synchronous step (so no other request
   * can interleave). A missing branch starts from the default branch, or from nothing when `orphan`.
   */
  commitFiles(
    branch: string,
    files: Readonly<Record<string, FileContent | null>>,
    meta: Partial<CommitMeta> = {},
    options: { orphan?: boolean } = {},
  ): GitCommit {
    const changes = new Map<string, TreeChange>();
    for (const [path, content] of Object.entries(files)) {
      changes.set(
        path,
        content === null
          ? null
          : { mode: '100644', type: 'blob', sha: this.git.putBlob(Buffer.from(content)).sha },
      );
    }
    const parent =
      this.branchSha(branch) ?? (options.orphan ? undefined : this.branchSha(this.defaultBranch));
    const commit = this.makeCommit(parent, changes, {
      message: meta.message ?? `Update ${Object.keys(files).join(', ')}`,
      actor: meta.actor ?? this.owner.login,
      ...(meta.author ? { author: meta.author } : {}),
      ...(meta.committer ? { committer: meta.committer } : {}),
    });
    this.refs.set(`refs/heads/${branch}`, commit.sha);
    return commit;
  }

  createBranch(name: string, from?: string): string {
    const sha = this.resolveCommit(from);
    if (!sha) throw new Error(`${this.fullName}: cannot branch ${name} from ${from ?? this.defaultBranch}`);
    this.refs.set(`refs/heads/${name}`, sha);
    return sha;
  }

  /** A lightweight tag, or an annotated one when `message` is given. */
  createTag(name: string, target?: string, message?: string): string {
    const commit = this.resolveCommit(target);
    if (!commit) throw new Error(`${this.fullName}: cannot tag ${target ?? this.defaultBranch}`);
    const sha = message
      ? this.git.putTag({
          tag: name,
          message,
          object: { sha: commit, type: 'commit' },
          tagger: this.person(this.owner.login),
        }).sha
      : commit;
    this.refs.set(`refs/tags/${name}`, sha);
    return sha;
  }

  setCollaborator(login: string, role: Role | null): void {
    if (role === null) this.collaborators.delete(login.toLowerCase());
    else this.collaborators.set(login.toLowerCase(), { login: this.env.user(login).login, role });
  }

  /** The role a user holds: the owner of a user-owned repository is admin. */
  roleOf(login: string): Role | undefined {
    if (this.owner.type !== 'Organization' && this.owner.login.toLowerCase() === login.toLowerCase())
      return 'admin';
    return this.collaborators.get(login.toLowerCase())?.role;
  }

  label(name: string): LabelRecord | undefined {
    return this.labels.get(name.toLowerCase());
  }

  /** The repository's label of that name, created (grey) when missing, as adding a label to an issue does. */
  ensureLabel(name: string, color = 'ededed', description: string | null = null): LabelRecord {
    const existing = this.label(name);
    if (existing) return existing;
    const id = this.env.nextId();
    const label: LabelRecord = { id, node_id: nodeId('LA', id), name, color, description, default: false };
    this.labels.set(name.toLowerCase(), label);
    return label;
  }

  issue(number: number): IssueRecord | undefined {
    return this.issues.get(number);
  }

  addIssue(spec: IssueSpec = {}): IssueRecord {
    const number = spec.number ?? this.#nextNumber;
    if (this.issues.has(number)) throw new Error(`${this.fullName}#${number} exists already`);
    this.#nextNumber = Math.max(this.#nextNumber, number + 1);
    const id = this.env.nextId();
    const now = this.env.now();
    const issue: IssueRecord = {
      id,
      node_id: nodeId('I', id),
      number,
      title: spec.title ?? `Issue ${number}`,
      body: spec.body ?? null,
      state: spec.state ?? 'open',
      state_reason: spec.state === 'closed' ? 'completed' : null,
      user: this.env.user(spec.user ?? this.owner.login).login,
      labels: (spec.labels ?? []).map((name) => this.ensureLabel(name).name),
      assignees: spec.assignees ?? [],
      locked: false,
      created_at: now,
      updated_at: now,
      closed_at: spec.state === 'closed' ? now : null,
      reactions: [],
    };
    this.issues.set(number, issue);
    for (const comment of spec.comments ?? []) {
      const { body, user } = typeof comment === 'string' ? { body: comment, user: undefined } : comment;
      this.addComment(number, body, user ?? this.owner.login);
    }
    return issue;
  }

  /** A pull request; its head branch is made from the base when missing. */
  addPull(spec: PullSpec): IssueRecord {
    const base = spec.base ?? this.defaultBranch;
    const [headOwner, headRef] = spec.head.includes(':')
      ? (spec.head.split(':', 2) as [string, string])
      : [this.owner.login, spec.head];
    if (headOwner.toLowerCase() === this.owner.login.toLowerCase() && !this.branchSha(headRef)) {
      this.createBranch(headRef, base);
    }
    const issue = this.addIssue(spec);
    const baseSha = this.resolveCommit(base) ?? '';
    const headSha = spec.headSha ?? this.branchSha(headRef) ?? baseSha;
    const now = this.env.now();
    issue.pull = {
      head: { ref: headRef, repo: `${headOwner}/${this.name}`, sha: headSha },
      base: { ref: base, sha: baseSha },
      merged_at: spec.merged ? now : null,
      merge_commit_sha: spec.merged ? headSha : null,
      merged_by: spec.merged ? this.env.user(spec.mergedBy ?? this.owner.login).login : null,
      draft: spec.draft ?? false,
    };
    if (spec.merged) {
      issue.state = 'closed';
      issue.closed_at = now;
    }
    return issue;
  }

  /** A pull request's head sha: its branch's current tip while the branch lives here. */
  pullHeadSha(issue: IssueRecord): string {
    const pull = issue.pull;
    if (!pull) return '';
    const local = pull.head.repo.toLowerCase() === this.fullName.toLowerCase();
    return (local ? this.branchSha(pull.head.ref) : undefined) ?? pull.head.sha;
  }

  /** A comment by `user`; `id` pins its id (to match a webhook payload), `app` marks an app's comment. */
  addComment(
    issueNumber: number,
    body: string,
    user: string,
    options: { id?: number; app?: string } = {},
  ): CommentRecord {
    const issue = this.issues.get(issueNumber);
    if (!issue) throw new Error(`${this.fullName}#${issueNumber} does not exist`);
    const id = options.id ?? this.env.nextId();
    if (this.comments.has(id)) throw new Error(`${this.fullName}: comment ${id} exists already`);
    const now = this.env.now();
    const comment: CommentRecord = {
      id,
      node_id: nodeId('IC', id),
      issue_number: issueNumber,
      body,
      user: this.env.user(user).login,
      created_at: now,
      updated_at: now,
      reactions: [],
      ...(options.app ? { app: options.app } : {}),
    };
    this.comments.set(id, comment);
    issue.updated_at = now;
    return comment;
  }

  commentsOn(issueNumber: number): CommentRecord[] {
    return [...this.comments.values()].filter((comment) => comment.issue_number === issueNumber);
  }

  checkSuiteFor(headSha: string, app: string): number {
    const key = `${app}:${headSha}`;
    let id = this.checkSuites.get(key);
    if (id === undefined) {
      id = this.env.nextId();
      this.checkSuites.set(key, id);
    }
    return id;
  }

  addCheckRun(spec: CheckRunSpec): CheckRunRecord {
    const id = this.env.nextId();
    const head = spec.head_sha ?? this.resolveCommit() ?? '';
    const app = spec.app ?? 'github-actions';
    const now = this.env.now();
    const status = spec.conclusion ? 'completed' : (spec.status ?? 'queued');
    const run: CheckRunRecord = {
      id,
      node_id: nodeId('CR', id),
      head_sha: head,
      name: spec.name,
      status,
      conclusion: spec.conclusion ?? null,
      started_at: now,
      completed_at: status === 'completed' ? now : null,
      external_id: spec.external_id ?? null,
      details_url: null,
      output: {
        title: spec.title ?? null,
        summary: spec.summary ?? null,
        text: spec.text ?? null,
        annotations_count: 0,
      },
      actions: [],
      app,
      check_suite_id: this.checkSuiteFor(head, app),
    };
    this.checkRuns.set(id, run);
    return run;
  }

  addWorkflow(spec: WorkflowSpec | string): WorkflowRecord {
    const given = typeof spec === 'string' ? { file: spec } : spec;
    const file = given.file.replace(/^\.github\/workflows\//, '');
    const id = given.id ?? this.env.nextId();
    const workflow: WorkflowRecord = {
      id,
      node_id: nodeId('W', id),
      name: given.name ?? file.replace(/\.ya?ml$/, ''),
      path: `.github/workflows/${file}`,
      state: 'active',
      dispatchable: given.dispatchable ?? true,
      ...(given.inputs ? { inputs: given.inputs } : {}),
    };
    this.workflows.set(id, workflow);
    return workflow;
  }

  /** A workflow by numeric id, file name (`ci.yml`) or path. */
  findWorkflow(idOrFile: string | number): WorkflowRecord | undefined {
    const key = String(idOrFile);
    if (/^\d+$/.test(key)) return this.workflows.get(Number(key));
    const file = key.replace(/^\.github\/workflows\//, '');
    return [...this.workflows.values()].find((workflow) => workflow.path === `.github/workflows/${file}`);
  }

  addWorkflowRun(spec: WorkflowRunSpec): WorkflowRunRecord {
    const workflow = this.findWorkflow(spec.workflow) ?? this.addWorkflow(String(spec.workflow));
    const id = spec.id ?? this.env.nextId();
    const now = this.env.now();
    const branch = spec.head_branch ?? this.defaultBranch;
    const attemptSpecs = spec.attempts ?? [
      {
        ...(spec.status ? { status: spec.status } : {}),
        ...(spec.conclusion !== undefined ? { conclusion: spec.conclusion } : {}),
        ...(spec.jobs ? { jobs: spec.jobs } : {}),
      },
    ];
    const run: WorkflowRunRecord = {
      id,
      node_id: nodeId('WFR', id),
      workflow_id: workflow.id,
      run_number: this.#nextRunNumber++,
      event: spec.event ?? 'push',
      head_branch: branch,
      head_sha: spec.head_sha ?? this.resolveCommit(branch) ?? this.resolveCommit() ?? '',
      actor: this.env.user(spec.actor ?? this.owner.login).login,
      display_title: spec.display_title ?? workflow.name,
      created_at: now,
      attempts: [],
    };
    attemptSpecs.forEach((attempt, index) => {
      run.attempts.push(this.#makeAttempt(run, index + 1, attempt.status, attempt.conclusion, attempt.jobs));
    });
    this.workflowRuns.set(id, run);
    return run;
  }

  /** The run's newest attempt (what `GET .../runs/{id}` shows). */
  latestAttempt(run: WorkflowRunRecord): AttemptRecord {
    return run.attempts[run.attempts.length - 1]!;
  }

  /** Changes a run's current attempt (status, conclusion) and, by name, its jobs. */
  updateWorkflowRun(
    runId: number,
    patch: { status?: string; conclusion?: string | null; jobs?: JobSpec[]; attempt?: number },
  ): AttemptRecord {
    const run = this.workflowRuns.get(runId);
    if (!run) throw new Error(`${this.fullName}: no workflow run ${runId}`);
    const attempt = patch.attempt ? run.attempts[patch.attempt - 1] : this.latestAttempt(run);
    if (!attempt) throw new Error(`${this.fullName}: run ${runId} has no attempt ${patch.attempt}`);
    const now = this.env.now();
    if (patch.status !== undefined) attempt.status = patch.status;
    if (patch.conclusion !== undefined) attempt.conclusion = patch.conclusion;
    attempt.updated_at = now;
    for (const jobSpec of patch.jobs ?? []) {
      const job = attempt.jobs.find((candidate) => candidate.name === jobSpec.name);
      if (!job) {
        attempt.jobs.push(this.#makeJob(run, jobSpec, attempt.status));
        continue;
      }
      if (jobSpec.status) job.status = jobSpec.status;
      else if (jobSpec.conclusion) job.status = 'completed';
      if (jobSpec.conclusion !== undefined) job.conclusion = jobSpec.conclusion;
      if (jobSpec.started_at) job.started_at = jobSpec.started_at;
      if (jobSpec.completed_at !== undefined) job.completed_at = jobSpec.completed_at;
      else if (job.status === 'completed' && job.completed_at === null) job.completed_at = now;
    }
    // A finished run has no unfinished jobs: they end with the run's conclusion.
    if (attempt.status === 'completed') {
      for (const job of attempt.jobs) {
        if (job.status === 'completed') continue;
        job.status = 'completed';
        job.conclusion = (attempt.conclusion ?? 'cancelled') as JobRecord['conclusion'];
        job.completed_at = now;
      }
    }
    for (const job of attempt.jobs) this.#jobCheckRun(run, job);
    return attempt;
  }

  /** A new attempt of a run ("Re-run jobs"), queued. */
  rerunWorkflowRun(runId: number, jobs?: JobSpec[]): AttemptRecord {
    const run = this.workflowRuns.get(runId);
    if (!run) throw new Error(`${this.fullName}: no workflow run ${runId}`);
    const previous = this.latestAttempt(run);
    const attempt = this.#makeAttempt(
      run,
      run.attempts.length + 1,
      'queued',
      null,
      jobs ?? previous.jobs.map((job) => ({ name: job.name, status: 'queued' })),
    );
    run.attempts.push(attempt);
    return attempt;
  }

  addRelease(spec: ReleaseSpec): ReleaseRecord {
    if (!this.refs.has(`refs/tags/${spec.tag}`)) this.createTag(spec.tag, spec.target);
    const id = this.env.nextId();
    const now = this.env.now();
    const release: ReleaseRecord = {
      id,
      node_id: nodeId('RE', id),
      tag_name: spec.tag,
      target_commitish: spec.target ?? this.defaultBranch,
      name: spec.name ?? spec.tag,
      body: spec.body ?? null,
      draft: spec.draft ?? false,
      prerelease: spec.prerelease ?? false,
      created_at: now,
      published_at: spec.draft ? null : now,
      author: this.env.user(spec.author ?? this.owner.login).login,
    };
    this.releases.set(id, release);
    return release;
  }

  #makeAttempt(
    run: WorkflowRunRecord,
    number: number,
    status?: string,
    conclusion?: string | null,
    jobs?: JobSpec[],
  ): AttemptRecord {
    const now = this.env.now();
    const runStatus = status ?? (conclusion ? 'completed' : 'in_progress');
    return {
      attempt: number,
      status: runStatus,
      conclusion: conclusion ?? null,
      run_started_at: now,
      updated_at: now,
      jobs: (jobs ?? []).map((job) => this.#makeJob(run, job, runStatus)),
    };
  }

  #makeJob(run: WorkflowRunRecord, spec: JobSpec, runStatus: string): JobRecord {
    const id = spec.id ?? this.env.nextId();
    const now = this.env.now();
    const status =
      spec.status ??
      (spec.conclusion ? 'completed' : runStatus === 'completed' ? 'completed' : 'in_progress');
    const job: JobRecord = {
      id,
      node_id: nodeId('CR', id),
      name: spec.name,
      status: status as JobRecord['status'],
      conclusion: spec.conclusion ?? null,
      created_at: spec.started_at ?? now,
      started_at: spec.started_at ?? now,
      completed_at: spec.completed_at ?? (status === 'completed' ? now : null),
      runner_id: spec.runner_name ? 1 : null,
      runner_name: spec.runner_name ?? null,
      labels: spec.labels ?? ['ubuntu-latest'],
      steps: [],
    };
    this.#jobCheckRun(run, job);
    return job;
  }

  /**
   * The check run GitHub Actions keeps for a job: the job's own id (its `check_run_url`), the job's name, status
   * and conclusion, by the `github-actions` app, in the workflow run's check suite.
   */
  #jobCheckRun(run: WorkflowRunRecord, job: JobRecord): void {
    const existing = this.checkRuns.get(job.id);
    if (existing && existing.check_suite_id !== run.id + 1)
      throw new Error(
        `${this.fullName}: job id ${job.id} is a check run already (ids are shared, as on GitHub)`,
      );
    const record: CheckRunRecord = existing ?? {
      id: job.id,
      node_id: job.node_id,
      head_sha: run.head_sha,
      name: job.name,
      status: job.status,
      conclusion: null,
      started_at: null,
      completed_at: null,
      external_id: null,
      details_url: null,
      output: { title: null, summary: null, text: null, annotations_count: 0 },
      actions: [],
      app: 'github-actions',
      // What `workflowRun` renders as the run's `check_suite_id`.
      check_suite_id: run.id + 1,
    };
    Object.assign(record, {
      name: job.name,
      status: job.status,
      conclusion: job.conclusion,
      started_at: job.started_at,
      completed_at: job.completed_at,
    });
    this.checkRuns.set(job.id, record);
  }
}
