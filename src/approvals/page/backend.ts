/** What the page's HTTP side needs from where runs live (the App's repositories, or the CLI's local journals). */

import type { PageWait } from '../../protocol/commands/page-binding.js';
import type { PageRun, WaitingRow } from '../../render/page/waiting-model.js';
import type { MayAct } from '../../render/page/waiting-page.js';
import type { Outcome } from '../deps.js';
import type { PageActionKind } from '../page-action.js';

/** The person looking: their login (absent for the CLI's local user) and the CSRF token of their session. */
export interface Viewer {
  login?: string;
  csrf: string;
  /** What the App knows of the session (the user's token), opaque here. */
  session?: unknown;
}

/** Everything the person can see: the repositories and their runs that have not ended. */
export interface Seen {
  repos: string[];
  runs: PageRun[];
  problems: { repo: string; why: string }[];
}

/** One submitted form, as read from its fields. */
export interface PageForm {
  repo: string;
  runId: string;
  node: string;
  waits: PageWait;
  attempt: number;
  graphHash: string;
  action: PageActionKind;
  text: string;
  formId: string;
}

export interface PageBackend {
  /** Where issues, pull requests and workflow runs are linked (`https://github.com`); none locally. */
  webUrl?: string;
  see(viewer: Viewer): Promise<Seen>;
  /** One run, also one that ended; undefined when the person cannot see it or it does not exist. */
  run(viewer: Viewer, repo: string, runId: string): Promise<PageRun | undefined>;
  /**
   * Whether the person may act on each row, under the same rules as the comment command. `readOnly` when they
   * may not act in the repository at all (no control is shown), otherwise the controls are disabled with why.
   */
  mayAct(viewer: Viewer, rows: WaitingRow[]): Promise<(row: WaitingRow) => MayAct & { readOnly?: boolean }>;
  /** Carries out a form through the comment command's path; `source` is the form's delivery URL. */
  act(viewer: Viewer, form: PageForm, source: string): Promise<Outcome>;
  /** Forgets what is kept for a repository (after an action changed it). */
  forget?(repo: string): void;
}
