/** Check runs as GitHub shows them. */
import type { Urls } from '../context.js';
import type { CheckRunRecord } from '../records.js';
import type { RepoState } from '../repo-state.js';
import { ACTIONS_APP } from '../state.js';
import type { Schema } from '../types.js';
import { integration } from './apps.js';
import { pullsAt } from './pulls.js';

export function checkRun(repo: RepoState, urls: Urls, record: CheckRunRecord): Schema<'check-run'> {
  const url = `${urls.api}/repos/${repo.fullName}/check-runs/${record.id}`;
  const app =
    record.app === repo.env.app.slug
      ? repo.env.app
      : record.app === ACTIONS_APP.slug
        ? ACTIONS_APP
        : undefined;
  return {
    id: record.id,
    head_sha: record.head_sha,
    node_id: record.node_id,
    external_id: record.external_id ?? '',
    url,
    html_url: `${urls.web}/${repo.fullName}/runs/${record.id}`,
    details_url: record.details_url ?? `${urls.web}/${repo.fullName}/runs/${record.id}`,
    status: record.status,
    conclusion: record.conclusion,
    started_at: record.started_at,
    completed_at: record.completed_at,
    output: { ...record.output, annotations_url: `${url}/annotations` },
    name: record.name,
    check_suite: { id: record.check_suite_id },
    app: app ? integration(app, repo.env, urls) : null,
    pull_requests: pullsAt(repo, urls, record.head_sha),
  };
}
