/** How tests describe the world they want the server to start with (or add to it later). */
import type { CheckConclusion, CheckStatus, JobConclusion, JobStatus, Role } from './records.js';

export interface IssueSpec {
  number?: number;
  title?: string;
  body?: string;
  /** Author login (the repository owner when omitted). */
  user?: string;
  labels?: string[];
  assignees?: string[];
  state?: 'open' | 'closed';
  comments?: (string | { body: string; user?: string })[];
}

export interface PullSpec extends IssueSpec {
  /** Head branch, or `owner:branch` for a fork. Made from the base when missing. */
  head: string;
  base?: string;
  headSha?: string;
  merged?: boolean;
  mergedBy?: string;
  draft?: boolean;
}

export interface WorkflowSpec {
  /** File name under `.github/workflows/`, e.g. `interlock.yml`. */
  file: string;
  id?: number;
  name?: string;
  /** Declares `on: workflow_dispatch` (default true). */
  dispatchable?: boolean;
  /** Declared dispatch inputs; others are refused with 422. Any input is accepted when omitted. */
  inputs?: string[];
}

export interface JobSpec {
  name: string;
  id?: number;
  status?: JobStatus;
  conclusion?: JobConclusion;
  started_at?: string;
  completed_at?: string | null;
  runner_name?: string;
  labels?: string[];
}

export interface AttemptSpec {
  status?: string;
  conclusion?: string | null;
  jobs?: JobSpec[];
}

export interface WorkflowRunSpec {
  /** Workflow id or file name; an unknown file is registered. */
  workflow: string | number;
  id?: number;
  event?: string;
  head_branch?: string;
  head_sha?: string;
  actor?: string;
  display_title?: string;
  /** The single attempt's status (`queued`, `in_progress`, `completed`...), when `attempts` is omitted. */
  status?: string;
  conclusion?: string | null;
  jobs?: JobSpec[];
  /** Several attempts, oldest first. */
  attempts?: AttemptSpec[];
}

export interface CheckRunSpec {
  name: string;
  /** Defaults to the default branch's tip. */
  head_sha?: string;
  status?: CheckStatus;
  conclusion?: CheckConclusion;
  title?: string;
  summary?: string;
  text?: string;
  external_id?: string;
  /** App slug that owns it (default `github-actions`). */
  app?: string;
}

export interface ReleaseSpec {
  tag: string;
  /** Commit-ish the tag is made at when it does not exist (default branch). */
  target?: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
  author?: string;
}

export interface LabelSpec {
  name: string;
  color?: string;
  description?: string;
}

export interface RepoSpec {
  owner: string;
  name: string;
  id?: number;
  private?: boolean;
  defaultBranch?: string;
  /** Files of the first commit on the default branch (a README when omitted). */
  files?: Record<string, string | Buffer>;
  /** No commits and no refs at all (the git data API answers 409 until something is pushed). */
  empty?: boolean;
  /** More branches, each made from the default branch with these files committed on top. */
  branches?: Record<string, Record<string, string | Buffer>>;
  /** Annotated (with a message) or lightweight tags at the default branch. */
  tags?: (string | { name: string; target?: string; message?: string })[];
  collaborators?: Record<string, Role>;
  labels?: (string | LabelSpec)[];
  issues?: IssueSpec[];
  pulls?: PullSpec[];
  workflows?: (string | WorkflowSpec)[];
  workflowRuns?: WorkflowRunSpec[];
  checkRuns?: CheckRunSpec[];
  releases?: ReleaseSpec[];
  /**
   * GitHub's "Allow GitHub Actions to create and approve pull requests" (`can_approve_pull_request_reviews`).
   * GitHub's default for a new repository is off; here it is on unless a test turns it off, so that tests of
   * other things open pull requests. Off, a pull request made with the Actions token is a 403.
   */
  actionsCanCreatePullRequests?: boolean;
}

export interface TeamSpec {
  name?: string;
  /** login to role, or to `{ role, state }` for a pending invitation. */
  members: Record<
    string,
    'member' | 'maintainer' | { role: 'member' | 'maintainer'; state: 'active' | 'pending' }
  >;
}

export interface UserSpec {
  login: string;
  id?: number;
  type?: 'User' | 'Bot' | 'Organization';
  name?: string;
  email?: string;
}

export interface AppSpec {
  id?: number;
  slug?: string;
  name?: string;
  owner?: string;
  installationId?: number;
}
