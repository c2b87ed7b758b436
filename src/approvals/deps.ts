// What the approval logic needs from the face that runs it, and the webhook payload fields it reads.
import type { ConfigLoader } from '../config/load.js';
import type { GitHubClient, RepoRef } from '../github/client.js';
import type { Command } from './commands/parse.js';

/** What the handler needs from the face that runs it (the Probot app, or the Action's `mode: comment`). */
export interface HandlerDeps {
  /** Any Octokit with the REST methods: the Action's client, or Probot's `context.octokit`. */
  octokit: GitHubClient;
  repo: RepoRef;
  /**
   * The repository's `.github/interlock.yml` as this face reads it for this delivery or step (the default
   * branch's: `defaultBranchConfig`), read once however many rules ask.
   */
  config: ConfigLoader;
  /** The branch that holds `runs/<run-id>.json` (default `interlock-journal`). */
  journalBranch: string;
  /** The web root for links, e.g. `https://github.com` or a GitHub Enterprise Server's. */
  webUrl: string;
  /** Show runs of pull requests as check runs with an "Approve rerun" button (the App; not the Action). */
  checkRuns?: boolean;
  now?: () => string;
  log?: (message: string) => void;
  /**
   * How stale GitHub's reads by branch name may be (`INTERLOCK_STALE_READ_MS`): a command refused for what the
   * journal lacks is looked at again once a read holds everything written before the command was made. Absent or
   * 0: never (a face whose reads are exact).
   */
  staleWindowMs?: number;
  /**
   * An approval's claim on its dispatch (`INTERLOCK_DISPATCH_LEASE_MS`, read by the face): the writer dispatches
   * within half of it, a copy of the command past the whole (applying/retry-dispatch.ts). Absent: the tuning
   * schema's default.
   */
  dispatchLeaseMs?: number;
  /**
   * The Action's job is a re-run on the same event (`GITHUB_RUN_ATTEMPT` > 1): its earlier attempt may have
   * written the command moments ago, so a refusal is looked at again once a read holds what was written before
   * this attempt began, not only before the comment was made.
   */
  rerunJob?: boolean;
}

interface AccountPayload {
  login: string;
  type?: string;
}

interface RepositoryPayload {
  name: string;
  owner: { login: string };
  default_branch?: string;
  html_url?: string;
}

/** The fields of an `issue_comment` webhook payload the handler reads. */
export interface CommentPayload {
  action: string;
  comment: {
    id: number;
    body?: string | null;
    html_url: string;
    user: AccountPayload | null;
    /** When the comment was made: a read that began the stale window after it holds what the person saw. */
    created_at?: string;
  };
  issue: {
    number: number;
    pull_request?: unknown;
    labels?: Array<{ name?: string } | string>;
  };
  changes?: { body?: { from?: string } };
  sender: AccountPayload;
  repository: RepositoryPayload;
}

/** The fields of a `check_run.requested_action` webhook payload the handler reads. */
export interface RequestedActionPayload {
  action: string;
  check_run: {
    id: number;
    external_id?: string | null;
    html_url?: string | null;
    head_sha?: string;
  };
  requested_action?: { identifier?: string } | null;
  sender: AccountPayload;
  repository: RepositoryPayload;
}

/** What came of one comment or button press. */
export type Outcome =
  | { kind: 'ignored'; why: string }
  | { kind: 'refused'; why: string; command?: Command }
  | { kind: 'done'; what: string; command: Command; workflowRun?: string; workflowRunId?: number }
  | { kind: 'failed'; why: string };
