import type { ApplicationFunctionOptions, Context, Probot } from 'probot';
import type { CommentPayload, HandlerDeps, Outcome, RequestedActionPayload } from '../approvals/deps.js';
import { handleComment, handleRequestedAction, outcomeWords } from '../approvals/handler.js';
import { handleJournalPush } from '../approvals/journal-push.js';
import { configLoader } from '../config/load.js';
import type { GitHubClient } from '../github/client.js';
import { defaultBranchReader } from '../github/repo-text.js';
import { readTuning } from '../os/tuning.js';
import { DEFAULT_JOURNAL_BRANCH } from '../store/git.js';
import { PageApp, type PageConfig } from './page/page-app.js';

interface AppOptions {
  /** The branch that holds the journals (default `interlock-journal`, as the Action's default). */
  journalBranch?: string;
  /** The maintainers' page (issue 37), when configured (`INTERLOCK_PAGE_URL`); off otherwise. */
  page?: PageConfig;
  /** How stale GitHub's reads by branch name may be (default `INTERLOCK_STALE_READ_MS`, else 10 s). */
  staleWindowMs?: number;
  /** An approval's claim on its dispatch (default `INTERLOCK_DISPATCH_LEASE_MS`, else 60 s). */
  dispatchLeaseMs?: number;
}

/** The options with the App's tuning: what a caller gave, else the App's environment, read once at its start. */
type AppTuned = AppOptions & { staleWindowMs: number; dispatchLeaseMs: number };

function depsFor(context: Context, options: AppTuned): HandlerDeps {
  const payload = context.payload as { repository?: { html_url?: string } };
  const web = payload.repository?.html_url
    ? new URL(payload.repository.html_url).origin
    : 'https://github.com';
  const { owner, repo } = context.repo();
  // Probot's Octokit carries the same REST methods as the Action's client.
  const octokit = context.octokit as unknown as GitHubClient;
  return {
    octokit,
    repo: { owner, repo },
    // Read once per delivery, however many rules of the command ask.
    config: configLoader(defaultBranchReader(octokit, { owner, repo })),
    journalBranch: options.journalBranch ?? DEFAULT_JOURNAL_BRANCH,
    webUrl: web,
    checkRuns: true,
    staleWindowMs: options.staleWindowMs,
    dispatchLeaseMs: options.dispatchLeaseMs,
    log: (m) => context.log.info(m),
  };
}

/** A failed command fails the delivery, so it shows as failed in the App's delivery log. */
function failDeliveryIfFailed(outcome: Outcome): void {
  if (outcome.kind === 'failed') throw new Error(`interlock: ${outcomeWords(outcome)}`);
}

/** The interlock GitHub App: comment commands, the "Approve rerun" button, and check runs for pull requests. */
export function interlockApp(given: AppOptions = {}) {
  const tuning = readTuning(process.env);
  const options: AppTuned = {
    ...given,
    staleWindowMs: given.staleWindowMs ?? tuning.INTERLOCK_STALE_READ_MS,
    dispatchLeaseMs: given.dispatchLeaseMs ?? tuning.INTERLOCK_DISPATCH_LEASE_MS,
  };
  return (app: Probot, fn?: ApplicationFunctionOptions): void => {
    if (options.page && fn?.addHandler) {
      const config = { ...options.page, dispatchLeaseMs: options.dispatchLeaseMs };
      const page = new PageApp(config, async (id) => (await app.auth(id)) as unknown as GitHubClient);
      fn.addHandler((req, res) => page.handle(req, res));
    }
    // Edits are handled only to answer that an edit never counts as a command.
    app.on(['issue_comment.created', 'issue_comment.edited'], async (context) => {
      failDeliveryIfFailed(
        await handleComment(depsFor(context, options), context.payload as unknown as CommentPayload),
      );
    });
    app.on('check_run.requested_action', async (context) => {
      failDeliveryIfFailed(
        await handleRequestedAction(
          depsFor(context, options),
          context.payload as unknown as RequestedActionPayload,
          context.id,
        ),
      );
    });
    app.on('push', async (context) => {
      await handleJournalPush(depsFor(context, options), context.payload);
    });
  };
}
