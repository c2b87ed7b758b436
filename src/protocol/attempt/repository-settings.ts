/**
 * Failures that only a change to the repository's settings can fix, so retrying them spends attempts for
 * nothing: the node escalates at once, and what is needed names the setting. Pure.
 *
 * GitHub refuses a pull request made with a workflow's token (`GITHUB_TOKEN`) unless the repository, or its
 * organisation, allows it: "Allow GitHub Actions to create and approve pull requests", off by default for new
 * repositories and organisations. The API answers 403 `GitHub Actions is not permitted to create or approve pull
 * requests.`
 */
import type { Failure } from '../../journal/events/fields.js';

/** The setting's name as GitHub's settings page shows it. */
export const ACTIONS_PULL_REQUEST_SETTING = 'Allow GitHub Actions to create and approve pull requests';

/** The words of GitHub's 403 when the setting is off. */
const ACTIONS_PULL_REQUEST_REFUSAL = 'GitHub Actions is not permitted to create or approve pull requests';

/** Where the setting is, and the alternative, in one sentence a person acts on. */
const INSTRUCTION = `the repository does not let the workflow's token open pull requests: turn on Settings → Actions → General → Workflow permissions → "${ACTIONS_PULL_REQUEST_SETTING}" (in an organisation, its Settings → Actions → General first), or give the action's token input a GitHub App's installation token`;

/**
 * The failure message for an effect's GitHub error that only a setting fixes, or undefined for any other error
 * (those are retried as usual).
 */
export function settingFailureMessage(status: number | undefined, message: string): string | undefined {
  if (status === 403 && message.includes(ACTIONS_PULL_REQUEST_REFUSAL))
    return `GitHub answered 403 "${ACTIONS_PULL_REQUEST_REFUSAL}": ${INSTRUCTION}`;
  return undefined;
}

/**
 * Rule: an effect's failure that only a repository setting fixes escalates its node at once, since a retry
 * meets the same refusal; the returned words say what a person does. Only an effect's own failure counts
 * (its check is `effect <kind>`): a node's command cannot print its way into it.
 */
export function settingEscalation(
  node: string,
  failures: Failure[],
): { setting: string; needed: string } | undefined {
  const f = failures.find(
    (x) => x.check.startsWith('effect ') && x.message.includes(ACTIONS_PULL_REQUEST_REFUSAL),
  );
  if (!f) return undefined;
  return {
    setting: ACTIONS_PULL_REQUEST_SETTING,
    needed: `A retry meets the same refusal, so "${node}" escalated at once: ${INSTRUCTION}. Then approve a rerun of "${node}".`,
  };
}
