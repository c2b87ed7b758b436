/** What the server remembers, one record type per kind of thing GitHub keeps. */
import type { Schema } from './types.js';

export type Role = 'admin' | 'maintain' | 'write' | 'triage' | 'read';
export type ReactionContent = Schema<'reaction'>['content'];
export type CheckStatus = Schema<'check-run'>['status'];
export type CheckConclusion = NonNullable<Schema<'check-run'>['conclusion']>;
export type JobStatus = Schema<'job'>['status'];
export type JobConclusion = Schema<'job'>['conclusion'];

export interface UserRecord {
  readonly login: string;
  readonly id: number;
  readonly type: 'User' | 'Bot' | 'Organization';
  readonly name: string | null;
  readonly email: string | null;
}

/** A GitHub App: the Actions app (`github-actions`) or the one under test. */
export interface AppRecord {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly owner: string;
  readonly installationId: number;
  /** The login its installation tokens act as, e.g. `interlock[bot]`. */
  readonly botLogin: string;
}

/** Who a request acts as, from its Authorization header. */
export interface Actor {
  readonly login: string;
  /** The app behind an installation token (or the Actions token); undefined for a person's token. */
  readonly app?: AppRecord;
  /** True for a JWT: only the app endpoints accept it. */
  readonly asApp: boolean;
  /** True for the App's OAuth client credentials (Basic): only the OAuth applications API accepts them. */
  readonly client?: boolean;
  readonly token: string;
}

export interface LabelRecord {
  readonly id: number;
  readonly node_id: string;
  name: string;
  color: string;
  description: string | null;
  readonly default: boolean;
}

export interface ReactionRecord {
  readonly id: number;
  readonly node_id: string;
  readonly user: string;
  readonly content: ReactionContent;
  readonly created_at: string;
}

export interface PullFields {
  head: { ref: string; repo: string; sha: string };
  base: { ref: string; sha: string };
  merged_at: string | null;
  merge_commit_sha: string | null;
  merged_by: string | null;
  draft: boolean;
}

export interface IssueRecord {
  readonly id: number;
  readonly node_id: string;
  readonly number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: 'completed' | 'reopened' | 'not_planned' | 'duplicate' | null;
  readonly user: string;
  /** Label names as the repository spells them. */
  labels: string[];
  assignees: string[];
  locked: boolean;
  readonly created_at: string;
  updated_at: string;
  closed_at: string | null;
  readonly reactions: ReactionRecord[];
  /** Set when the issue is a pull request. */
  pull?: PullFields;
}

export interface CommentRecord {
  readonly id: number;
  readonly node_id: string;
  readonly issue_number: number;
  body: string;
  readonly user: string;
  readonly created_at: string;
  updated_at: string;
  readonly reactions: ReactionRecord[];
  /** The app whose installation token wrote it. */
  readonly app?: string;
}

export interface CheckRunRecord {
  readonly id: number;
  readonly node_id: string;
  readonly head_sha: string;
  name: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  started_at: string | null;
  completed_at: string | null;
  external_id: string | null;
  details_url: string | null;
  output: { title: string | null; summary: string | null; text: string | null; annotations_count: number };
  actions: { label: string; description: string; identifier: string }[];
  readonly app: string;
  readonly check_suite_id: number;
}

export interface WorkflowRecord {
  readonly id: number;
  readonly node_id: string;
  name: string;
  /** `.github/workflows/<file>` */
  readonly path: string;
  state: 'active' | 'disabled_manually';
  /** Whether the workflow declares `on: workflow_dispatch`. */
  dispatchable: boolean;
  /** Declared `workflow_dispatch` inputs; undefined accepts any. */
  inputs?: readonly string[];
}

export interface StepRecord {
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  number: number;
  started_at: string | null;
  completed_at: string | null;
}

export interface JobRecord {
  readonly id: number;
  readonly node_id: string;
  name: string;
  status: JobStatus;
  conclusion: JobConclusion;
  readonly created_at: string;
  started_at: string;
  completed_at: string | null;
  runner_id: number | null;
  runner_name: string | null;
  labels: string[];
  steps: StepRecord[];
}

export interface AttemptRecord {
  readonly attempt: number;
  status: string;
  conclusion: string | null;
  run_started_at: string;
  updated_at: string;
  readonly jobs: JobRecord[];
}

export interface WorkflowRunRecord {
  readonly id: number;
  readonly node_id: string;
  readonly workflow_id: number;
  readonly run_number: number;
  readonly event: string;
  readonly head_branch: string | null;
  readonly head_sha: string;
  readonly actor: string;
  display_title: string;
  readonly created_at: string;
  /** Attempt 1 first; the last is the run's current state. */
  readonly attempts: AttemptRecord[];
}

export interface DispatchRecord {
  /** As the request named it: a numeric id or a file name. */
  readonly workflow_id: string;
  readonly workflow: number;
  readonly ref: string;
  readonly inputs: Record<string, unknown>;
  readonly actor: string;
  readonly at: string;
  /** The queued run the dispatch created. */
  readonly run_id: number;
}

export interface ReleaseRecord {
  readonly id: number;
  readonly node_id: string;
  readonly tag_name: string;
  readonly target_commitish: string;
  name: string | null;
  body: string | null;
  draft: boolean;
  prerelease: boolean;
  readonly created_at: string;
  published_at: string | null;
  readonly author: string;
}

export interface TeamMember {
  readonly login: string;
  readonly role: 'member' | 'maintainer';
  readonly state: 'active' | 'pending';
}

export interface TeamRecord {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly members: Map<string, TeamMember>;
}

export interface OrgRecord {
  readonly login: string;
  readonly teams: Map<string, TeamRecord>;
}
