/** GitHub Apps and their installations as GitHub shows them. */
import type { Urls } from '../context.js';
import type { AppRecord } from '../records.js';
import type { StateEnv } from '../repo-state.js';
import type { GitHubState } from '../state.js';
import type { BodyOf, OperationOf, Schema } from '../types.js';
import { simpleUser } from './users.js';

const PERMISSIONS = {
  actions: 'write',
  checks: 'write',
  contents: 'write',
  issues: 'write',
  metadata: 'read',
  pull_requests: 'write',
} as const;

const EVENTS = ['check_run', 'issue_comment', 'issues', 'pull_request'];

export function integration(app: AppRecord, env: StateEnv, urls: Urls): NonNullable<Schema<'integration'>> {
  return {
    id: app.id,
    slug: app.slug,
    node_id: `A_${Buffer.from(`0:${app.id}`).toString('base64url')}`,
    client_id: `Iv1.${app.slug}`,
    owner: simpleUser(env.user(app.owner), urls),
    name: app.name,
    description: null,
    external_url: `${urls.web}/apps/${app.slug}`,
    html_url: `${urls.web}/apps/${app.slug}`,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
    permissions: { ...PERMISSIONS },
    events: EVENTS,
  };
}

type InstallationListItem = BodyOf<OperationOf<'/app/installations', 'get'>, 200>[number];

/** An installation; its account carries both user and enterprise fields, as the list operation types it. */
export function installation(
  state: GitHubState,
  urls: Urls,
  account: string,
): Schema<'installation'> & InstallationListItem {
  const app = state.app;
  const owner = state.user(account);
  return {
    id: app.installationId,
    account: {
      ...simpleUser(owner, urls),
      name: owner.name ?? owner.login,
      slug: owner.login.toLowerCase(),
      description: null,
      website_url: null,
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
    },
    repository_selection: 'all',
    access_tokens_url: `${urls.api}/app/installations/${app.installationId}/access_tokens`,
    repositories_url: `${urls.api}/installation/repositories`,
    html_url: `${urls.web}/settings/installations/${app.installationId}`,
    app_id: app.id,
    client_id: `Iv1.${app.slug}`,
    target_id: owner.id,
    target_type: owner.type === 'Organization' ? 'Organization' : 'User',
    permissions: { ...PERMISSIONS },
    events: EVENTS,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
    single_file_name: null,
    app_slug: app.slug,
    suspended_by: null,
    suspended_at: null,
  };
}
