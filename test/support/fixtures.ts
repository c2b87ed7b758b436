/** Real webhook payloads from @octokit/webhooks-examples, adjusted to a test repository. */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const examples = require('@octokit/webhooks-examples') as Array<{
  name: string;
  examples: Array<Record<string, unknown> & { action?: string }>;
}>;

/** A deep copy of the first example of `event` with `action`. */
export function webhookExample(event: string, action?: string): Record<string, unknown> {
  const group = examples.find((e) => e.name === event);
  const ex = group?.examples.find((e) => action === undefined || e.action === action);
  if (!ex) throw new Error(`no webhooks-examples payload for ${event}.${action}`);
  return structuredClone(ex);
}

/** Points a payload at owner/repo and issue `number`, with the given labels. */
export function issuesLabeled(
  owner: string,
  repo: string,
  number: number,
  label: string,
  title = 'Fix the add() bug',
) {
  const p = webhookExample('issues', 'labeled') as {
    issue: {
      number: number;
      title: string;
      labels: Array<{ name: string }>;
      pull_request?: unknown;
      url: string;
      html_url: string;
    };
    label: { name: string };
    repository: { name: string; full_name: string; owner: { login: string }; url: string; html_url: string };
  };
  p.issue.number = number;
  // The example's links name its own repository and issue: point them at this one.
  p.issue.url = `https://api.github.com/repos/${owner}/${repo}/issues/${number}`;
  p.issue.html_url = `https://github.com/${owner}/${repo}/issues/${number}`;
  p.issue.title = title;
  p.issue.labels = [{ ...(p.issue.labels[0] ?? {}), name: label }];
  delete p.issue.pull_request;
  p.label = { ...p.label, name: label };
  p.repository = {
    ...p.repository,
    name: repo,
    full_name: `${owner}/${repo}`,
    owner: { ...p.repository.owner, login: owner },
    url: `https://api.github.com/repos/${owner}/${repo}`,
    html_url: `https://github.com/${owner}/${repo}`,
  };
  return p as unknown as Record<string, unknown>;
}
